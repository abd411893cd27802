#include "torch/op_tag.h"

#include <charconv>
#include <cstring>

namespace optrace::torch_ops {
namespace {

// Appends to a fixed buffer; once full, the text ends in '~'.
class TagWriter {
 public:
  explicit TagWriter(char (&out)[kMaxTagBytes]) : out_(out) {}

  void Text(std::string_view text) {
    for (char c : text) Char(c);
  }
  void Char(char c) {
    if (size_ < kMaxTagBytes) {
      out_[size_++] = c;
    } else {
      out_[kMaxTagBytes - 1] = '~';
    }
  }
  void Number(int64_t value) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof(digits), value).ptr;
    Text(std::string_view(digits, static_cast<size_t>(end - digits)));
  }
  // "16x512"; a 0-d tensor (a scalar) writes "s".
  void Shape(std::span<const int64_t> sizes) {
    if (sizes.empty()) {
      Char('s');
      return;
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (i != 0) Char('x');
      Number(sizes[i]);
    }
  }
  size_t size() const { return size_; }

 private:
  char (&out_)[kMaxTagBytes];
  size_t size_ = 0;
};

// "aten::addmm" -> "addmm"; "AddmmBackward0" stays.
std::string_view ShortName(std::string_view name) {
  const size_t colons = name.rfind("::");
  return colons == std::string_view::npos ? name : name.substr(colons + 2);
}

// The matrix product families: M, K, N of out[M,N] = a[M,K] @ b[K,N], with
// batch dimensions in front. `a` and `b` are the shapes of the two factors.
bool MatmulDims(std::span<const int64_t> a, std::span<const int64_t> b, TagWriter& w) {
  if (a.size() < 2 || b.size() < 2) return false;
  for (size_t i = 0; i + 2 < a.size(); ++i) {
    w.Number(a[i]);
    w.Char('x');
  }
  w.Number(a[a.size() - 2]);
  w.Char('x');
  w.Number(a[a.size() - 1]);
  w.Char('x');
  w.Number(b[b.size() - 1]);
  return true;
}

// linear(input[.., K], weight[N, K]): M (all leading dims of input) x K x N.
bool LinearDims(std::span<const int64_t> input, std::span<const int64_t> weight, TagWriter& w) {
  if (input.empty() || weight.size() != 2) return false;
  int64_t m = 1;
  for (size_t i = 0; i + 1 < input.size(); ++i) m *= input[i];
  w.Number(m);
  w.Char('x');
  w.Number(input.back());
  w.Char('x');
  w.Number(weight[0]);
  return true;
}

// The family rule for `op`, written after "op_"; false when the rule does
// not apply to these shapes (the generic rule is used instead).
bool FamilyDims(std::string_view op, std::span<const TensorShape> shapes, TagWriter& w) {
  if ((op == "mm" || op == "bmm" || op == "matmul") && shapes.size() >= 2) {
    return MatmulDims(shapes[0].sizes, shapes[1].sizes, w);
  }
  if ((op == "addmm" || op == "baddbmm" || op == "addbmm") && shapes.size() >= 3) {
    return MatmulDims(shapes[1].sizes, shapes[2].sizes, w);
  }
  if (op == "linear" && shapes.size() >= 2) return LinearDims(shapes[0].sizes, shapes[1].sizes, w);
  if ((op.starts_with("conv") || op == "_convolution" || op == "mkldnn_convolution") &&
      shapes.size() >= 2) {
    w.Shape(shapes[0].sizes);
    w.Text("_k");
    w.Shape(shapes[1].sizes);
    return true;
  }
  return false;
}

}  // namespace

size_t OpTag(std::string_view name, std::span<const TensorShape> shapes, std::string_view dtype,
             char (&out)[kMaxTagBytes]) {
  if (shapes.empty()) return 0;
  TagWriter w(out);
  const std::string_view op = ShortName(name);
  w.Text(op);
  w.Char('_');
  if (!FamilyDims(op, shapes, w)) {
    // Generic: the shape of each tensor input, at most three.
    for (size_t i = 0; i < shapes.size() && i < kTaggedShapes; ++i) {
      if (i != 0) w.Char('_');
      w.Shape(shapes[i].sizes);
    }
  }
  if (!dtype.empty()) {
    w.Char('_');
    w.Text(dtype);
  }
  return w.size();
}

}  // namespace optrace::torch_ops
