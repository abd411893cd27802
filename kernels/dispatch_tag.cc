#include "kernels/dispatch_tag.h"

#include <string_view>

#include "optrace/optrace.hpp"

namespace optrace::kernels {

OpShape OpShape::Elementwise(ElementwiseFn fn, uint64_t count) {
  OpShape s;
  s.kind = OpKind::kElementwise;
  s.fn = fn;
  s.dims = {count, 0, 0};
  return s;
}

OpShape OpShape::RmsNorm(uint64_t rows, uint64_t cols) {
  OpShape s;
  s.kind = OpKind::kRmsNorm;
  s.dims = {rows, cols, 0};
  return s;
}

OpShape OpShape::Softmax(uint64_t rows, uint64_t cols) {
  OpShape s;
  s.kind = OpKind::kSoftmax;
  s.dims = {rows, cols, 0};
  return s;
}

OpShape OpShape::Matmul(uint64_t m, uint64_t n, uint64_t k) {
  OpShape s;
  s.kind = OpKind::kMatmul;
  s.dims = {m, n, k};
  return s;
}

OpShape OpShape::FusedRmsNormMatmul(uint64_t m, uint64_t n, uint64_t k) {
  OpShape s = Matmul(m, n, k);
  s.kind = OpKind::kFusedRmsNormMatmul;
  return s;
}

OpShape OpShape::FusedMatmulGelu(uint64_t m, uint64_t n, uint64_t k) {
  OpShape s = Matmul(m, n, k);
  s.kind = OpKind::kFusedMatmulGelu;
  return s;
}

const char* OpName(OpKind kind) {
  switch (kind) {
    case OpKind::kElementwise:
      return "elementwise";
    case OpKind::kRmsNorm:
      return "rms_norm";
    case OpKind::kSoftmax:
      return "softmax";
    case OpKind::kMatmul:
      return "matmul";
    case OpKind::kFusedRmsNormMatmul:
      return "fused_rms_norm_matmul";
    case OpKind::kFusedMatmulGelu:
      return "fused_matmul_gelu";
  }
  return "unknown_op";
}

const char* ElementwiseFnName(ElementwiseFn fn) {
  switch (fn) {
    case ElementwiseFn::kAdd:
      return "add";
    case ElementwiseFn::kMul:
      return "mul";
    case ElementwiseFn::kGelu:
      return "gelu";
  }
  return "unknown_fn";
}

const char* ElementTypeName(ElementType type) {
  switch (type) {
    case ElementType::kF32:
      return "f32";
  }
  return "unknown_type";
}

size_t DimCount(OpKind kind) {
  switch (kind) {
    case OpKind::kElementwise:
      return 1;
    case OpKind::kRmsNorm:
    case OpKind::kSoftmax:
      return 2;
    case OpKind::kMatmul:
    case OpKind::kFusedRmsNormMatmul:
    case OpKind::kFusedMatmulGelu:
      break;
  }
  return 3;
}

std::vector<OpShape> FusedParts(const OpShape& shape) {
  const auto [m, n, k] = shape.dims;
  switch (shape.kind) {
    case OpKind::kFusedRmsNormMatmul:
      return {OpShape::RmsNorm(m, k), OpShape::Matmul(m, n, k)};
    case OpKind::kFusedMatmulGelu:
      return {OpShape::Matmul(m, n, k), OpShape::Elementwise(ElementwiseFn::kGelu, m * n)};
    default:
      return {};
  }
}

namespace {

// The fused tag of `parts`, each tagged by `tag_of`.
template <typename TagOf>
std::string FusedTagOf(const std::vector<OpShape>& parts, TagOf tag_of) {
  std::vector<std::string> tags;
  for (const OpShape& part : parts) tags.push_back(tag_of(part));
  const std::vector<std::string_view> views(tags.begin(), tags.end());
  return optrace::FusedTag(views);
}

// "<name>_" or "<name>_<fn>_": what every tag of the shape's kind starts with.
std::string TagPrefix(const OpShape& shape) {
  std::string prefix = OpName(shape.kind);
  prefix.push_back('_');
  if (shape.kind == OpKind::kElementwise) {
    prefix.append(ElementwiseFnName(shape.fn)).push_back('_');
  }
  return prefix;
}

}  // namespace

std::string DispatchTag(const OpShape& shape) {
  if (const std::vector<OpShape> parts = FusedParts(shape); !parts.empty()) {
    return FusedTagOf(parts, [](const OpShape& part) { return DispatchTag(part); });
  }
  std::string tag = TagPrefix(shape);
  const size_t count = DimCount(shape.kind);
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) tag.push_back('x');
    tag.append(std::to_string(shape.dims[i]));
  }
  return tag.append("_").append(ElementTypeName(shape.type));
}

std::string GenericDispatchTag(const OpShape& shape) {
  if (const std::vector<OpShape> parts = FusedParts(shape); !parts.empty()) {
    return FusedTagOf(parts, [](const OpShape& part) { return GenericDispatchTag(part); });
  }
  return TagPrefix(shape).append("dyn_").append(ElementTypeName(shape.type));
}

}  // namespace optrace::kernels
