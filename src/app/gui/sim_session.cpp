// The app's simulation driver: loading, the per-frame tick loop with its bounds, live changes at
// solve boundaries, the pull force and the per-solve measurements.
//
// [SECTION] loading
// [SECTION] live changes
// [SECTION] the frame
// [SECTION] measurements and the report
#include "app/gui/sim_session.h"

#include <algorithm>
#include <cmath>

#include "app/backend_factory.h"
#include "app/backend_fallback.h"
#include "app/gui/shared_backend.h"
#include "sim/cpu_backend.h"
#include "sim/metrics.h"

namespace hooke {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// a single free mass on one spring from a pinned anchor: the closed form applies
bool isSingleOscillator(const Scene& scene) {
  const Model& m = scene.model;
  if (m.particleCount() != 2 || m.springCount() != 1 || scene.driven_particle < 0) return false;
  return (m.pinned[0] != 0) != (m.pinned[1] != 0);
}

// the longest side of the box around the positions
float restExtent(std::span<const glm::vec3> x) {
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const glm::vec3& p : x) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::vec3 size = hi - lo;
  return x.empty() ? 0.0f : std::max({size.x, size.y, size.z});
}

}  // namespace

SimSession::SimSession(BackendLoader loader) : loader_(std::move(loader)) {
  if (!loader_) {
    loader_ = [](const std::string& name, const Model& model, const State& state,
                 Integrator integrator,
                 BackendChoice* out) { return loadBackend(name, model, state, out, integrator); };
  }
}

SimSession::~SimSession() = default;

// [SECTION] loading

Status SimSession::load(const SceneOptions& scene_options, const std::string& backend_name,
                        const SolverSettings& solver, const TimeSettings& time,
                        const std::optional<MaterialSettings>& material) {
  // everything that can fail happens before the session changes
  Scene scene;
  if (Status s = buildScene(scene_options, &scene); !s) return s;
  const MaterialSettings reference = hooke::referenceMaterial(scene, scene_options);
  const MaterialSettings wanted = material.value_or(reference);
  Model model = applyMaterial(scene.model, reference, wanted);
  BackendChoice choice;
  if (Status s = loader_(backend_name, model, scene.state, solver.integrator, &choice); !s) {
    return s;
  }
  if (!choice.backend->supports(solver.integrator)) {
    return Status::error("the " + std::string(choice.backend->name()) + " backend has no " +
                         std::string(integratorName(solver.integrator)) + " integrator");
  }

  // the new scene, from its initial state
  scene_options_ = scene_options;
  scene_ = std::move(scene);
  reference_ = reference;
  material_ = wanted;
  model_ = std::move(model);
  is_oscillator_ = isSingleOscillator(scene_);
  patch_radius_ = 0.25f * restExtent(scene_.state.x);
  backend_ = std::shared_ptr<Backend>(std::move(choice.backend));
  fallback_reason_ = choice.fallback_reason;
  switch_.reset();
  pending_backend_.reset();
  solver_ = solver;
  time_ = time;
  time_pending_ = material_pending_ = false;
  backend_->setSettings(solver_);
  past_ = Past{};
  pull_ = Pull{};
  patch_ = PullPatch{};
  notice_.clear();
  external_.assign(model_.particleCount(), glm::vec3(0.0f));
  last_solve_.reset();
  history_.clear();
  startSimulation(scene_.state);
  restartOscillator();
  return Status::ok();
}

Status SimSession::reset() {
  const std::string backend(backend_ ? backend_->name() : "auto");
  const std::shared_ptr<Backend> incoming = pending_backend_;
  const std::string name = incoming ? std::string(incoming->name()) : backend;
  const bool paused = paused_ && !(sim_ && sim_->diverged());  // a divergence's pause ends here
  Status s = load(scene_options_, name, solver_, time_, material_);
  paused_ = paused;
  return s;
}

void SimSession::startSimulation(const State& state) {
  sim_ = std::make_unique<Simulation>(std::make_unique<SharedBackend>(backend_), model_, state,
                                      time_.dt, time_.skip());
  if (backend_->name() != "cpu") {
    sim_->setFallback(
        [this](const Model& model, const State& last_good, std::unique_ptr<Backend>* out) {
          return fallBackToCpu(model, last_good, out);
        });
  }
  clock_ = TickScheduler(time_.dt, time_.skip());
}

