#include "kernels/cpu/cpu_backend.h"

#include <algorithm>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/fused_rms_norm_matmul.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/rms_norm.h"
#include "kernels/cpu/softmax.h"

namespace optrace::kernels::cpu {

namespace {

MatmulShape MatmulShapeOf(const OpShape& shape) {
  return {shape.dims[0], shape.dims[1], shape.dims[2]};
}

void RunKernel(const OpCall& call) {
  const OpShape& s = call.shape;
  switch (s.kind) {
    case OpKind::kElementwise:
      Elementwise(s.fn, call.x, call.y, call.out, s.dims[0]);
      return;
    case OpKind::kRmsNorm:
      RmsNorm(call.x, call.gamma, call.eps, call.out, s.dims[0], s.dims[1]);
      return;
    case OpKind::kSoftmax:
      Softmax(call.x, call.out, s.dims[0], s.dims[1]);
      return;
    case OpKind::kMatmul:
      Matmul(call.x, call.y, call.out, MatmulShapeOf(s));
      return;
    case OpKind::kFusedMatmulGelu:
      Matmul(call.x, call.y, call.out, MatmulShapeOf(s), MatmulEpilogue::kGelu);
      return;
    case OpKind::kFusedRmsNormMatmul:
      FusedRmsNormMatmul(call.x, call.gamma, call.eps, call.y, call.out, MatmulShapeOf(s));
      return;
  }
}

}  // namespace

Tensor CpuBackend::Allocate(size_t rows, size_t cols) {
  allocations_.push_back(std::make_unique<float[]>(rows * cols));
  return {allocations_.back().get(), rows, cols};
}

void CpuBackend::CopyIn(const float* host, float* dst, size_t count) {
  std::copy_n(host, count, dst);
}

void CpuBackend::CopyOut(const float* src, float* host, size_t count) {
  std::copy_n(src, count, host);
}

void CpuBackend::Execute(const OpCall& call, optrace::OpSite& site, uint32_t tag_id) {
  optrace::ScopedOp op(site, optrace::Placement::Cpu(0), tag_id);
  OnLaunched(call.shape.kind);
  RunKernel(call);
}

}  // namespace optrace::kernels::cpu
