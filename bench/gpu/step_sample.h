// What one timed step of any benchmarked solver reports, and the medians over a run of steps.
// Plain C++; no CUDA types. Must not time anything itself.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace hooke::bench {

struct StepSample {
  double wall_ms = 0.0;    // host clock around the whole step, which ends synchronised
  double force_ms = 0.0;   // device events: forces, Jacobians, right-hand side (or assembly)
  double solve_ms = 0.0;   // device events: the CG solve
  double commit_ms = 0.0;  // device events: x1, v1
  int iterations = 0;
  bool converged = true;
};

struct RunSummary {
  bool ok = false;
  std::string error;
  std::string path;     // the CG path that ran (hooke) or "textbook"
  int lanes = 0;        // hooke: threads per particle in q = A p (item 13); 0 for the textbook
  int grid_block = 0;   // hooke on the grid path: threads per block; else 0
  bool staged = false;  // hooke: item 18's halos in use
  bool staged_entries = false;     // and its blocks' entries staged too
  bool staged_rows = false;        // and its own rows through the halo (item 27)
  bool staged_springs = false;     // the staged entries as each block's springs once (item 31)
  int fill_on_chip = 0;            // item 43: what item 27's fill holds in shared memory (bits)
  bool rows_in_registers = false;  // item 45: item 27's rows on one lane keep them in registers
  bool entry_columns = false;      // item 46: item 27's walk of the words by column
  bool rows_by_direction = false;  // item 47: the CSR rows sorted by direction
  bool halo_colours = false;       // item 51: the halos' outside slots placed by bank
  bool compact = false;            // the launched q = A p read item 20's 4-byte entries
  bool stencil = false;            // the launched q = A p read item 22's offset-stencil rows
  int tile[3] = {0, 0, 0};         // item 23's lattice tile of those rows (zeros: none)
  bool ahead = false;              // item 24: their words loaded a round ahead
  bool offset_blocks = false;      // item 37: their springs from the offset blocks
  bool streamed_blocks = false;    // item 39: the offset blocks streamed through L2
  bool alpha_in_update = false;    // item 38: α formed by the joined update's blocks
  int batch = 0;                   // item 16: entries per batch of gather loads (1: none)
  int direction_held = 0;          // item 26: particles per thread of the joined update (0: off)
  // the launched q = A p's kernel: registers per thread, static shared memory per block, resident
  // blocks per multiprocessor (zeros off the launched path)
  int apply_registers = 0, apply_shared_bytes = 0, apply_blocks_per_sm = 0;
  int steps = 0;
  double step_ms = 0.0, force_ms = 0.0, cg_ms = 0.0, commit_ms = 0.0;  // medians
  double step_ms_p10 = 0.0, step_ms_p90 = 0.0;
  double iterations = 0.0;       // median per step
  double iterations_mean = 0.0;  // mean per step
  double iteration_us = 0.0;     // median over steps of CG time / iterations
  double converged_fraction = 0.0;
};

inline double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double at = q * double(values.size() - 1);
  const size_t lo = size_t(at), hi = std::min(values.size() - 1, lo + 1);
  return values[lo] + (at - double(lo)) * (values[hi] - values[lo]);
}

inline RunSummary summarise(const std::vector<StepSample>& samples) {
  RunSummary out;
  out.ok = !samples.empty();
  out.steps = int(samples.size());
  std::vector<double> wall, force, solve, commit, its, per_it;
  double its_sum = 0.0, converged = 0.0;
  for (const StepSample& s : samples) {
    wall.push_back(s.wall_ms);
    force.push_back(s.force_ms);
    solve.push_back(s.solve_ms);
    commit.push_back(s.commit_ms);
    its.push_back(double(s.iterations));
    its_sum += s.iterations;
    converged += s.converged ? 1.0 : 0.0;
    if (s.iterations > 0) per_it.push_back(1000.0 * s.solve_ms / s.iterations);
  }
  out.step_ms = quantile(wall, 0.5);
  out.step_ms_p10 = quantile(wall, 0.1);
  out.step_ms_p90 = quantile(wall, 0.9);
  out.force_ms = quantile(force, 0.5);
  out.cg_ms = quantile(solve, 0.5);
  out.commit_ms = quantile(commit, 0.5);
  out.iterations = quantile(its, 0.5);
  out.iterations_mean = samples.empty() ? 0.0 : its_sum / double(samples.size());
  out.iteration_us = quantile(per_it, 0.5);
  out.converged_fraction = samples.empty() ? 0.0 : converged / double(samples.size());
  return out;
}

}  // namespace hooke::bench
