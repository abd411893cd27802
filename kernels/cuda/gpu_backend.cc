#include "kernels/cuda/gpu_backend.h"

#include <stdexcept>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/gpu_backend_factory.h"

namespace optrace::kernels::cuda {

namespace {

// "cudaErrorInsufficientDriver (error 35): CUDA driver version is ..."
std::string CudaErrorText(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (error " + std::to_string(static_cast<int>(err)) +
         "): " + cudaGetErrorString(err);
}

void ThrowIfFailed(cudaError_t err, const std::string& what) {
  if (err != cudaSuccess)
    throw std::runtime_error("gpu backend: " + what + ": " + CudaErrorText(err));
}

MatmulShape MatmulShapeOf(const OpShape& shape) {
  return {shape.dims[0], shape.dims[1], shape.dims[2]};
}

cudaError_t LaunchKernels(const OpCall& call, cudaStream_t stream) {
  const OpShape& s = call.shape;
  switch (s.kind) {
    case OpKind::kElementwise:
      return LaunchElementwise(s.fn, call.x, call.y, call.out, s.dims[0], stream);
    case OpKind::kRmsNorm:
      return LaunchRmsNorm(call.x, call.gamma, call.eps, call.out, s.dims[0], s.dims[1], stream);
    case OpKind::kSoftmax:
      return LaunchSoftmax(call.x, call.out, s.dims[0], s.dims[1], stream);
    case OpKind::kMatmul:
      return LaunchMatmul(call.x, call.y, call.out, MatmulShapeOf(s), MatmulEpilogue::kNone,
                          stream);
    case OpKind::kFusedMatmulGelu:
      return LaunchMatmul(call.x, call.y, call.out, MatmulShapeOf(s), MatmulEpilogue::kGelu,
                          stream);
    case OpKind::kFusedRmsNormMatmul:
      return LaunchFusedRmsNormMatmul(call.x, call.gamma, call.eps, call.y, call.out,
                                      MatmulShapeOf(s), stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

std::unique_ptr<GpuBackend> GpuBackend::Create(int device, std::string* why_not) {
  int device_count = 0;
  cudaError_t err = cudaGetDeviceCount(&device_count);
  if (err != cudaSuccess) {
    *why_not = "no usable CUDA device: cudaGetDeviceCount failed with " + CudaErrorText(err);
    return nullptr;
  }
  if (device < 0 || device >= device_count) {
    *why_not = "CUDA device " + std::to_string(device) + " does not exist (" +
               std::to_string(device_count) + " device(s) present)";
    return nullptr;
  }
  err = cudaSetDevice(device);
  cudaStream_t stream = nullptr;
  if (err == cudaSuccess) err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (err != cudaSuccess) {
    *why_not = "CUDA device " + std::to_string(device) + " is not usable: " + CudaErrorText(err);
    return nullptr;
  }
  return std::unique_ptr<GpuBackend>(new GpuBackend(device, stream));
}

GpuBackend::GpuBackend(int device, cudaStream_t stream)
    : device_(device), stream_(stream), completions_(device) {}

GpuBackend::~GpuBackend() {
  // Errors are ignored here: a destructor cannot report them, and the
  // completion queue completes every traced op either way.
  cudaStreamSynchronize(stream_.get());
}

Tensor GpuBackend::Allocate(size_t rows, size_t cols) {
  void* memory = nullptr;
  const size_t bytes = rows * cols * sizeof(float);
  ThrowIfFailed(cudaMalloc(&memory, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
  allocations_.emplace_back(static_cast<float*>(memory));
  return {static_cast<float*>(memory), rows, cols};
}

void GpuBackend::Synchronize() {
  ThrowIfFailed(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize");
  completions_.WaitUntilIdle();
}

void GpuBackend::CopyIn(const float* host, float* dst, size_t count) {
  // Ordered after the ops already enqueued; synchronous so that `host` may
  // be reused as soon as Upload returns.
  ThrowIfFailed(
      cudaMemcpyAsync(dst, host, count * sizeof(float), cudaMemcpyHostToDevice, stream_.get()),
      "cudaMemcpyAsync to the device");
  ThrowIfFailed(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize after upload");
}

void GpuBackend::CopyOut(const float* src, float* host, size_t count) {
  ThrowIfFailed(
      cudaMemcpyAsync(host, src, count * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()),
      "cudaMemcpyAsync from the device");
  ThrowIfFailed(cudaStreamSynchronize(stream_.get()), "cudaStreamSynchronize after download");
}

void GpuBackend::Execute(const OpCall& call, optrace::OpSite& site, uint32_t tag_id) {
  const optrace::Placement placement =
      optrace::Placement::Gpu(static_cast<uint16_t>(device_), kStreamId);
  const uint64_t op_id = optrace::BeginOp(site, placement, tag_id);
  GpuOpEvents events;
  cudaError_t err = cudaSuccess;
  if (op_id != 0) {
    err = completions_.AcquireEvents(&events);
    if (err == cudaSuccess) err = cudaEventRecord(events.start, stream_.get());
  }
  if (err == cudaSuccess) err = LaunchKernels(call, stream_.get());
  if (err == cudaSuccess && op_id != 0) err = cudaEventRecord(events.stop, stream_.get());
  if (err != cudaSuccess) {
    // The op never ran: complete it now, so its span is not left open.
    optrace::EndOp(site, op_id, placement, tag_id);
    if (events.start != nullptr) completions_.ReleaseEvents(events);
    ThrowIfFailed(err, std::string("launch of ") + OpName(call.shape.kind));
  }
  OnLaunched(call.shape.kind);
  if (op_id != 0) completions_.Submit({&site, op_id, placement, tag_id, events});
}

}  // namespace optrace::kernels::cuda

namespace optrace::kernels {

std::unique_ptr<Backend> CreateGpuBackend(int device, std::string* why_not) {
  return cuda::GpuBackend::Create(device, why_not);
}

}  // namespace optrace::kernels
