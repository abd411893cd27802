// The CUDA backend against the CPU backend, op by op. Built only with CUDA;
// every test skips, saying why, where no device is present.
#include "kernels/cuda/gpu_backend.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cuda/gpu_completion_queue.h"
#include "kernels/matmul_params.h"
#include "optrace/optrace.hpp"
#include "reference_kernels.h"

namespace optrace::kernels::cuda {
namespace {

using testing::AllNear;
using testing::RandomValues;

constexpr float kEps = 1e-5f;

// Shapes below, at and across the 16-wide tiles, most not multiples of it.
const MatmulShape kShapes[] = {
    {1, 1, 1}, {16, 16, 16}, {17, 33, 31}, {37, 131, 129}, {64, 1024, 256}};

// One tensor on each backend, holding the same values.
struct TensorPair {
  Tensor cpu;
  Tensor gpu;
};
using Side = Tensor TensorPair::*;

// Why a device-less machine skips: one line, from the device query.
std::string SkipReason(const std::string& why_not) {
  return "no CUDA device to run the GPU kernels on (" + why_not + ")";
}

class GpuBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    gpu_ = GpuBackend::Create(0, &why_not);
    if (gpu_ == nullptr) GTEST_SKIP() << SkipReason(why_not);
  }

  TensorPair Both(size_t rows, size_t cols, const std::vector<float>& values) {
    TensorPair pair{cpu_.Allocate(rows, cols), gpu_->Allocate(rows, cols)};
    cpu_.Upload(values, pair.cpu);
    gpu_->Upload(values, pair.gpu);
    return pair;
  }

  TensorPair BothEmpty(size_t rows, size_t cols) {
    return Both(rows, cols, std::vector<float>(rows * cols, -7.0f));
  }

  // Runs `op(backend, side)` on the CPU backend and on the GPU backend.
  template <typename Op>
  void OnBoth(Op op) {
    op(static_cast<Backend&>(cpu_), &TensorPair::cpu);
    op(static_cast<Backend&>(*gpu_), &TensorPair::gpu);
  }

  ::testing::AssertionResult SameOnBoth(const TensorPair& pair) {
    std::vector<float> from_cpu(pair.cpu.size());
    std::vector<float> from_gpu(pair.gpu.size());
    cpu_.Download(pair.cpu, from_cpu);
    gpu_->Download(pair.gpu, from_gpu);
    return AllNear(from_gpu, from_cpu);
  }

  cpu::CpuBackend cpu_;
  std::unique_ptr<GpuBackend> gpu_;
};

TEST_F(GpuBackendTest, Elementwise_EachFunction_MatchesCpu) {
  // Larger than one grid of the grid-stride loop (4096 blocks x 256).
  for (size_t count : {size_t{1}, size_t{1001}, size_t{1100003}}) {
    const TensorPair a = Both(1, count, RandomValues(count, 61, -4.0f, 4.0f));
    const TensorPair b = Both(1, count, RandomValues(count, 62));
    const TensorPair sum = BothEmpty(1, count);
    const TensorPair product = BothEmpty(1, count);
    const TensorPair gelu = BothEmpty(1, count);
    OnBoth([&](Backend& backend, Side side) {
      backend.Add(a.*side, b.*side, sum.*side);
      backend.Mul(a.*side, b.*side, product.*side);
      backend.Gelu(a.*side, gelu.*side);
    });
    EXPECT_TRUE(SameOnBoth(sum)) << "count " << count;
    EXPECT_TRUE(SameOnBoth(product)) << "count " << count;
    EXPECT_TRUE(SameOnBoth(gelu)) << "count " << count;
  }
}

TEST_F(GpuBackendTest, RowKernels_OddShapes_MatchCpu) {
  for (const MatmulShape s : kShapes) {
    const TensorPair x = Both(s.m, s.k, RandomValues(s.m * s.k, 63, -5.0f, 5.0f));
    const TensorPair gamma = Both(1, s.k, RandomValues(s.k, 64, 0.5f, 1.5f));
    const TensorPair normed = BothEmpty(s.m, s.k);
    const TensorPair probs = BothEmpty(s.m, s.k);
    OnBoth([&](Backend& backend, Side side) {
      backend.RmsNorm(x.*side, gamma.*side, kEps, normed.*side);
      backend.Softmax(x.*side, probs.*side);
    });
    EXPECT_TRUE(SameOnBoth(normed)) << s.m << "x" << s.k;
    EXPECT_TRUE(SameOnBoth(probs)) << s.m << "x" << s.k;
  }
}

TEST_F(GpuBackendTest, MatmulFamily_OddShapes_MatchCpu) {
  for (const MatmulShape s : kShapes) {
    const TensorPair a = Both(s.m, s.k, RandomValues(s.m * s.k, 65));
    const TensorPair gamma = Both(1, s.k, RandomValues(s.k, 66, 0.5f, 1.5f));
    const TensorPair b = Both(s.k, s.n, RandomValues(s.k * s.n, 67));
    const TensorPair plain = BothEmpty(s.m, s.n);
    const TensorPair with_gelu = BothEmpty(s.m, s.n);
    const TensorPair normed_product = BothEmpty(s.m, s.n);
    OnBoth([&](Backend& backend, Side side) {
      backend.Matmul(a.*side, b.*side, plain.*side);
      backend.FusedMatmulGelu(a.*side, b.*side, with_gelu.*side);
      backend.FusedRmsNormMatmul(a.*side, gamma.*side, kEps, b.*side, normed_product.*side);
    });
    const std::string shape =
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    EXPECT_TRUE(SameOnBoth(plain)) << shape;
    EXPECT_TRUE(SameOnBoth(with_gelu)) << shape;
    EXPECT_TRUE(SameOnBoth(normed_product)) << shape;
  }
}

TEST_F(GpuBackendTest, TracedOps_Synchronized_AllCompletedWithDeviceDuration) {
  optrace::SetLevel(optrace::Level::kTrace);
  const TensorPair a = Both(64, 256, RandomValues(64 * 256, 68));
  const TensorPair b = Both(256, 512, RandomValues(256 * 512, 69));
  const TensorPair c = BothEmpty(64, 512);
  uint64_t launched = 0;
  gpu_->SetLaunchObserver([&launched](uint64_t ordinal, OpKind) { launched = ordinal; });
  for (int i = 0; i < 100; ++i) gpu_->Matmul(a.gpu, b.gpu, c.gpu);
  gpu_->Synchronize();
  optrace::SetLevel(optrace::Level::kOff);
  EXPECT_EQ(launched, 100u);
  EXPECT_EQ(gpu_->untimed_completions(), 0u);
}

TEST(GpuCompletionQueueTest, RecordedEvents_Submitted_CompletedWithDuration) {
  std::string why_not;
  std::unique_ptr<GpuBackend> probe = GpuBackend::Create(0, &why_not);
  if (probe == nullptr) GTEST_SKIP() << SkipReason(why_not);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  static optrace::OpSite site("completion_queue_test");
  {
    GpuCompletionQueue queue(0);
    for (int i = 0; i < 10; ++i) {
      GpuOpEvents events;
      ASSERT_EQ(queue.AcquireEvents(&events), cudaSuccess);
      ASSERT_EQ(cudaEventRecord(events.start, stream), cudaSuccess);
      ASSERT_EQ(cudaEventRecord(events.stop, stream), cudaSuccess);
      queue.Submit({&site, /*op_id=*/0, optrace::Placement::Gpu(0, 1), 0, events});
    }
    queue.WaitUntilIdle();
    EXPECT_EQ(queue.untimed_completions(), 0u);
  }
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace optrace::kernels::cuda
