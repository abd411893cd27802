// The tiled shared-memory matmul behind matmul, fused_matmul_gelu and
// fused_rms_norm_matmul: one kernel template, so the three ops share one
// inner loop and differ only in what they do on load and on store.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/launch_limits.cuh"
#include "kernels/gelu.h"

namespace optrace::kernels::cuda {

namespace {

// A block computes a kTile x kTile tile of C with kTile x kTile threads,
// walking K one kTile-wide slab of A and B at a time through shared memory.
constexpr int kTile = 16;

// C = epilogue(normalize(A) * B). With kNormalizeA, each row of A is scaled
// by its inverse RMS (computed by the block for its kTile rows before the
// main loop) and by gamma as it is loaded, so the normalised A is never
// written to memory.
template <bool kNormalizeA, MatmulEpilogue kEpilogue>
__global__ void TiledMatmulKernel(const float* a, const float* gamma, float eps, const float* b,
                                  float* c, int m, int n, int k) {
  __shared__ float a_tile[kTile][kTile];
  __shared__ float b_tile[kTile][kTile];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  const float* a_row = a + static_cast<size_t>(row) * k;

  float row_scale = 1.0f;
  if constexpr (kNormalizeA) {
    // The kTile threads of row `ty` reduce that row's sum of squares.
    __shared__ float partial[kTile][kTile];
    __shared__ float inverse_rms[kTile];
    float sum_squares = 0.0f;
    if (row < m) {
      for (int kk = tx; kk < k; kk += kTile) sum_squares += a_row[kk] * a_row[kk];
    }
    partial[ty][tx] = sum_squares;
    __syncthreads();
    if (tx == 0) {
      float total = 0.0f;
      for (int i = 0; i < kTile; ++i) total += partial[ty][i];
      inverse_rms[ty] = rsqrtf(total / static_cast<float>(k) + eps);
    }
    __syncthreads();
    row_scale = inverse_rms[ty];
  }

  float acc = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    const int a_col = k0 + tx;
    float a_value = 0.0f;
    if (row < m && a_col < k) {
      a_value = a_row[a_col];
      if constexpr (kNormalizeA) a_value = a_value * row_scale * gamma[a_col];
    }
    a_tile[ty][tx] = a_value;
    const int b_row = k0 + ty;
    b_tile[ty][tx] = (b_row < k && col < n) ? b[static_cast<size_t>(b_row) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) acc += a_tile[ty][i] * b_tile[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) {
    if constexpr (kEpilogue == MatmulEpilogue::kGelu) acc = Gelu(acc);
    c[static_cast<size_t>(row) * n + col] = acc;
  }
}

// Enqueues one instantiation over the whole of C.
template <bool kNormalizeA, MatmulEpilogue kEpilogue>
cudaError_t LaunchTiled(const float* a, const float* gamma, float eps, const float* b, float* c,
                        MatmulShape s, cudaStream_t stream) {
  const size_t grid_x = (s.n + kTile - 1) / kTile;
  const size_t grid_y = (s.m + kTile - 1) / kTile;
  if (!FitsGridX(s.m) || !FitsGridX(s.n) || !FitsGridX(s.k) || grid_y > kMaxGridY) {
    return cudaErrorInvalidValue;
  }
  if (grid_x == 0 || grid_y == 0) return cudaSuccess;
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y));
  const dim3 block(kTile, kTile);
  TiledMatmulKernel<kNormalizeA, kEpilogue><<<grid, block, 0, stream>>>(
      a, gamma, eps, b, c, static_cast<int>(s.m), static_cast<int>(s.n), static_cast<int>(s.k));
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchMatmul(const float* a, const float* b, float* c, MatmulShape shape,
                         MatmulEpilogue epilogue, cudaStream_t stream) {
  if (epilogue == MatmulEpilogue::kGelu) {
    return LaunchTiled<false, MatmulEpilogue::kGelu>(a, nullptr, 0.0f, b, c, shape, stream);
  }
  return LaunchTiled<false, MatmulEpilogue::kNone>(a, nullptr, 0.0f, b, c, shape, stream);
}

cudaError_t LaunchFusedRmsNormMatmul(const float* x, const float* gamma, float eps, const float* w,
                                     float* c, MatmulShape shape, cudaStream_t stream) {
  return LaunchTiled<true, MatmulEpilogue::kNone>(x, gamma, eps, w, c, shape, stream);
}

}  // namespace optrace::kernels::cuda