Status SimSession::fallBackToCpu(const Model& model, const State& state,
                                 std::unique_ptr<Backend>* out) {
  // the session's backend becomes the CPU one (backend() returns it from now on); the failed
  // one is released when the Simulation drops its handle
  auto cpu = std::make_shared<CpuBackend>();
  if (Status s = cpu->load(model, state); !s) return s;
  cpu->setSettings(solver_);
  backend_ = std::move(cpu);
  pending_backend_.reset();
  switched_ = true;
  *out = std::make_unique<SharedBackend>(backend_);
  return Status::ok();
}

// [SECTION] live changes

void SimSession::setSolver(const SolverSettings& solver) {
  solver_ = solver;
  backend_->setSettings(solver_);
  if (pending_backend_) pending_backend_->setSettings(solver_);
}

void SimSession::setTime(const TimeSettings& time) {
  const bool cadence_changed = time.dt != time_.dt || time.skip() != time_.skip();
  time_ = time;
  if (cadence_changed) time_pending_ = true;
}

void SimSession::setMaterial(const MaterialSettings& material) {
  if (material == material_) return;
  material_ = material;
  material_pending_ = true;
}

Status SimSession::setBackend(const std::string& name) {
  if (name == backend_->name() && !pending_backend_) return Status::ok();
  BackendChoice choice;
  if (Status s = createBackend(name, &choice); !s) return s;
  if (!choice.fallback_reason.empty()) {
    return Status::error("CUDA not available (" + choice.fallback_reason + ")");
  }
  if (!choice.backend->supports(solver_.integrator)) {
    return Status::error("the " + name + " backend has no " +
                         std::string(integratorName(solver_.integrator)) +
                         " integrator; choose another integrator first");
  }
  pending_backend_ = std::shared_ptr<Backend>(std::move(choice.backend));
  pending_backend_->setSettings(solver_);
  return Status::ok();
}

Status SimSession::revertToLastFinite() {
  if (!sim_ || !sim_->diverged()) {
    return Status::error("nothing to revert: the simulation has not diverged");
  }
  const State state = sim_->previousState();

  // the finished run up to the last finite solve counts towards the report
  const TickScheduler& s = sim_->scheduler();
  const int64_t kept = std::max<int64_t>(0, s.solves() - 1);
  past_.ticks += kept * (s.skip() + 1);
  past_.solves += kept;
  past_.sim_time += double(kept) * s.h();
  past_.physics_time += double(kept) * s.h();
  mergeTotals(sim_->totals(), &past_.totals);

  if (Status loaded = backend_->load(model_, state); !loaded) return loaded;
  backend_->setSettings(solver_);
  startSimulation(state);
  paused_ = true;
  pull_ = Pull{};
  patch_ = PullPatch{};
  restartOscillator();
  return Status::ok();
}

void SimSession::setPull(const Pull& pull, const PullSettings& settings) {
  const bool released = pull_.active() && !pull.active();
  if (!pull.active() || size_t(pull.particle) >= model_.particleCount()) {
    patch_ = PullPatch{};
  } else if (pull.particle != pull_.particle) {
    patch_ = pullPatch(sim_->state().x, model_.mass, model_.pinned, uint32_t(pull.particle),
                       patch_radius_);
  }
  pull_ = pull;
  pull_settings_ = settings;
  if (pull_.active()) oscillator_.reset();
  if (released) restartOscillator();
}

bool SimSession::atBoundary() const {
  const TickScheduler& s = sim_->scheduler();
  return s.ticks() % (s.skip() + 1) == 0;
}

