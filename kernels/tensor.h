// A tensor as the kernels see it: a borrowed, row-major f32 matrix.
#ifndef OPTRACE_KERNELS_TENSOR_H_
#define OPTRACE_KERNELS_TENSOR_H_

#include <cstddef>

namespace optrace::kernels {

// A view of `rows` x `cols` floats, row-major and contiguous, in the memory
// of the backend that allocated it (host memory for the CPU backend, device
// memory for the GPU backend). Borrowed: the backend owns the memory and
// keeps it valid until the backend is destroyed. A vector is a 1 x n tensor.
struct Tensor {
  float* data = nullptr;
  size_t rows = 0;
  size_t cols = 0;

  size_t size() const { return rows * cols; }
};

}  // namespace optrace::kernels

#endif  // OPTRACE_KERNELS_TENSOR_H_
