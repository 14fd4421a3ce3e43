// Timed runs of hooke's CUDA backend and of the textbook baseline, each from the scene's initial
// state so that every variant solves the same sequence of systems. Never asserts on time.
#include "bench/gpu/hooke_runs.h"

#include <chrono>
#include <string>
#include <vector>

#include "bench/gpu/textbook.h"

namespace hooke::bench {

RunSummary runHooke(const CudaOptions& options, const Scene& scene, const SolverSettings& settings,
                    float h, int warmup, int steps) {
  using Clock = std::chrono::steady_clock;
  RunSummary failed;
  std::string why_not;
  std::unique_ptr<Backend> backend = createCudaBackend(options, &why_not);
  if (!backend) {
    failed.error = why_not;
    return failed;
  }
  Status loaded = backend->load(scene.model, scene.state);
  if (!loaded) {
    failed.error = loaded.message();
    return failed;
  }
  backend->setSettings(settings);
  CgPath path = CgPath::kAuto;
  cudaCgPath(*backend, &path);
  const int lanes = cudaGatherLanes(*backend);
  const int grid_block = cudaGridBlock(*backend);
  std::vector<StepSample> samples;
  for (int k = 0; k < warmup + steps; ++k) {
    StepStats stats;
    const auto start = Clock::now();
    Status stepped = backend->step(h, {}, &stats);
    const double wall = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (!stepped) {
      failed.error = stepped.message();
      return failed;
    }
    if (k < warmup) continue;
    StepSample s;
    s.wall_ms = wall;
    s.force_ms = stats.force_ms;
    s.solve_ms = stats.solve_ms;
    s.commit_ms = stats.commit_ms;
    s.iterations = stats.cg_iterations;
    s.converged = stats.cg_converged;
    samples.push_back(s);
  }
  // after the steps: a staged launch that was refused went on unstaged (item 18)
  bool staged_entries = false, staged_rows = false;
  const bool staged = cudaStagedHalo(*backend, &staged_entries, &staged_rows);
  RunSummary out = summarise(samples);
  out.path = cgPathName(path);
  out.lanes = lanes;
  out.grid_block = grid_block;
  out.staged = staged;
  out.staged_entries = staged_entries;
  out.staged_rows = staged_rows;
  out.staged_springs = cudaStagedSprings(*backend);
  out.fill_on_chip = cudaFillOnChip(*backend);
  out.rows_in_registers = cudaRowsInRegisters(*backend);
  out.entry_columns = cudaEntryColumns(*backend);
  out.rows_by_direction = cudaRowsByDirection(*backend);
  out.halo_colours = cudaHaloColours(*backend);
  out.compact = cudaCompactEntries(*backend);
  out.stencil = cudaStencilRows(*backend);
  cudaLatticeTiles(*backend, out.tile);
  out.ahead = cudaStencilAhead(*backend);
  out.offset_blocks = cudaOffsetBlocks(*backend);
  out.streamed_blocks = cudaStreamedBlocks(*backend);
  out.batch = cudaGatherBatch(*backend);
  out.direction_held = cudaDirectionInUpdate(*backend);
  out.alpha_in_update = cudaAlphaInUpdate(*backend);
  CudaApplyKernel apply;
  if (cudaApplyKernel(*backend, &apply)) {
    out.apply_registers = apply.registers;
    out.apply_shared_bytes = apply.static_shared_bytes;
    out.apply_blocks_per_sm = apply.blocks_per_sm;
  }
  return out;
}

RunSummary runTextbook(TextbookCg& textbook, const Scene& scene, const SolverSettings& settings,
                       float h, int warmup, int steps) {
  RunSummary failed;
  Status reset = textbook.reset(scene.model, scene.state);
  if (!reset) {
    failed.error = reset.message();
    return failed;
  }
  std::vector<StepSample> samples;
  for (int k = 0; k < warmup + steps; ++k) {
    StepSample s;
    Status stepped = textbook.step(h, settings, &s);
    if (!stepped) {
      failed.error = stepped.message();
      return failed;
    }
    if (k >= warmup) samples.push_back(s);
  }
  RunSummary out = summarise(samples);
  out.path = "textbook";
  return out;
}

}  // namespace hooke::bench