void SimSession::applyPending() {
  if (!time_pending_ && !material_pending_ && !pending_backend_) return;
  const State state = sim_->state();

  // the finished run's share of the report
  const TickScheduler& s = sim_->scheduler();
  past_.ticks += s.ticks();
  past_.solves += s.solves();
  past_.sim_time += s.simTime();
  past_.physics_time += double(s.solves()) * s.h();
  mergeTotals(sim_->totals(), &past_.totals);

  // the new model on the old backend, or the state on a new backend
  if (material_pending_) model_ = applyMaterial(scene_.model, reference_, material_);
  if (pending_backend_) {
    if (Status loaded = pending_backend_->load(model_, state); loaded) {
      backend_ = std::move(pending_backend_);
    } else {
      notice_ = "the " + std::string(pending_backend_->name()) +
                " backend could not take the scene: " + loaded.message();
    }
    pending_backend_.reset();
  }
  if (material_pending_) {
    if (Status updated = backend_->updateModel(model_); !updated) notice_ = updated.message();
  }
  backend_->setSettings(solver_);
  const bool material_changed = material_pending_;
  time_pending_ = material_pending_ = false;
  startSimulation(state);
  if (material_changed && !pull_.active()) restartOscillator();
}

// [SECTION] the frame

FrameAdvance SimSession::advance(double wall_seconds) {
  FrameAdvance result;
  if (!sim_ || sim_->diverged() || sim_->error()) return result;
  const double sim_before = simTime();

  if (step_requested_) {
    // one new solve, shown whole: on to the end of the next solve interval (alpha = 1)
    step_requested_ = false;
    do {
      tickOnce(&result);
    } while ((result.solves == 0 || !atBoundary()) && !sim_->diverged() && !sim_->error());
  } else if (!paused_) {
    // wall time × time scale -> ticks due, at most the frame's cap
    const double dt = time_.dt;
    const int cap =
        std::max(1, int(std::ceil(kMaxFrameSimSeconds * std::max(1.0, time_.time_scale) / dt)));
    const double dropped_before = clock_.droppedSeconds();
    const int due = clock_.ticksDue(wall_seconds * time_.time_scale, cap);
    result.dropped = clock_.droppedSeconds() > dropped_before;
    for (int i = 0; i < due && !sim_->diverged() && !sim_->error(); ++i) {
      // a change of dt restarts the clock: the rest of this frame's ticks are of the old dt
      if (time_pending_ && atBoundary()) {
        applyPending();
        break;
      }
      if (atBoundary() && result.solver_ms > kSolveBudgetMs) {
        result.dropped = true;
        break;
      }
      tickOnce(&result);
    }
  }
  result.sim_seconds = simTime() - sim_before;
  return result;
}

void SimSession::tickOnce(FrameAdvance* advance) {
  // changes wait for a solve boundary, so the visual never jumps
  if (atBoundary()) applyPending();

  // the pull acts at solve ticks, from the newest solved state, spread over its patch
  std::span<const glm::vec3> external;
  if (atBoundary() && pull_.active() && !patch_.shares.empty()) {
    const State& s = sim_->state();
    const size_t held = size_t(pull_.particle);
    const glm::vec3 force = pullForce(pull_, pull_settings_, s.x[held], s.v[held]);
    for (const PatchShare& p : patch_.shares)
      external_[p.particle] = p.share * force;
    external = external_;
  }
  const auto solve_start = Clock::now();
  std::optional<SolveReport> report = sim_->tick(external);
  if (switched_) {
    switched_ = false;
    switch_ = sim_->backendSwitch();
    if (switch_) {
      switch_->at_solve += past_.solves;
      switch_->time += past_.physics_time;
      notice_ = describeSwitch(*switch_);
    }
  }
  if (sim_->diverged()) paused_ = true;  // the last finite state is kept for a revert
  if (!external.empty()) {
    for (const PatchShare& p : patch_.shares)
      external_[p.particle] = glm::vec3(0.0f);
  }
  advance->ticks += 1;
  if (report) {
    advance->solves += 1;
    advance->solver_ms += msSince(solve_start);
    recordSolve(*report);
  }
}

void SimSession::writeVisual(std::span<glm::vec3> out) const {
  backend_->writeVisual(sim_->alpha(), out);
}

// [SECTION] measurements and the report

double SimSession::simTime() const {
  return past_.sim_time + sim_->scheduler().simTime();
}

