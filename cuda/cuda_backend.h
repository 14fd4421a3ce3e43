// The public face of the CUDA backend: its switches and a factory that says why it cannot run.
// Plain C++: no CUDA header or type may appear here (the app and tests include it).
#pragma once

#include <memory>
#include <string>

#include "sim/backend.h"

namespace hooke {

// Switches of the GPU path. Each one changes speed only, never the result beyond rounding; the
// backend keeps the values it was created with for its lifetime.
struct CudaOptions {
  int device = 0;             // CUDA device ordinal
  int check_interval = 8;     // K: CG iterations launched between two host reads of the residual
  bool float4_layout = true;  // particle vectors as float4 (16-byte loads) instead of packed float3
  bool prefer_l1 = true;      // L1-preferred shared-memory carve-out on every kernel
  bool l2_persist = true;     // L2 persisting access window over per-step constant data during CG
  bool cg_graph = false;      // replay each block of K CG iterations as one captured CUDA graph
  bool fused_finish = false;  // α and β by the last block of each reduction: 3 launches/iteration
  bool timing = true;         // per-phase times (StepStats *_ms) from CUDA events
};

// What the factory found about a device, for logs, the UI and benchmark records.
struct CudaDeviceInfo {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  size_t l2_bytes = 0;
  size_t global_bytes = 0;
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;  // the CUDA runtime this library was built with
};

// Describes the device; false (with a one-line reason) when it cannot be used.
bool queryCudaDevice(int device, CudaDeviceInfo* out, std::string* why_not);

// A CUDA backend, or nullptr with a one-line reason in *why_not (no device, driver too old, no
// kernel image for this GPU, out of memory...). Never aborts the process.
std::unique_ptr<Backend> createCudaBackend(const CudaOptions& options, std::string* why_not);

}  // namespace hooke
