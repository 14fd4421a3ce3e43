// The run report (`hooke run --report`, `hooke --report`): what a run did, gathered into one
// summary and written as JSON with the same keys wherever it comes from. No I/O here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "sim/backend.h"
#include "sim/metrics.h"
#include "sim/simulation.h"

namespace hooke {

struct RunSummary {
  std::string scene;
  std::string integrator;
  std::string backend;
  double dt = 0.0;                    // s, the tick length (the latest, when the app changed it)
  int skip = 0;                       // ticks between solves n
  double h = 0.0;                     // s, (n + 1) dt
  int64_t ticks = 0;                  // over the whole run
  int64_t solves = 0;                 // over the whole run
  double sim_time = 0.0;              // s, Σ ticks × dt
  double physics_time = 0.0;          // s, Σ solves × h: the newest solved state
  double wall_seconds = 0.0;          // s, wall-clock time of the run
  std::optional<double> diverged_at;  // s, physics time of the solve that diverged
  Energy energy;                      // of the final state
  RunTotals totals;
  size_t particles = 0;
  size_t springs = 0;
};

// The summary of one Simulation from its start (energy: of its final state, computed by the
// caller with the model the backend holds).
RunSummary summarizeRun(std::string_view scene, Integrator integrator, std::string_view backend,
                        const Simulation& sim, const Energy& energy, double wall_seconds);

// Adds b's totals to a's (sums add, maxima take the larger).
void mergeTotals(const RunTotals& b, RunTotals* a);

// The report object: scene, integrator, backend, dt, skip, h, ticks, solves, sim_time,
// physics_time, wall_seconds, diverged, diverged_at, energy {kinetic, potential, total},
// max_strain, cg {iterations_mean, iterations_max, residual_max, unconverged_solves}, particles,
// springs, solver_ms_per_solve (README "The command line").
nlohmann::json runReportJson(const RunSummary& summary);

}  // namespace hooke
