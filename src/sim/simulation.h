// A running simulation: one backend driven by the tick scheduler, with per-solve metrics and
// divergence detection. The CLI and the app both drive the physics through this class.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/backend.h"
#include "sim/metrics.h"
#include "sim/model.h"
#include "sim/tick_scheduler.h"

namespace hooke {

// What one solve left behind.
struct SolveReport {
  int64_t solve = 0;  // 1-based solve index
  double time = 0.0;  // physical time of the new state, solve × h
  StepStats step;
  Energy energy;
  Strain strain;
};

// Running totals over all solves so far.
struct RunTotals {
  int64_t solves = 0;
  int64_t cg_iterations_sum = 0;
  int cg_iterations_max = 0;
  float cg_residual_max = 0.0f;
  int64_t cg_unconverged = 0;  // solves where CG hit its cap or broke down
  int64_t newton_iterations_sum = 0;
  int newton_iterations_max = 0;
  double max_strain = 0.0;
  double solver_ms = 0.0;  // force + solve + commit, summed
};

// Makes and loads a replacement backend for a backend whose step failed, from the model and the
// last good state (the state before the failed step). Returns an error when it cannot.
using BackendFallbackFactory =
    std::function<Status(const Model& model, const State& state, std::unique_ptr<Backend>* out)>;

// When and why a simulation left its first backend for the fallback.
struct BackendSwitch {
  int64_t at_solve = 0;  // the 1-based solve that failed and was re-run on the replacement
  double time = 0.0;     // s, physics time of the last good state (the failed solve's start)
  std::string from;      // the failed backend's name
  std::string to;        // the replacement's name
  std::string reason;    // the failed step's message
};

class Simulation {
 public:
  // Takes a loaded backend (see Backend::load) and the model it was loaded with.
  Simulation(std::unique_ptr<Backend> backend, const Model& model, const State& initial, double dt,
             int skip);

  // With a fallback, a failed step does not end the run: the factory makes a replacement backend
  // from the last good state, the failed step is re-run on it, and backendSwitch() records when
  // and why. Used once; a failure of the replacement ends the run as without a fallback.
  void setFallback(BackendFallbackFactory factory) { fallback_ = std::move(factory); }

  // Runs one tick. On a solve tick, steps the backend with external forces (one per particle, or
  // empty) and returns the solve's report. Once diverged, ticks do nothing and return nullopt.
  std::optional<SolveReport> tick(std::span<const glm::vec3> external = {});

  // The backend's error, when a step failed (no further ticks run).
  const std::optional<std::string>& error() const { return error_; }
  // The switch to the fallback backend, when a step failed and the fallback took over.
  const std::optional<BackendSwitch>& backendSwitch() const { return switch_; }
  // The state before the newest solve: once diverged, the last finite state (at physics time
  // divergedAt() − h); before any solve, the initial state.
  const State& previousState() const { return previous_; }
  bool diverged() const { return diverged_at_.has_value(); }
  std::optional<double> divergedAt() const { return diverged_at_; }
  const TickScheduler& scheduler() const { return scheduler_; }
  const RunTotals& totals() const { return totals_; }
  const State& state() const { return state_; }  // the last solved state
  float alpha() const { return alpha_; }         // interpolation factor of the last tick
  Backend& backend() { return *backend_; }
  const Model& model() const { return model_; }

 private:
  bool switchBackend(const std::string& reason);

  std::unique_ptr<Backend> backend_;
  BackendFallbackFactory fallback_;
  std::optional<BackendSwitch> switch_;
  Model model_;
  State state_;
  State previous_;  // the state before the newest solve
  TickScheduler scheduler_;
  DivergenceGuard guard_;
  RunTotals totals_;
  std::optional<double> diverged_at_;
  std::optional<std::string> error_;
  float alpha_ = 1.0f;
};

}  // namespace hooke
