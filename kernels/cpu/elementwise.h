// CPU elementwise kernels: add, mul, GELU.
#ifndef OPTRACE_KERNELS_CPU_ELEMENTWISE_H_
#define OPTRACE_KERNELS_CPU_ELEMENTWISE_H_

#include <cstddef>

#include "kernels/dispatch_tag.h"

namespace optrace::kernels::cpu {

// out[i] = a[i] + b[i], a[i] * b[i] or Gelu(a[i]) for every i < count.
// REQUIRES: `a`, `out` and, for add and mul, `b` hold `count` floats; `b`
// is ignored (may be null) for GELU. `out` may alias `a` or `b`.
void Elementwise(ElementwiseFn fn, const float* a, const float* b, float* out, size_t count);

}  // namespace optrace::kernels::cpu

#endif  // OPTRACE_KERNELS_CPU_ELEMENTWISE_H_
