// Turns CUDA runtime errors into hooke::Status values naming the call, file and line. Host-only;
// nothing here may exit, abort or throw.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "sim/status.h"

namespace hooke::cuda {

// "CUDA error cudaErrorMemoryAllocation (out of memory) in cudaMalloc(&p, n) at file.cpp:42"
inline Status cudaStatus(cudaError_t error, const char* call, const char* file, int line) {
  std::string where = file;
  size_t slash = where.find_last_of("/\\");
  if (slash != std::string::npos) where = where.substr(slash + 1);
  return Status::error(std::string("CUDA error ") + cudaGetErrorName(error) + " (" +
                       cudaGetErrorString(error) + ") in " + call + " at " + where + ":" +
                       std::to_string(line));
}

}  // namespace hooke::cuda

// Evaluates a CUDA runtime call; on failure returns its Status from the enclosing function.
#define HOOKE_CUDA_TRY(call)                                                          \
  do {                                                                                \
    cudaError_t hooke_cuda_error_ = (call);                                           \
    if (hooke_cuda_error_ != cudaSuccess) {                                           \
      return ::hooke::cuda::cudaStatus(hooke_cuda_error_, #call, __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)

// Propagates a failed Status from the enclosing function.
#define HOOKE_TRY(expr)                       \
  do {                                        \
    ::hooke::Status hooke_status_ = (expr);   \
    if (!hooke_status_) return hooke_status_; \
  } while (0)
