// Launches the whole-CG kernels (whole_cg_kernels.cu) and reads their result back. The host reads
// the CG scalars once per solve (interval 0) or once per launch of `interval` iterations; it must
// never synchronise inside a launch.
#include "cuda/whole_cg.h"

#include <string>

#include "cuda/cuda_check.h"

namespace hooke::cuda {

// One launch. A cooperative grid larger than the device can hold at once (the occupancy query
// and the carve-out the driver picks can disagree) is halved until it fits; the smaller grid is
// kept, so every later solve runs the same reduction tree. Item 18's halos belong to the grid
// they were built for: a staged launch that is refused (a grid that does not fit, shared memory
// the device no longer grants) goes on unstaged at its size, and stays so.
cudaError_t WholeCg::launch(WholeCgArgs args) {
  args.stage_start = plan_.args.stage_start;  // the plan says whether it is still staged
  args.stage_halo = plan_.args.stage_halo;
  args.stage_entries = plan_.args.stage_entries;
  args.stage_slots = plan_.args.stage_slots;
  args.stage_entry_slots = plan_.args.stage_entry_slots;
  args.stage_rows = plan_.args.stage_rows;
  cudaError_t e = launchWholeCg(plan_.launch, plan_.stream, plan_.float4_layout, plan_.one_block,
                                plan_.ablation, args);
  if (e != cudaSuccess && args.stage_entries != nullptr) {
    cudaGetLastError();
    for (WholeCgArgs* a : {&plan_.args, &args}) {
      a->stage_start = nullptr;
      a->stage_halo = nullptr;
      a->stage_entries = nullptr;
      a->stage_slots = 0;
      a->stage_entry_slots = 0;
      a->stage_rows = false;
      a->rows_in_registers = false;
      a->entry_columns = false;
    }
    e = launchWholeCg(plan_.launch, plan_.stream, plan_.float4_layout, plan_.one_block,
                      plan_.ablation, args);
  }
  while (e == cudaErrorCooperativeLaunchTooLarge && !plan_.one_block && plan_.launch.grid > 1) {
    cudaGetLastError();
    plan_.launch.grid = (plan_.launch.grid + 1) / 2;
    e = launchWholeCg(plan_.launch, plan_.stream, plan_.float4_layout, plan_.one_block,
                      plan_.ablation, args);
  }
  return e;
}

Status WholeCg::solve(int start_count, float tolerance, int max_iterations) {
  const WholeCgPlan& c = plan_;
  HOOKE_CUDA_TRY(launchCgStart(c.finish_threads, c.stream, c.args.reduction, start_count,
                               c.args.scalars, tolerance, max_iterations, c.args.cg.dv,
                               c.args.model.particles, c.float4_layout ? 16 : 12));
  WholeCgArgs args = c.args;
  // item 44 stops on r·r <= target²: a negative tolerance (whose target no |r| reaches, as on the
  // CPU) takes the square root's comparison instead
  args.scalars_ahead = c.args.scalars_ahead && tolerance >= 0.0f;
  if (c.interval <= 0) {
    args.iteration_budget = 0;
    HOOKE_CUDA_TRY(launch(args));
    HOOKE_CUDA_TRY(cudaMemcpyAsync(c.host_scalars, c.args.scalars, sizeof(CgScalars),
                                   cudaMemcpyDeviceToHost, c.stream));
    return Status::ok();
  }
  // item 1 partly undone (the ablation): the host looks every `interval` iterations. The bound is
  // a guard against a logic error, never reached.
  args.iteration_budget = c.interval;
  const long long guard = static_cast<long long>(max_iterations) + 2LL * c.interval;
  for (long long launched = 0;; launched += c.interval) {
    HOOKE_CUDA_TRY(launch(args));
    HOOKE_CUDA_TRY(cudaMemcpyAsync(c.host_scalars, c.args.scalars, sizeof(CgScalars),
                                   cudaMemcpyDeviceToHost, c.stream));
    HOOKE_CUDA_TRY(cudaStreamSynchronize(c.stream));
    if (c.host_scalars->done) break;
    if (launched > guard) {
      return Status::error("whole-CG solve did not stop after " + std::to_string(launched) +
                           " iterations (cap " + std::to_string(max_iterations) + ")");
    }
  }
  return Status::ok();
}

void WholeCg::result(CgResult* out) const {
  const CgScalars& s = *plan_.host_scalars;
  out->iterations = s.iterations;
  out->residual = s.b_norm > 0.0 ? static_cast<float>(s.r_norm / s.b_norm) : 0.0f;
  out->converged = s.converged != 0;
}

}  // namespace hooke::cuda