double SimSession::physicsTime() const {
  const TickScheduler& s = sim_->scheduler();
  return past_.physics_time + double(s.solves()) * s.h();
}

int64_t SimSession::solves() const {
  return past_.solves + sim_->scheduler().solves();
}

std::optional<double> SimSession::divergedAt() const {
  if (!sim_->divergedAt()) return std::nullopt;
  return past_.physics_time + *sim_->divergedAt();
}

void SimSession::recordSolve(const SolveReport& report) {
  last_solve_ = report;
  last_solve_->time = physicsTime();
  SolveSample sample;
  sample.time = physicsTime();
  sample.kinetic = report.energy.kinetic;
  sample.potential = report.energy.potential();
  sample.total = report.energy.total();
  sample.max_strain = report.strain.max;
  const int64_t driven = scene_.driven_particle;
  if (driven >= 0 && size_t(driven) < sim_->state().x.size()) {
    sample.height = sim_->state().x[driven].y;
  }
  history_.add(sample);
  if (pull_.active()) oscillator_.reset();
}

void SimSession::restartOscillator() {
  oscillator_.reset();
  if (!is_oscillator_ || !sim_) return;
  const Model& m = model_;
  const int64_t mass = scene_.driven_particle;
  const int64_t anchor = m.pinned[0] ? 0 : 1;
  if (mass == anchor) return;
  const State& s = sim_->state();

  // m u'' + (c + c_air) u' + k u = 0 about the rest height y_anchor − L + m g_y / k
  const double k = m.stiffness[0];
  if (!(k > 0.0) || !(m.mass[mass] > 0.0f)) return;
  OscillatorReference ref;
  ref.t0 = physicsTime();
  ref.y_rest = double(s.x[anchor].y) - double(m.rest_length[0]) + m.mass[mass] * m.gravity.y / k;
  ref.oscillator = DampedOscillator{m.mass[mass], k, double(m.damping[0]) + double(m.drag),
                                    double(s.x[mass].y) - ref.y_rest, double(s.v[mass].y)};
  oscillator_ = ref;
}

PullScale SimSession::pullScale() const {
  const Model& m = model_;
  const std::vector<glm::vec3>& x = scene_.state.x;

  // the typical particle held: the driven one, else the free one nearest the free centroid
  int64_t typical = scene_.driven_particle;
  if (typical < 0) {
    glm::dvec3 centroid(0.0);
    size_t free = 0;
    for (size_t i = 0; i < m.particleCount(); ++i) {
      if (m.pinned[i]) continue;
      centroid += glm::dvec3(x[i]);
      ++free;
    }
    if (free > 0) centroid /= double(free);
    double best = 1e300;
    for (size_t i = 0; i < m.particleCount(); ++i) {
      const double d = glm::length(glm::dvec3(x[i]) - centroid);
      if (m.pinned[i] || d >= best) continue;
      best = d;
      typical = int64_t(i);
    }
  }
  PullScale scale;
  if (typical >= 0) {
    scale.patch_mass = pullPatch(x, m.mass, m.pinned, uint32_t(typical), patch_radius_).mass;
  }
  scale.stiffness = material_.stiffness;

  // flat: one side of the rest shape's box under 1 % of the longest (a sheet, or a line)
  glm::vec3 lo(1e30f), hi(-1e30f);
  for (const glm::vec3& p : x) {
    lo = glm::min(lo, p);
    hi = glm::max(hi, p);
  }
  const glm::vec3 size = hi - lo;
  scale.sheet = std::min({size.x, size.y, size.z}) < 0.01f * std::max({size.x, size.y, size.z});
  scale.h = h();
  return scale;
}

RunSummary SimSession::summary(double wall_seconds) const {
  RunSummary s = summarizeRun(scene_.name, solver_.integrator, backend_->name(), *sim_,
                              computeEnergy(model_, sim_->state()), wall_seconds);
  s.ticks += past_.ticks;
  s.solves += past_.solves;
  s.sim_time += past_.sim_time;
  s.physics_time += past_.physics_time;
  mergeTotals(past_.totals, &s.totals);
  if (s.diverged_at) *s.diverged_at += past_.physics_time;
  return s;
}

}  // namespace hooke
