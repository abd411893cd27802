#include "kernels/backend.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace optrace::kernels {

namespace {

std::string ShapeText(size_t rows, size_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

[[noreturn]] void ThrowBadOperand(OpKind kind, const char* operand, const std::string& problem) {
  throw std::invalid_argument(std::string(OpName(kind)) + ": operand " + operand + " " + problem);
}

// REQUIRES-style checks of one operand; each throws std::invalid_argument.
void RequireNonEmpty(OpKind kind, const char* operand, const Tensor& t) {
  if (t.data == nullptr) ThrowBadOperand(kind, operand, "has no data");
  if (t.size() == 0) ThrowBadOperand(kind, operand, "is empty (" + ShapeText(t.rows, t.cols) + ")");
}

void RequireShape(OpKind kind, const char* operand, const Tensor& t, size_t rows, size_t cols) {
  if (t.data == nullptr) ThrowBadOperand(kind, operand, "has no data");
  if (t.rows != rows || t.cols != cols) {
    ThrowBadOperand(kind, operand,
                    "is " + ShapeText(t.rows, t.cols) + ", expected " + ShapeText(rows, cols));
  }
}

void RequireDistinct(OpKind kind, const char* output, const Tensor& out, const char* input,
                     const Tensor& in) {
  if (out.data == in.data) ThrowBadOperand(kind, output, std::string("must not alias ") + input);
}

// The checked call of add or mul.
OpCall BinaryElementwiseCall(ElementwiseFn fn, const Tensor& a, const Tensor& b,
                             const Tensor& out) {
  constexpr OpKind kKind = OpKind::kElementwise;
  RequireNonEmpty(kKind, "a", a);
  RequireShape(kKind, "b", b, a.rows, a.cols);
  RequireShape(kKind, "out", out, a.rows, a.cols);
  return {.shape = OpShape::Elementwise(fn, a.size()), .x = a.data, .y = b.data, .out = out.data};
}

// The checked call of matmul or fused_matmul_gelu (`kind`).
OpCall MatmulCall(OpKind kind, const Tensor& a, const Tensor& b, const Tensor& c) {
  RequireNonEmpty(kind, "a", a);
  RequireNonEmpty(kind, "b", b);
  RequireShape(kind, "b", b, a.cols, b.cols);
  RequireShape(kind, "c", c, a.rows, b.cols);
  RequireDistinct(kind, "c", c, "a", a);
  RequireDistinct(kind, "c", c, "b", b);
  const OpShape shape = kind == OpKind::kMatmul ? OpShape::Matmul(a.rows, b.cols, a.cols)
                                                : OpShape::FusedMatmulGelu(a.rows, b.cols, a.cols);
  return {.shape = shape, .x = a.data, .y = b.data, .out = c.data};
}

}  // namespace

Backend::Backend() : tags_(&optrace::Intern) {}

Backend::~Backend() = default;

void Backend::Add(const Tensor& a, const Tensor& b, const Tensor& out, std::source_location where) {
  Dispatch(BinaryElementwiseCall(ElementwiseFn::kAdd, a, b, out), where);
}

void Backend::Mul(const Tensor& a, const Tensor& b, const Tensor& out, std::source_location where) {
  Dispatch(BinaryElementwiseCall(ElementwiseFn::kMul, a, b, out), where);
}

void Backend::Gelu(const Tensor& x, const Tensor& out, std::source_location where) {
  constexpr OpKind kKind = OpKind::kElementwise;
  RequireNonEmpty(kKind, "x", x);
  RequireShape(kKind, "out", out, x.rows, x.cols);
  Dispatch(
      {.shape = OpShape::Elementwise(ElementwiseFn::kGelu, x.size()), .x = x.data, .out = out.data},
      where);
}

void Backend::RmsNorm(const Tensor& x, const Tensor& gamma, float eps, const Tensor& out,
                      std::source_location where) {
  constexpr OpKind kKind = OpKind::kRmsNorm;
  RequireNonEmpty(kKind, "x", x);
  RequireShape(kKind, "gamma", gamma, 1, x.cols);
  RequireShape(kKind, "out", out, x.rows, x.cols);
  Dispatch({.shape = OpShape::RmsNorm(x.rows, x.cols),
            .x = x.data,
            .gamma = gamma.data,
            .eps = eps,
            .out = out.data},
           where);
}

void Backend::Softmax(const Tensor& x, const Tensor& out, std::source_location where) {
  constexpr OpKind kKind = OpKind::kSoftmax;
  RequireNonEmpty(kKind, "x", x);
  RequireShape(kKind, "out", out, x.rows, x.cols);
  Dispatch({.shape = OpShape::Softmax(x.rows, x.cols), .x = x.data, .out = out.data}, where);
}

void Backend::Matmul(const Tensor& a, const Tensor& b, const Tensor& c,
                     std::source_location where) {
  Dispatch(MatmulCall(OpKind::kMatmul, a, b, c), where);
}

void Backend::FusedMatmulGelu(const Tensor& a, const Tensor& b, const Tensor& c,
                              std::source_location where) {
  Dispatch(MatmulCall(OpKind::kFusedMatmulGelu, a, b, c), where);
}

void Backend::FusedRmsNormMatmul(const Tensor& x, const Tensor& gamma, float eps, const Tensor& w,
                                 const Tensor& c, std::source_location where) {
  constexpr OpKind kKind = OpKind::kFusedRmsNormMatmul;
  RequireNonEmpty(kKind, "x", x);
  RequireNonEmpty(kKind, "w", w);
  RequireShape(kKind, "gamma", gamma, 1, x.cols);
  RequireShape(kKind, "w", w, x.cols, w.cols);
  RequireShape(kKind, "c", c, x.rows, w.cols);
  RequireDistinct(kKind, "c", c, "x", x);
  RequireDistinct(kKind, "c", c, "w", w);
  RequireDistinct(kKind, "c", c, "gamma", gamma);
  Dispatch({.shape = OpShape::FusedRmsNormMatmul(x.rows, w.cols, x.cols),
            .x = x.data,
            .y = w.data,
            .gamma = gamma.data,
            .eps = eps,
            .out = c.data},
           where);
}

void Backend::Upload(std::span<const float> host, const Tensor& dst) {
  if (host.size() != dst.size()) {
    throw std::invalid_argument("upload: " + std::to_string(host.size()) +
                                " host floats do not fit a " + ShapeText(dst.rows, dst.cols) +
                                " tensor");
  }
  CopyIn(host.data(), dst.data, host.size());
}

void Backend::Download(const Tensor& src, std::span<float> host) {
  if (host.size() != src.size()) {
    throw std::invalid_argument("download: a " + ShapeText(src.rows, src.cols) +
                                " tensor does not fit " + std::to_string(host.size()) +
                                " host floats");
  }
  CopyOut(src.data, host.data(), host.size());
}

void Backend::SetLaunchObserver(LaunchObserver observer) { launch_observer_ = std::move(observer); }

void Backend::OnLaunched(OpKind kind) {
  ++ops_launched_;
  if (launch_observer_) launch_observer_(ops_launched_, kind);
}

size_t Backend::SiteKeyHash::operator()(const SiteKey& key) const {
  return std::hash<const char*>()(key.file) ^ (size_t{key.line} << 8) ^
         static_cast<size_t>(key.kind);
}

optrace::OpSite& Backend::SiteAt(OpKind kind, const std::source_location& where) {
  std::unique_ptr<optrace::OpSite>& site = sites_[SiteKey{kind, where.file_name(), where.line()}];
  if (site == nullptr) site = std::make_unique<optrace::OpSite>(OpName(kind), nullptr, where);
  return *site;
}

void Backend::Dispatch(const OpCall& call, const std::source_location& where) {
  optrace::OpSite& site = SiteAt(call.shape.kind, where);
  // The tag is looked up only while ops are traced: an untraced op pays one
  // level check here and nothing for its tag.
  const bool traced = optrace::OpsEnabled();
  Execute(call, site, traced ? tags_.TagId(call.shape) : 0);
}

}  // namespace optrace::kernels
