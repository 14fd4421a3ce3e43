// Drives a backend tick by tick and measures every solve.
#include "sim/simulation.h"

#include <algorithm>

namespace hooke {

Simulation::Simulation(std::unique_ptr<Backend> backend, const Model& model, const State& initial,
                       double dt, int skip)
    : backend_(std::move(backend)),
      model_(model),
      state_(initial),
      previous_(initial),
      scheduler_(dt, skip),
      guard_(model, initial) {}

std::optional<SolveReport> Simulation::tick(std::span<const glm::vec3> external) {
  if (diverged() || error_) return std::nullopt;
  Tick t = scheduler_.next();
  alpha_ = static_cast<float>(t.alpha);
  if (!t.solve) return std::nullopt;

  SolveReport report;
  report.solve = scheduler_.solves();
  report.time = static_cast<double>(report.solve) * scheduler_.h();
  const float h = static_cast<float>(scheduler_.h());
  Status status = backend_->step(h, external, &report.step);
  if (!status && fallback_ && !switch_) {
    // the failed step again, on a replacement loaded with the last good state
    if (switchBackend(status.message())) {
      report.step = StepStats{};
      status = backend_->step(h, external, &report.step);
    }
  }
  if (!status) {
    if (!error_) error_ = status.message();
    return std::nullopt;
  }
  // the newest state becomes the previous one; readState reuses its buffers (no allocation)
  std::swap(previous_, state_);
  backend_->readState(&state_);
  report.energy = computeEnergy(model_, state_);
  report.strain = computeStrain(model_, state_.x);

  totals_.solves += 1;
  totals_.cg_iterations_sum += report.step.cg_iterations;
  totals_.cg_iterations_max = std::max(totals_.cg_iterations_max, report.step.cg_iterations);
  totals_.cg_residual_max = std::max(totals_.cg_residual_max, report.step.cg_residual);
  if (!report.step.cg_converged) totals_.cg_unconverged += 1;
  totals_.newton_iterations_sum += report.step.newton_iterations;
  totals_.newton_iterations_max =
      std::max(totals_.newton_iterations_max, report.step.newton_iterations);
  totals_.solver_ms += report.step.force_ms + report.step.solve_ms + report.step.commit_ms;

  if (guard_.check(state_, report.energy.kinetic)) {
    diverged_at_ = report.time;
  } else {
    totals_.max_strain = std::max(totals_.max_strain, report.strain.max);
  }
  return report;
}

bool Simulation::switchBackend(const std::string& reason) {
  std::unique_ptr<Backend> replacement;
  Status made = fallback_(model_, state_, &replacement);
  if (!made || !replacement) {
    error_ = reason + "; the fallback backend failed too: " +
             (made ? std::string("no backend") : made.message());
    return false;
  }
  BackendSwitch record;
  record.at_solve = scheduler_.solves();
  record.time = static_cast<double>(record.at_solve - 1) * scheduler_.h();
  record.from = std::string(backend_->name());
  record.to = std::string(replacement->name());
  record.reason = reason;
  switch_ = std::move(record);
  backend_ = std::move(replacement);
  return true;
}

}  // namespace hooke
