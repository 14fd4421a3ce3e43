// The contract between floors.cpp and floor_kernels.cu: a tiny CG-shaped chain of three dependent
// kernels, and the same three phases in one cooperative kernel. No device code here.
#pragma once

#include <cuda_runtime_api.h>

namespace hooke::bench {

// 32 values per vector, 4 scalars; all device pointers.
struct FloorChain {
  float* p;
  float* q;
  float* r;
  float* x;
  float* scalars;
};

// One iteration: q = 2 p and Σ p·q  ->  x += α p, r −= α q and Σ r·r  ->  p = r + β p
cudaError_t launchFloorIteration(cudaStream_t stream, const FloorChain& chain);

// `iterations` of the same three phases in one cooperative launch of `blocks` blocks, a grid
// barrier after each phase.
cudaError_t launchFloorCooperative(cudaStream_t stream, const FloorChain& chain, int blocks,
                                   int iterations);

}  // namespace hooke::bench
