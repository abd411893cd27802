// The model optrace-demo runs: a small transformer-style stack, op by op on
// a backend, the way an inference runtime dispatches it.
#ifndef OPTRACE_KERNELS_DEMO_MLP_MODEL_H_
#define OPTRACE_KERNELS_DEMO_MLP_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/backend.h"

namespace optrace::kernels::demo {

// Whether the model dispatches one op per step of the math, or the fused
// kernels where they apply.
enum class FusionMode : uint8_t { kUnfused, kFused };

struct ModelConfig {
  size_t layers = 4;
  size_t batch = 16;
  size_t hidden = 256;
  size_t vocab = 512;
  uint64_t seed = 1;
  FusionMode mode = FusionMode::kUnfused;
};

// `layers` pre-norm MLP blocks, x += W2 Gelu(W1 RmsNorm(x)) with W1
// hidden x 4*hidden and W2 4*hidden x hidden, then a final RmsNorm, a
// projection to `vocab` logits and a softmax over them. Weights and inputs
// are seeded (demo/seeded_data.h), so a run is reproducible.
//
// Ops per step, unfused:  [rms_norm, matmul, elementwise(gelu), matmul,
//   elementwise(add)] per layer, then rms_norm, matmul, softmax.
// Fused:  [rms_norm, fused_matmul_gelu, matmul, elementwise(add)] per
//   layer, then fused_rms_norm_matmul, softmax. Inside a block the GELU
//   fusion is the one taken: it removes the widest intermediate (batch x
//   4*hidden, written and read back); the rms_norm fusion is taken where
//   nothing competes for its matmul, the final norm feeding the vocabulary
//   projection. Both modes compute the same function.
class MlpModel {
 public:
  // Allocates weights and activations on `backend` and uploads the seeded
  // weights. `backend` must outlive the model. Throws what the backend
  // throws (allocation and copy failures).
  MlpModel(Backend& backend, const ModelConfig& config);

  // Runs one forward pass on the seeded input batch of `step` and returns
  // its checksum: the expected 1-based token position under each row's
  // output distribution, summed over the batch (sum_r sum_j (j+1) p[r][j]).
  double RunStep(uint64_t step);

 private:
  struct Layer {
    Tensor gamma;  // 1 x hidden
    Tensor w1;     // hidden x 4*hidden
    Tensor w2;     // 4*hidden x hidden
  };

  // A new rows x cols tensor filled with seeded values from the next stream.
  Tensor SeededTensor(size_t rows, size_t cols, float center, float scale);
  void RunLayer(const Layer& layer);
  void RunHead();

  Backend& backend_;
  const ModelConfig config_;
  uint64_t next_stream_ = 1;
  std::vector<Layer> layers_;
  Tensor final_gamma_;  // 1 x hidden
  Tensor head_;         // hidden x vocab
  Tensor x_;            // batch x hidden: the residual stream
  Tensor normed_;       // batch x hidden
  Tensor up_;           // batch x 4*hidden
  Tensor down_;         // batch x hidden
  Tensor logits_;       // batch x vocab
  Tensor probs_;        // batch x vocab
  std::vector<float> host_input_;
  std::vector<float> host_probs_;
};

}  // namespace optrace::kernels::demo

#endif  // OPTRACE_KERNELS_DEMO_MLP_MODEL_H_
