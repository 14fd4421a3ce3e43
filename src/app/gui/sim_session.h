// The app's running simulation, apart from any window: the scene, its backend, the Simulation the
// frame loop drives (DESIGN.md "One frame"), the user's live changes (applied at the next solve
// without a reset), the mouse's pull, and the measurements the panels show. No GL, no ImGui, no
// GLFW, so the frame-loop logic is tested headless.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/backend_factory.h"
#include "app/cli_options.h"
#include "app/gui/drag_force.h"
#include "app/gui/material_editor.h"
#include "app/gui/solve_history.h"
#include "app/run_report.h"
#include "sim/backend.h"
#include "sim/damped_oscillator.h"
#include "sim/model.h"
#include "sim/simulation.h"
#include "sim/tick_scheduler.h"

namespace hooke {

// What the Time panel sets.
struct TimeSettings {
  double dt = 0.01;         // s, one tick
  bool auto_skip = true;    // n from autoSkip(dt)
  int manual_skip = 2;      // n when not auto, 0..kMaxManualSkip
  double time_scale = 1.0;  // simulated seconds per wall second wanted
  static constexpr int kMaxManualSkip = 10;

  int skip() const { return auto_skip ? autoSkip(dt) : manual_skip; }
  bool operator==(const TimeSettings&) const = default;
};

// How the frame loop bounds one frame's work: at most kMaxFrameSimSeconds × time scale of ticks,
// and no further solves once kSolveBudgetMs of solving is spent (the rest is dropped, and the
// real-time factor shows it).
inline constexpr double kMaxFrameSimSeconds = 0.25;
inline constexpr double kSolveBudgetMs = 40.0;

// What one frame's advance did.
struct FrameAdvance {
  int ticks = 0;
  int solves = 0;
  double sim_seconds = 0.0;  // simulated time advanced
  double solver_ms = 0.0;    // wall time inside the solves
  bool dropped = false;      // ticks were due but dropped (tick cap or solve budget)
};

// The closed-form curve spring1d's height is compared with, from the last release onwards.
struct OscillatorReference {
  double t0 = 0.0;      // s, physics time it starts from
  double y_rest = 0.0;  // m, the equilibrium height under gravity
  DampedOscillator oscillator{1.0, 1.0, 0.0, 0.0, 0.0};

  double height(double t) const { return y_rest + oscillator.displacement(t - t0); }
};

// How the session makes a backend by name and loads it (loadBackend by default; tests give one
// that injects faults).
using BackendLoader =
    std::function<Status(const std::string& name, const Model& model, const State& state,
                         Integrator integrator, BackendChoice* out)>;

class SimSession {
 public:
  explicit SimSession(BackendLoader loader = {});
  ~SimSession();
  SimSession(const SimSession&) = delete;
  SimSession& operator=(const SimSession&) = delete;

  // [SECTION] loading
  // Builds the scene and loads it into a new backend ("auto", "cpu" or "cuda"); on failure the
  // session keeps what it had. `material`, when given, replaces the scene's own material.
  Status load(const SceneOptions& scene, const std::string& backend, const SolverSettings& solver,
              const TimeSettings& time, const std::optional<MaterialSettings>& material = {});
  // Rebuilds the same scene from its initial state, keeping every setting (but the pause a
  // divergence made).
  Status reset();
  bool loaded() const { return sim_ != nullptr; }
  // Why "auto" did not pick CUDA at the last load; empty when it did, or was not asked to.
  const std::string& backendFallbackReason() const { return fallback_reason_; }
  // A device backend whose step fails mid-run hands the last good state to the CPU backend, the
  // failed solve is re-run there, and the app goes on: when and why (solve and time counted
  // from the last load or reset), and a notice() says so once.
  const std::optional<BackendSwitch>& backendSwitch() const { return switch_; }

  // [SECTION] live changes
  void setSolver(const SolverSettings& solver);        // from the next solve
  void setTime(const TimeSettings& time);              // dt and skip at the next solve boundary
  void setMaterial(const MaterialSettings& material);  // at the next solve boundary
  // Creates the backend now (failing with the reason) and moves the state onto it at the next
  // solve boundary.
  Status setBackend(const std::string& name);
  void setPaused(bool paused) { paused_ = paused; }
  // Runs one new solve on the next advance, paused or not, and ends where it is shown whole
  // (alpha = 1): n + 1 ticks from a solve boundary, more when paused between two.
  void requestStep() { step_requested_ = true; }
  void setPull(const Pull& pull, const PullSettings& settings);
  // After a divergence (which pauses the session): goes on from the last finite state, the one
  // solved just before the diverging solve, still paused, so a smaller dt or a softer material
  // can be set first. Fails when nothing diverged.
  Status revertToLastFinite();

