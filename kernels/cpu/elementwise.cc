#include "kernels/cpu/elementwise.h"

#include "kernels/gelu.h"

namespace optrace::kernels::cpu {

void Elementwise(ElementwiseFn fn, const float* a, const float* b, float* out, size_t count) {
  // One loop per function, so each compiles to a plain vectorisable loop.
  switch (fn) {
    case ElementwiseFn::kAdd:
      for (size_t i = 0; i < count; ++i) out[i] = a[i] + b[i];
      return;
    case ElementwiseFn::kMul:
      for (size_t i = 0; i < count; ++i) out[i] = a[i] * b[i];
      return;
    case ElementwiseFn::kGelu:
      for (size_t i = 0; i < count; ++i) out[i] = Gelu(a[i]);
      return;
  }
}

}  // namespace optrace::kernels::cpu
