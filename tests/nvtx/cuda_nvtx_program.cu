// A CUDA program annotated with NVTX and never linked with optrace: traced
// when NVTX_INJECTION64_PATH and CUDA_INJECTION64_PATH name the optrace
// injection libraries. cupti_device_test.cc runs it.
//
// Inside the range "train_step": a 1 MiB copy to the device, Scale<<<4, 128>>>,
// the copy back. Outside any range: Scale<<<2, 64>>>. Exits 3 when there
// is no usable CUDA device.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <vector>

__global__ void Scale(float* x, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

namespace {

bool Check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s (%d)\n", what, cudaGetErrorString(err), static_cast<int>(err));
  return false;
}

}  // namespace

int main() {
  int devices = 0;
  if (!Check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount") || devices == 0) return 3;
  constexpr int kFloats = 1 << 18;  // 1 MiB
  std::vector<float> host(kFloats, 1.0f);
  float* device = nullptr;
  if (!Check(cudaMalloc(&device, kFloats * sizeof(float)), "cudaMalloc")) return 1;

  nvtxRangePushA("train_step");
  bool ok = Check(cudaMemcpy(device, host.data(), kFloats * sizeof(float), cudaMemcpyHostToDevice),
                  "cudaMemcpy HtoD");
  Scale<<<4, 128>>>(device, 2.0f, kFloats);
  ok = ok && Check(cudaGetLastError(), "Scale<<<4, 128>>>");
  ok = ok && Check(cudaMemcpy(host.data(), device, kFloats * sizeof(float), cudaMemcpyDeviceToHost),
                   "cudaMemcpy DtoH");
  nvtxRangePop();

  Scale<<<2, 64>>>(device, 0.5f, kFloats);
  ok = ok && Check(cudaDeviceSynchronize(), "Scale<<<2, 64>>>");
  cudaFree(device);
  if (!ok) return 1;
  std::printf("done\n");
  return 0;
}
