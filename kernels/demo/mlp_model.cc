#include "kernels/demo/mlp_model.h"

#include <cmath>

#include "kernels/demo/seeded_data.h"

namespace optrace::kernels::demo {

namespace {

constexpr float kRmsNormEps = 1e-5f;
// Inputs of step s come from seed stream kInputStreamBase + s; weights take
// streams 1, 2, ... in construction order, far below it.
constexpr uint64_t kInputStreamBase = uint64_t{1} << 40;

// Half-width of a uniform distribution with variance 1 / fan_in times
// `gain`^2: keeps activations of order 1 through the stack.
float UniformScale(size_t fan_in, float gain) {
  return gain * std::sqrt(3.0f / static_cast<float>(fan_in));
}

}  // namespace

MlpModel::MlpModel(Backend& backend, const ModelConfig& config)
    : backend_(backend), config_(config) {
  const size_t h = config.hidden;
  const size_t wide = 4 * h;
  for (size_t i = 0; i < config.layers; ++i) {
    Layer layer;
    layer.gamma = SeededTensor(1, h, 1.0f, 0.1f);
    layer.w1 = SeededTensor(h, wide, 0.0f, UniformScale(h, 1.0f));
    // Damped, so the residual stream grows slowly with depth.
    layer.w2 = SeededTensor(wide, h, 0.0f, UniformScale(wide, 0.5f));
    layers_.push_back(layer);
  }
  final_gamma_ = SeededTensor(1, h, 1.0f, 0.1f);
  // Logits of spread ~2: a softmax that is neither flat nor one-hot.
  head_ = SeededTensor(h, config.vocab, 0.0f, UniformScale(h, 2.0f));
  x_ = backend_.Allocate(config.batch, h);
  normed_ = backend_.Allocate(config.batch, h);
  up_ = backend_.Allocate(config.batch, wide);
  down_ = backend_.Allocate(config.batch, h);
  logits_ = backend_.Allocate(config.batch, config.vocab);
  probs_ = backend_.Allocate(config.batch, config.vocab);
  host_input_.resize(x_.size());
  host_probs_.resize(probs_.size());
}

Tensor MlpModel::SeededTensor(size_t rows, size_t cols, float center, float scale) {
  std::vector<float> host(rows * cols);
  FillSeeded(host, config_.seed, next_stream_++, center, scale);
  const Tensor t = backend_.Allocate(rows, cols);
  backend_.Upload(host, t);
  return t;
}

double MlpModel::RunStep(uint64_t step) {
  FillSeeded(host_input_, config_.seed, kInputStreamBase + step, 0.0f, 1.0f);
  backend_.Upload(host_input_, x_);
  for (const Layer& layer : layers_) RunLayer(layer);
  RunHead();
  backend_.Download(probs_, host_probs_);
  double checksum = 0.0;
  for (size_t r = 0; r < config_.batch; ++r) {
    for (size_t j = 0; j < config_.vocab; ++j) {
      checksum += static_cast<double>(j + 1) * host_probs_[r * config_.vocab + j];
    }
  }
  return checksum;
}

void MlpModel::RunLayer(const Layer& layer) {
  backend_.RmsNorm(x_, layer.gamma, kRmsNormEps, normed_);
  if (config_.mode == FusionMode::kFused) {
    backend_.FusedMatmulGelu(normed_, layer.w1, up_);
  } else {
    backend_.Matmul(normed_, layer.w1, up_);
    backend_.Gelu(up_, up_);
  }
  backend_.Matmul(up_, layer.w2, down_);
  backend_.Add(x_, down_, x_);
}

void MlpModel::RunHead() {
  if (config_.mode == FusionMode::kFused) {
    backend_.FusedRmsNormMatmul(x_, final_gamma_, kRmsNormEps, head_, logits_);
  } else {
    backend_.RmsNorm(x_, final_gamma_, kRmsNormEps, normed_);
    backend_.Matmul(normed_, head_, logits_);
  }
  backend_.Softmax(logits_, probs_);
}

}  // namespace optrace::kernels::demo
