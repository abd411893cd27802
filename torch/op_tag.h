// The IREE-style tag of a PyTorch op: what it computes, from the shapes and
// dtype of its tensor inputs (addmm_16x512x2048_f32). The rules per op
// family are in docs/pytorch.md. Knows nothing of libtorch: the tracer
// hands it plain shapes, so that it is cheap to build and to test.
#ifndef OPTRACE_TORCH_OP_TAG_H_
#define OPTRACE_TORCH_OP_TAG_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace optrace::torch_ops {

// The shape of one tensor input, in the order of the op's arguments.
struct TensorShape {
  std::span<const int64_t> sizes;
};

// The longest tag OpTag writes; longer ones are cut with a trailing '~'.
inline constexpr size_t kMaxTagBytes = 160;

// OpTag reads the shapes of the first kTaggedShapes tensor inputs only:
// a tag is a function of the name, the dtype and those shapes.
inline constexpr size_t kTaggedShapes = 3;

// Writes the tag of op `name` ("aten::addmm", "AddmmBackward0") whose tensor
// inputs have `shapes` and whose first tensor has dtype `dtype` ("f32"; ""
// when unknown) into `out` and returns its length (0: no tensor inputs, no
// tag). Never writes more than kMaxTagBytes bytes. Thread-safe.
size_t OpTag(std::string_view name, std::span<const TensorShape> shapes, std::string_view dtype,
             char (&out)[kMaxTagBytes]);

}  // namespace optrace::torch_ops

#endif  // OPTRACE_TORCH_OP_TAG_H_