  // [SECTION] the frame
  // Feeds wall seconds (× time scale) to the tick clock and runs the ticks due, within the
  // frame's bounds; the pull acts at each solve tick.
  FrameAdvance advance(double wall_seconds);
  // The visual state now: lerp(previous, current, alpha) per particle (the CPU upload path).
  void writeVisual(std::span<glm::vec3> out) const;

  // [SECTION] reading
  const Scene& scene() const { return scene_; }  // as built (initial state, topology)
  const SceneOptions& sceneOptions() const { return scene_options_; }
  const Model& model() const { return model_; }         // with the current material
  const State& state() const { return sim_->state(); }  // the newest solved state
  Backend& backend() { return *backend_; }              // the real backend (interop writers)
  const Backend& backend() const { return *backend_; }
  const SolverSettings& solver() const { return solver_; }
  const TimeSettings& time() const { return time_; }
  int skip() const { return sim_->scheduler().skip(); }
  double h() const { return sim_->scheduler().h(); }
  const MaterialSettings& material() const { return material_; }
  const MaterialSettings& referenceMaterial() const { return reference_; }
  bool paused() const { return paused_; }
  float alpha() const { return sim_->alpha(); }
  double simTime() const;      // s, ticks × dt since the start
  double physicsTime() const;  // s, the newest solved state's time
  int64_t solves() const;
  std::optional<double> divergedAt() const;  // s, physics time
  // Solves whose CG hit its iteration cap (or broke down) since the last load or reset.
  int64_t cgUnconverged() const {
    return past_.totals.cg_unconverged + sim_->totals().cg_unconverged;
  }
  const std::optional<std::string>& backendError() const { return sim_->error(); }
  const std::optional<SolveReport>& lastSolve() const { return last_solve_; }
  const SolveHistory& history() const { return history_; }
  // The closed-form reference for spring1d since the last release; nullopt while pulled, or
  // for scenes that are not a single mass on a vertical spring.
  const std::optional<OscillatorReference>& oscillator() const { return oscillator_; }
  // The particle the scene says to drag (spring1d's mass), -1 when none.
  int64_t drivenParticle() const { return scene_.driven_particle; }
  // True for a single mass hanging from one pinned anchor (spring1d): its pull acts vertically.
  bool isOscillator() const { return is_oscillator_; }

  // A problem the UI should show once (a backend switch that failed); empty when none.
  const std::string& notice() const { return notice_; }
  void clearNotice() { notice_.clear(); }

  // What the mouse pull's defaults depend on (defaultPull): the mass of a typical patch (around
  // the driven particle, else the free particle nearest the free particles' centre), the base
  // stiffness, whether the body is a flat sheet at rest, and h.
  PullScale pullScale() const;
  // The radius of the patch a pull spreads over: a quarter of the rest shape's longest side.
  float patchRadius() const { return patch_radius_; }
  // The patch of the pull in progress (empty when nothing is held).
  const PullPatch& pullPatchNow() const { return patch_; }

  // The run report's summary over the whole run since the last load or reset.
  RunSummary summary(double wall_seconds) const;

 private:
  bool atBoundary() const;  // the next tick starts a solve interval
  void applyPending();      // dt/skip, material, backend: a new Simulation on the same state
  void tickOnce(FrameAdvance* advance);
  void recordSolve(const SolveReport& report);
  void restartOscillator();
  void startSimulation(const State& state);
  Status fallBackToCpu(const Model& model, const State& state, std::unique_ptr<Backend>* out);

  // the scene and the model it runs with
  SceneOptions scene_options_;
  Scene scene_;
  Model model_;  // scene_.model with material_
  MaterialSettings reference_, material_;
  bool is_oscillator_ = false;

  // the backend is shared by each Simulation the session starts on it
  BackendLoader loader_;
  std::shared_ptr<Backend> backend_;
  std::optional<BackendSwitch> switch_;
  bool switched_ = false;  // the fallback took over during the current tick
  std::unique_ptr<Simulation> sim_;
  SolverSettings solver_;
  TimeSettings time_;
  TickScheduler clock_{0.01, 0};  // only its ticksDue(): wall time -> ticks due

  // changes waiting for the next solve boundary
  bool time_pending_ = false;
  bool material_pending_ = false;
  std::shared_ptr<Backend> pending_backend_;

  // runs finished by a change (their ticks, solves and totals count towards the report)
  struct Past {
    int64_t ticks = 0;
    int64_t solves = 0;
    double sim_time = 0.0;
    double physics_time = 0.0;
    RunTotals totals;
  } past_;

  // control and input
  bool paused_ = false;
  bool step_requested_ = false;
  Pull pull_;
  PullSettings pull_settings_;
  PullPatch patch_;  // who carries the pull in progress
  float patch_radius_ = 0.0f;
  std::vector<glm::vec3> external_;  // (particles) forces for Simulation::tick

  // measurements
  std::optional<SolveReport> last_solve_;
  SolveHistory history_;
  std::optional<OscillatorReference> oscillator_;
  std::string notice_;
  std::string fallback_reason_;
};

}  // namespace hooke
