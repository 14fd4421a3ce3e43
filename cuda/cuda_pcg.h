// Host side of the GPU PCG: launches blocks of K iterations (plain launches or one replayed CUDA
// graph), reads the device-held CG scalars once per block, and reports like sim/pcg. It owns no
// device memory (the backend does) and never synchronises inside a block.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/kernel_api.h"
#include "sim/pcg.h"
#include "sim/status.h"

namespace hooke::cuda {

// Everything a solve needs; pointers stay valid until the next configure().
struct CgPlan {
  cudaStream_t stream = nullptr;
  bool float4_layout = true;
  DeviceModel model;
  DeviceSystem system;
  CgVectors vectors;
  Reduction reduction;
  CgScalars* scalars = nullptr;       // device
  CgScalars* host_scalars = nullptr;  // pinned host mirror
  Launch apply, update, direction;
  int finish_threads = 0;
  int check_interval = 8;  // K
  bool use_graph = false;
  bool fused_finish = false;  // 3 launches per iteration instead of 5
  int lanes = 1;              // threads per particle in q = A p
  int batch = 1;              // item 16: entries whose loads each lane issues together (1, 3, 4)
  // items 20 and 22: q = A p reads model.compact or model.stencil (batch 3 or 4 only)
  ApplyEntries entries = ApplyEntries::kPairs;
  int apply_mode = 0;  // with item 22's rows: kApplyTiled (item 23) | kApplyAhead (item 24)
  bool dv_in_direction = false;  // item 25: Δv += α p in the direction kernel, not the update
  // item 26: particles per thread of the joined update and direction (launchUpdateDirection on
  // `update`'s shape, in place of the update and direction kernels); 0: the two kernels
  int direction_held = 0;
  // item 38, with item 26: q = A p runs unfused and the joined kernel forms α from its partials
  bool alpha_in_update = false;
  bool dependent = false;  // item 21: each iteration kernel launched to overlap the one before

  // item 26: the update and the direction as one cooperative launch
  bool joined() const { return fused_finish && direction_held > 0; }
  // item 38: α formed by the joined kernel's blocks, not by q = A p's last block
  bool alphaJoined() const { return joined() && alpha_in_update; }
  // q = A p's last block forms α (the fused q = A p variant)
  bool applyFused() const { return fused_finish && !alphaJoined(); }
};

class CudaPcg {
 public:
  CudaPcg() = default;
  CudaPcg(const CudaPcg&) = delete;
  CudaPcg& operator=(const CudaPcg&) = delete;
  ~CudaPcg();

  // Takes a new plan; drops any captured graph (its pointers may be stale).
  void configure(const CgPlan& plan);

  // Solves A Δv = b after the prepare kernels have written b, P⁻¹, r = b, z, p = z, Δv = 0 and
  // start_count partial sums of b·b and r·z: to |r| <= tolerance |b| or max_iterations.
  Status solve(int start_count, float tolerance, int max_iterations, CgResult* out);

 private:
  Status launchIteration();
  Status launchBlock();
  Status captureBlock();
  void dropGraph();

  CgPlan plan_;
  cudaGraphExec_t graph_ = nullptr;
};

}  // namespace hooke::cuda
