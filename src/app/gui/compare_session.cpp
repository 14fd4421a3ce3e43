// The comparison's second session: loaded from the primary's scene and settings, fed the same
// changes, pull and wall time, and caught up when it falls behind.
#include "app/gui/compare_session.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace hooke {

namespace {

void add(const FrameAdvance& more, FrameAdvance* total) {
  total->ticks += more.ticks;
  total->solves += more.solves;
  total->sim_seconds += more.sim_seconds;
  total->solver_ms += more.solver_ms;
  total->dropped = total->dropped || more.dropped;
}

bool running(const SimSession& s) {
  return !s.divergedAt() && !s.backendError();
}

}  // namespace

CompareSession::CompareSession(SimSession* primary) : primary_(primary) {}
CompareSession::~CompareSession() = default;

Status CompareSession::loadSecond() {
  auto second = std::make_unique<SimSession>();
  SolverSettings solver = primary_->solver();
  solver.integrator = integrator_;
  const std::string backend(primary_->backend().name());
  if (Status s = second->load(primary_->sceneOptions(), backend, solver, primary_->time(),
                              primary_->material());
      !s) {
    return Status::error("comparison: " + s.message());
  }
  second->setPaused(primary_->paused());
  second_ = std::move(second);
  return Status::ok();
}

Status CompareSession::start(Integrator integrator) {
  const Integrator before = integrator_;
  integrator_ = integrator;
  if (Status s = loadSecond(); !s) {
    integrator_ = before;
    return s;
  }
  if (Status s = primary_->reset(); !s) {
    second_.reset();
    return s;
  }
  second_advance_ = FrameAdvance{};
  return Status::ok();
}

void CompareSession::stop() {
  second_.reset();
  second_advance_ = FrameAdvance{};
}

// [SECTION] live changes

void CompareSession::setSolver(const SolverSettings& solver) {
  primary_->setSolver(solver);
  if (!second_) return;
  SolverSettings mirrored = solver;
  mirrored.integrator = integrator_;
  second_->setSolver(mirrored);
}

Status CompareSession::setIntegrator(Integrator integrator) {
  if (second_ && !second_->backend().supports(integrator)) {
    return Status::error("the " + std::string(second_->backend().name()) + " backend has no " +
                         std::string(integratorName(integrator)) + " integrator");
  }
  integrator_ = integrator;
  if (second_) setSolver(primary_->solver());
  return Status::ok();
}

void CompareSession::setTime(const TimeSettings& time) {
  primary_->setTime(time);
  if (second_) second_->setTime(time);
}

void CompareSession::setMaterial(const MaterialSettings& material) {
  primary_->setMaterial(material);
  if (second_) second_->setMaterial(material);
}

Status CompareSession::setBackend(const std::string& name) {
  if (Status s = primary_->setBackend(name); !s) return s;
  if (!second_) return Status::ok();
  if (Status s = second_->setBackend(name); !s) {
    stop();
    return Status::error("comparison stopped: " + s.message());
  }
  return Status::ok();
}

void CompareSession::setPaused(bool paused) {
  primary_->setPaused(paused);
  if (second_) second_->setPaused(paused);
}

void CompareSession::requestStep() {
  primary_->requestStep();
  if (second_) second_->requestStep();
}

void CompareSession::setPull(const Pull& pull, const PullSettings& settings) {
  primary_->setPull(pull, settings);
  if (second_) second_->setPull(pull, settings);
}

Status CompareSession::reset() {
  if (Status s = primary_->reset(); !s) return s;
  if (second_) {
    if (Status s = second_->reset(); !s) {
      stop();
      return Status::error("comparison stopped: " + s.message());
    }
  }
  second_advance_ = FrameAdvance{};
  return Status::ok();
}

Status CompareSession::revertToLastFinite() {
  const bool primary_diverged = primary_->divergedAt().has_value();
  const bool second_diverged = second_ && second_->divergedAt().has_value();
  if (!primary_diverged && !second_diverged) {
    return Status::error("nothing to revert: neither simulation has diverged");
  }
  if (primary_diverged) {
    if (Status s = primary_->revertToLastFinite(); !s) return s;
  }
  if (second_diverged) {
    if (Status s = second_->revertToLastFinite(); !s) {
      return Status::error("comparison: " + s.message());
    }
  }
  setPaused(true);
  return Status::ok();
}

Status CompareSession::load(const SceneOptions& scene, const std::string& backend,
                            const SolverSettings& solver, const TimeSettings& time) {
  if (Status s = primary_->load(scene, backend, solver, time); !s) return s;
  if (second_) {
    if (Status s = loadSecond(); !s) {
      stop();
      return Status::error("comparison stopped: " + s.message());
    }
  }
  second_advance_ = FrameAdvance{};
  return Status::ok();
}

// [SECTION] the frame

FrameAdvance CompareSession::advance(double wall_seconds) {
  FrameAdvance first = primary_->advance(wall_seconds);
  if (!second_) return first;
  second_advance_ = second_->advance(wall_seconds);

  // the same inputs give the same ticks, unless one ran out of its solve budget: the one behind
  // gets the missing simulated time once more (a touch over, so rounding cannot lose a tick)
  const double scale = std::max(primary_->time().time_scale, 1e-9);
  const double dt = primary_->time().dt;
  const double gap = primary_->simTime() - second_->simTime();
  if (std::abs(gap) > 0.5 * dt) {
    const double wall = (std::abs(gap) + 1e-6 * dt) / scale;
    if (gap > 0.0 && running(*second_) && !second_->paused()) {
      add(second_->advance(wall), &second_advance_);
    } else if (gap < 0.0 && running(*primary_) && !primary_->paused()) {
      add(primary_->advance(wall), &first);
    }
  }
  return first;
}

}  // namespace hooke
