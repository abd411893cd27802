#include "kernels/cpu/cpu_backend.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "reference_kernels.h"

namespace optrace::kernels::cpu {
namespace {

using testing::RandomValues;

constexpr float kEps = 1e-5f;

// A tensor on `backend` holding `values`.
Tensor Upload(Backend& backend, size_t rows, size_t cols, const std::vector<float>& values) {
  const Tensor t = backend.Allocate(rows, cols);
  backend.Upload(values, t);
  return t;
}

std::vector<float> Download(Backend& backend, const Tensor& t) {
  std::vector<float> host(t.size());
  backend.Download(t, host);
  return host;
}

// The message of the std::invalid_argument `op` throws, or "" if none.
template <typename Op>
std::string InvalidArgumentMessage(Op op) {
  try {
    op();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(CpuBackendTest, Matmul_InnerSizesDiffer_ThrowsNamingOperandAndShapes) {
  CpuBackend backend;
  const Tensor a = backend.Allocate(2, 3);
  const Tensor b = backend.Allocate(4, 5);
  const Tensor c = backend.Allocate(2, 5);
  EXPECT_EQ(InvalidArgumentMessage([&] { backend.Matmul(a, b, c); }),
            "matmul: operand b is 4x5, expected 3x5");
}

TEST(CpuBackendTest, FusedRmsNormMatmul_GammaTooShort_ThrowsNamingGamma) {
  CpuBackend backend;
  const Tensor x = backend.Allocate(2, 8);
  const Tensor gamma = backend.Allocate(1, 7);
  const Tensor w = backend.Allocate(8, 4);
  const Tensor c = backend.Allocate(2, 4);
  EXPECT_EQ(InvalidArgumentMessage([&] { backend.FusedRmsNormMatmul(x, gamma, kEps, w, c); }),
            "fused_rms_norm_matmul: operand gamma is 1x7, expected 1x8");
}

TEST(CpuBackendTest, Add_OutputShapeDiffers_Throws) {
  CpuBackend backend;
  const Tensor a = backend.Allocate(4, 4);
  const Tensor out = backend.Allocate(2, 8);
  EXPECT_EQ(InvalidArgumentMessage([&] { backend.Add(a, a, out); }),
            "elementwise: operand out is 2x8, expected 4x4");
}

TEST(CpuBackendTest, Matmul_OutputAliasesInput_Throws) {
  CpuBackend backend;
  const Tensor a = backend.Allocate(3, 3);
  EXPECT_EQ(InvalidArgumentMessage([&] { backend.Matmul(a, a, a); }),
            "matmul: operand c must not alias a");
}

TEST(CpuBackendTest, Softmax_EmptyTensor_Throws) {
  CpuBackend backend;
  const Tensor x = backend.Allocate(0, 5);
  EXPECT_EQ(InvalidArgumentMessage([&] { backend.Softmax(x, x); }),
            "softmax: operand x is empty (0x5)");
}

TEST(CpuBackendTest, Upload_WrongSize_ThrowsNamingSizes) {
  CpuBackend backend;
  const Tensor t = backend.Allocate(2, 3);
  const std::vector<float> host(5);
  EXPECT_EQ(InvalidArgumentMessage([&] { backend.Upload(host, t); }),
            "upload: 5 host floats do not fit a 2x3 tensor");
}

TEST(CpuBackendTest, LaunchObserver_SeveralOps_SeesEachOpOnceInOrder) {
  CpuBackend backend;
  std::vector<std::pair<uint64_t, OpKind>> seen;
  backend.SetLaunchObserver(
      [&seen](uint64_t ordinal, OpKind kind) { seen.emplace_back(ordinal, kind); });
  const Tensor x = Upload(backend, 2, 4, RandomValues(8, 51));
  const Tensor gamma = Upload(backend, 1, 4, std::vector<float>(4, 1.0f));
  const Tensor w = Upload(backend, 4, 4, RandomValues(16, 52));
  const Tensor y = backend.Allocate(2, 4);
  const Tensor z = backend.Allocate(2, 4);
  const Tensor wrong_shape = backend.Allocate(3, 4);
  backend.RmsNorm(x, gamma, kEps, y);
  backend.Matmul(y, w, z);
  // A rejected op is never launched, so it is not counted.
  EXPECT_THROW(backend.Softmax(x, wrong_shape), std::invalid_argument);
  backend.Gelu(z, z);
  const std::vector<std::pair<uint64_t, OpKind>> expected = {
      {1, OpKind::kRmsNorm}, {2, OpKind::kMatmul}, {3, OpKind::kElementwise}};
  EXPECT_EQ(seen, expected);
}

// The model's two compositions through the backend: fused ops give what
// their unfused sequences give.
TEST(CpuBackendTest, FusedOps_SameInputs_EqualUnfusedSequences) {
  CpuBackend backend;
  constexpr size_t kRows = 37;
  constexpr size_t kHidden = 48;
  constexpr size_t kWide = 4 * kHidden;
  const Tensor x = Upload(backend, kRows, kHidden, RandomValues(kRows * kHidden, 53));
  const Tensor gamma = Upload(backend, 1, kHidden, RandomValues(kHidden, 54, 0.5f, 1.5f));
  const Tensor w = Upload(backend, kHidden, kWide, RandomValues(kHidden * kWide, 55));
  const Tensor normed = backend.Allocate(kRows, kHidden);
  const Tensor unfused = backend.Allocate(kRows, kWide);
  const Tensor fused = backend.Allocate(kRows, kWide);

  backend.RmsNorm(x, gamma, kEps, normed);
  backend.Matmul(normed, w, unfused);
  backend.FusedRmsNormMatmul(x, gamma, kEps, w, fused);
  EXPECT_EQ(Download(backend, fused), Download(backend, unfused));

  backend.Gelu(unfused, unfused);
  backend.FusedMatmulGelu(normed, w, fused);
  EXPECT_EQ(Download(backend, fused), Download(backend, unfused));
}

TEST(CpuBackendTest, AddAndMul_ThroughBackend_ComputeElementwise) {
  CpuBackend backend;
  const Tensor a = Upload(backend, 1, 3, {1.0f, 2.0f, 3.0f});
  const Tensor b = Upload(backend, 1, 3, {4.0f, 5.0f, 6.0f});
  const Tensor out = backend.Allocate(1, 3);
  backend.Add(a, b, out);
  EXPECT_EQ(Download(backend, out), (std::vector<float>{5.0f, 7.0f, 9.0f}));
  backend.Mul(a, b, out);
  EXPECT_EQ(Download(backend, out), (std::vector<float>{4.0f, 10.0f, 18.0f}));
}

}  // namespace
}  // namespace optrace::kernels::cpu
