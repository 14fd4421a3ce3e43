// Host side of the whole-CG paths (items 10 and 11): one launch runs every CG iteration of a step,
// in one block or a cooperative grid (kernels in whole_cg_kernels.cu). Owns no device memory and
// never decides anything from scalars it has not read back after a synchronisation.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/kernel_api.h"
#include "sim/pcg.h"
#include "sim/status.h"

namespace hooke::cuda {

struct WholeCgPlan {
  cudaStream_t stream = nullptr;
  bool float4_layout = true;
  bool one_block = true;
  int ablation = kAblateNone;
  WholeCgArgs args;                   // iteration_budget is set per launch
  CgScalars* host_scalars = nullptr;  // pinned host mirror
  Launch launch;                      // one block: grid 1
  int finish_threads = 0;             // launchCgStart's block
  int interval = 0;                   // iterations per launch between host reads; 0: all
};

class WholeCg {
 public:
  void configure(const WholeCgPlan& plan) { plan_ = plan; }

  // whether the grid still stages item 18's halos (a launch that did not fit stops it)
  bool staged() const { return plan_.args.stage_entries != nullptr; }
  bool stagedEntries() const { return staged() && plan_.args.stage_entry_slots > 0; }
  bool stagedRows() const { return stagedEntries() && plan_.args.stage_rows; }
  bool stagedSprings() const { return stagedEntries() && plan_.args.stage_spring_slots > 0; }
  bool scalarsAhead() const { return plan_.args.scalars_ahead; }  // item 44 (item 14's kernel)
  bool fillKeptRows() const { return stagedRows() && plan_.args.fill_kept_rows; }  // item 43
  bool fillInverses() const { return stagedRows() && plan_.args.fill_inverses; }
  bool rowsInRegisters() const { return stagedRows() && plan_.args.rows_in_registers; }  // 45
  bool entryColumns() const { return stagedRows() && plan_.args.entry_columns; }         // 46

  // Starts the solve of A Δv = b that the prepare kernels set up (start_count partial sums of b·b
  // and r·z). With interval 0 nothing waits: one launch does every iteration and the scalars are
  // copied to host_scalars on the stream; call result() once the stream has been synchronised.
  // With interval > 0 the host reads the scalars after every launch and relaunches until done.
  Status solve(int start_count, float tolerance, int max_iterations);

  // The outcome, from host_scalars; valid after the stream work of solve() has completed.
  void result(CgResult* out) const;

  // The launch shape in use (a cooperative grid may have been halved to fit).
  Launch launchShape() const { return plan_.launch; }

 private:
  cudaError_t launch(WholeCgArgs args);

  WholeCgPlan plan_;
};

}  // namespace hooke::cuda
