// Dispatch names: what an op is called in a trace. Every op has a readable
// name (`matmul`) and a summary tag built from what it computes: its kind,
// its main sizes and its element type (`matmul_128x256x512_f32`). The full
// scheme is in docs/dispatch-names.md.
#ifndef OPTRACE_KERNELS_DISPATCH_TAG_H_
#define OPTRACE_KERNELS_DISPATCH_TAG_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace optrace::kernels {

// The kinds of op the kernels implement; each has one readable name.
enum class OpKind : uint8_t {
  kElementwise,
  kRmsNorm,
  kSoftmax,
  kMatmul,
  kFusedRmsNormMatmul,
  kFusedMatmulGelu,
};
inline constexpr size_t kOpKindCount = 6;
static_assert(static_cast<size_t>(OpKind::kFusedMatmulGelu) + 1 == kOpKindCount,
              "kOpKindCount must count every OpKind");

// The function an elementwise op applies.
enum class ElementwiseFn : uint8_t { kAdd, kMul, kGelu };

// The element type of an op's tensors. Only f32 is implemented.
enum class ElementType : uint8_t { kF32 };

// What an op computes, as far as its tag is concerned. Build one with the
// named constructors: they fill `dims` as the kind expects and leave the
// unused fields at their defaults, so equal shapes compare equal.
struct OpShape {
  OpKind kind = OpKind::kElementwise;
  ElementwiseFn fn = ElementwiseFn::kAdd;  // meaningful for kElementwise only
  ElementType type = ElementType::kF32;
  // elementwise: {count}; rms_norm and softmax: {rows, cols};
  // matmul and both fused kinds: {M, N, K} for an MxK by KxN product.
  std::array<uint64_t, 3> dims{};

  static OpShape Elementwise(ElementwiseFn fn, uint64_t count);
  static OpShape RmsNorm(uint64_t rows, uint64_t cols);
  static OpShape Softmax(uint64_t rows, uint64_t cols);
  static OpShape Matmul(uint64_t m, uint64_t n, uint64_t k);
  static OpShape FusedRmsNormMatmul(uint64_t m, uint64_t n, uint64_t k);
  static OpShape FusedMatmulGelu(uint64_t m, uint64_t n, uint64_t k);

  bool operator==(const OpShape&) const = default;
};

// The readable op name of `kind` ("matmul", "fused_rms_norm_matmul", ...):
// a string literal, so it may back an optrace::OpSite.
const char* OpName(OpKind kind);

// "add", "mul" or "gelu".
const char* ElementwiseFnName(ElementwiseFn fn);

// "f32".
const char* ElementTypeName(ElementType type);

// How many sizes a tag of `kind` carries: 1, 2 or 3.
size_t DimCount(OpKind kind);

// The ops a fused shape replaces, in the order they compute: what the
// op-by-op run dispatches instead ({RmsNorm(M, K), Matmul(M, N, K)} for
// FusedRmsNormMatmul(M, N, K); {Matmul(M, N, K), Elementwise(kGelu, M * N)}
// for FusedMatmulGelu(M, N, K)). Empty for the other kinds.
std::vector<OpShape> FusedParts(const OpShape& shape);

// The summary tag of `shape`: name, elementwise function, sizes joined by
// 'x', element type, e.g. "matmul_128x256x512_f32" (M x N x K),
// "elementwise_gelu_4096_f32", "rms_norm_64x1024_f32". A fused kind's tag
// names its parts (optrace::FusedTag of their tags):
// "matmul_16x1024x256_f32+elementwise_gelu_16384_f32".
std::string DispatchTag(const OpShape& shape);

// The tag used for every shape of `shape`'s kind (and elementwise function)
// once that kind has too many distinct shapes: the sizes are replaced by
// "dyn", e.g. "matmul_dyn_f32", "elementwise_gelu_dyn_f32"; a fused kind's
// names its parts' generic tags ("matmul_dyn_f32+elementwise_gelu_dyn_f32").
std::string GenericDispatchTag(const OpShape& shape);

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_DISPATCH_TAG_H_
