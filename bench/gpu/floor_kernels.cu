// Kernels of the latency floor: the three dependent phases of one CG iteration (apply + dot,
// update + dot, direction) on 32 values, so that only launch and dependency latency remain.
// Must stay trivially small: anything more would measure work, not latency.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "bench/gpu/floor_kernels.h"

namespace hooke::bench {

namespace {

namespace cg = cooperative_groups;

__device__ float warpTotal(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// phase 1: q = 2 p, s0 = p·q
__device__ void phaseApply(const FloorChain& c) {
  const int i = threadIdx.x;
  const float q = 2.0f * c.p[i];
  c.q[i] = q;
  const float s = warpTotal(c.p[i] * q);
  if (i == 0) c.scalars[0] = s;
}

// phase 2: α = s1 / s0 (bounded), x += α p, r −= α q, s2 = r·r
__device__ void phaseUpdate(const FloorChain& c) {
  const int i = threadIdx.x;
  const float alpha = 1e-3f * c.scalars[0] / (1.0f + c.scalars[0]);
  c.x[i] += alpha * c.p[i];
  const float r = c.r[i] - alpha * c.q[i];
  c.r[i] = r;
  const float s = warpTotal(r * r);
  if (i == 0) c.scalars[1] = s;
}

// phase 3: β from s2 (bounded), p = r + β p
__device__ void phaseDirection(const FloorChain& c) {
  const int i = threadIdx.x;
  const float beta = 0.5f * c.scalars[1] / (1.0f + c.scalars[1]);
  c.p[i] = c.r[i] + beta * c.p[i];
}

__global__ void applyKernel(FloorChain c) {
  phaseApply(c);
}
__global__ void updateKernel(FloorChain c) {
  phaseUpdate(c);
}
__global__ void directionKernel(FloorChain c) {
  phaseDirection(c);
}

__global__ void cooperativeKernel(FloorChain c, int iterations) {
  cg::grid_group grid = cg::this_grid();
  for (int k = 0; k < iterations; ++k) {
    if (blockIdx.x == 0) phaseApply(c);
    grid.sync();
    if (blockIdx.x == 0) phaseUpdate(c);
    grid.sync();
    if (blockIdx.x == 0) phaseDirection(c);
    grid.sync();
  }
}

}  // namespace

cudaError_t launchFloorIteration(cudaStream_t stream, const FloorChain& chain) {
  applyKernel<<<1, 32, 0, stream>>>(chain);
  updateKernel<<<1, 32, 0, stream>>>(chain);
  directionKernel<<<1, 32, 0, stream>>>(chain);
  return cudaGetLastError();
}

cudaError_t launchFloorCooperative(cudaStream_t stream, const FloorChain& chain, int blocks,
                                   int iterations) {
  FloorChain copy = chain;
  int count = iterations;
  void* args[] = {&copy, &count};
  cudaError_t e = cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(cooperativeKernel),
                                              dim3(blocks), dim3(32), args, 0, stream);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

}  // namespace hooke::bench
