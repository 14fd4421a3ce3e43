// Builds the run report shared by `hooke run` and the desktop app, so both write the same keys.
#include "app/run_report.h"

#include <algorithm>

namespace hooke {

RunSummary summarizeRun(std::string_view scene, Integrator integrator, std::string_view backend,
                        const Simulation& sim, const Energy& energy, double wall_seconds) {
  const TickScheduler& scheduler = sim.scheduler();
  RunSummary s;
  s.scene = std::string(scene);
  s.integrator = std::string(integratorName(integrator));
  s.backend = std::string(backend);
  s.dt = scheduler.dt();
  s.skip = scheduler.skip();
  s.h = scheduler.h();
  s.ticks = scheduler.ticks();
  s.solves = scheduler.solves();
  s.sim_time = scheduler.simTime();
  s.physics_time = static_cast<double>(scheduler.solves()) * scheduler.h();
  s.wall_seconds = wall_seconds;
  s.diverged_at = sim.divergedAt();
  s.energy = energy;
  s.totals = sim.totals();
  s.particles = sim.model().particleCount();
  s.springs = sim.model().springCount();
  return s;
}

void mergeTotals(const RunTotals& b, RunTotals* a) {
  a->solves += b.solves;
  a->cg_iterations_sum += b.cg_iterations_sum;
  a->cg_iterations_max = std::max(a->cg_iterations_max, b.cg_iterations_max);
  a->cg_residual_max = std::max(a->cg_residual_max, b.cg_residual_max);
  a->cg_unconverged += b.cg_unconverged;
  a->newton_iterations_sum += b.newton_iterations_sum;
  a->newton_iterations_max = std::max(a->newton_iterations_max, b.newton_iterations_max);
  a->max_strain = std::max(a->max_strain, b.max_strain);
  a->solver_ms += b.solver_ms;
}

nlohmann::json runReportJson(const RunSummary& s) {
  const RunTotals& totals = s.totals;
  nlohmann::json report;
  report["scene"] = s.scene;
  report["integrator"] = s.integrator;
  report["backend"] = s.backend;
  report["dt"] = s.dt;
  report["skip"] = s.skip;
  report["h"] = s.h;
  report["ticks"] = s.ticks;
  report["solves"] = s.solves;
  report["sim_time"] = s.sim_time;
  report["physics_time"] = s.physics_time;
  report["wall_seconds"] = s.wall_seconds;
  report["diverged"] = s.diverged_at.has_value();
  report["diverged_at"] = s.diverged_at ? nlohmann::json(*s.diverged_at) : nlohmann::json();
  report["energy"] = {{"kinetic", s.energy.kinetic},
                      {"potential", s.energy.potential()},
                      {"total", s.energy.total()}};
  report["max_strain"] = totals.max_strain;
  const double mean =
      totals.solves ? double(totals.cg_iterations_sum) / double(totals.solves) : 0.0;
  report["cg"] = {{"iterations_mean", mean},
                  {"iterations_max", totals.cg_iterations_max},
                  {"residual_max", totals.cg_residual_max},
                  {"unconverged_solves", totals.cg_unconverged}};
  report["newton"] = {
      {"iterations_mean",
       totals.solves ? double(totals.newton_iterations_sum) / double(totals.solves) : 0.0},
      {"iterations_max", totals.newton_iterations_max}};
  report["particles"] = s.particles;
  report["springs"] = s.springs;
  report["solver_ms_per_solve"] = totals.solves ? totals.solver_ms / double(totals.solves) : 0.0;
  return report;
}

}  // namespace hooke
