// The Sweep panel's background job: the request's checks, the scene factory at the live
// material, worker threads that take the next cell until none is left or the job is cancelled,
// and snapshots for the panel.
#include "app/gui/sweep_job.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace hooke {

namespace {

using Clock = std::chrono::steady_clock;

bool finitePositiveRange(double lo, double hi) {
  return std::isfinite(lo) && std::isfinite(hi) && lo > 0.0 && lo < hi;
}

}  // namespace

Status checkSweepRequest(const SweepRequest& request) {
  if (request.integrators.empty()) return Status::error("choose at least one integrator");
  for (size_t i = 0; i < request.integrators.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (request.integrators[i] == request.integrators[j]) {
        return Status::error("the integrator " +
                             std::string(integratorName(request.integrators[i])) +
                             " is chosen twice");
      }
    }
  }
  if (!finitePositiveRange(request.dt_min, request.dt_max)) {
    return Status::error("the dt range needs 0 < min < max, got " + show(request.dt_min) + " .. " +
                         show(request.dt_max));
  }
  if (!finitePositiveRange(request.k_min, request.k_max)) {
    return Status::error("the stiffness range needs 0 < min < max, got " + show(request.k_min) +
                         " .. " + show(request.k_max));
  }
  for (int n : {request.dt_cells, request.k_cells}) {
    if (n < 2 || n > kMaxSweepCells) {
      return Status::error("a grid side must be 2.." + std::to_string(kMaxSweepCells) + ", got " +
                           std::to_string(n));
    }
  }
  if (!(std::isfinite(request.duration) && request.duration > 0.0)) {
    return Status::error("the duration must be > 0 s, got " + show(request.duration));
  }
  if (request.duration / request.dt_min > kMaxSweepSolvesPerCell) {
    return Status::error("duration / smallest dt is " + show(request.duration / request.dt_min) +
                         " solves per cell, more than 1e6: shorten the duration or raise dt min");
  }
  if (request.threads < 0 || request.threads > 256) {
    return Status::error("threads must be 0 (automatic) .. 256, got " +
                         std::to_string(request.threads));
  }
  return Status::ok();
}

CellSettings settingsForCell(const SweepCell& cell, const TimeSettings& time,
                             const MaterialSettings& material, const SolverSettings& solver) {
  CellSettings out{time, material, solver};
  out.time.dt = cell.dt;
  out.time.auto_skip = false;
  out.time.manual_skip = 0;
  out.material.stiffness = float(cell.stiffness);
  out.solver.integrator = cell.integrator;
  return out;
}

// [SECTION] the job

struct SweepJob::Shared {
  // fixed once started
  Scene base;
  MaterialSettings reference, material;
  SolverSettings solver;
  double duration = 0.0;
  Clock::time_point started;

  // handed out without the lock
  std::atomic<size_t> next{0};
  std::atomic<bool> cancel{false};

  // under the lock
  mutable std::mutex mutex;
  Snapshot state;
  int active = 0;
  Clock::time_point ended;

  Scene sceneAt(double stiffness) const {
    Scene scene = base;
    MaterialSettings wanted = material;
    wanted.stiffness = float(stiffness);
    scene.model = applyMaterial(base.model, reference, wanted);
    return scene;
  }

  void work() {
    const SceneFactory factory = [this](double k) { return sceneAt(k); };
    const std::vector<SweepCell>& cells = state.cells;  // never resized while workers run
    SweepCellOptions options;
    options.cancel = &cancel;  // a running cell stops within one solve of a cancel
    for (size_t i = next++; i < cells.size() && !cancel; i = next++) {
      const CellResult result = runSweepCell(factory, cells[i], duration, solver, options);
      if (result.cancelled) break;  // not a result: the cell stays unfinished
      std::lock_guard<std::mutex> lock(mutex);
      state.results[i] = result;
      state.finished[i] = 1;
      state.done += 1;
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (--active == 0) {
      state.phase = state.done == cells.size() ? Phase::kDone : Phase::kCancelled;
      ended = Clock::now();
    }
  }
};

SweepJob::SweepJob() = default;

SweepJob::~SweepJob() {
  cancel();
  wait();
}

const char* SweepJob::phaseName(Phase phase) {
  switch (phase) {
    case Phase::kIdle:
      return "idle";
    case Phase::kRunning:
      return "running";
    case Phase::kCancelling:
      return "cancelling";
    case Phase::kCancelled:
      return "cancelled";
    case Phase::kDone:
      return "done";
  }
  return "?";
}

Status SweepJob::start(const SweepRequest& request) {
  if (busy()) return Status::error("a sweep is still running; cancel it first");
  if (Status s = checkSweepRequest(request); !s) return s;
  auto shared = std::make_shared<Shared>();
  if (Status s = buildScene(request.scene, &shared->base); !s) return s;
  wait();  // join the threads of the previous run (all finished)

  shared->reference = request.reference;
  shared->material = request.material;
  shared->solver = request.solver;
  shared->duration = request.duration;
  Snapshot& state = shared->state;
  state.phase = Phase::kRunning;
  state.scene_name = shared->base.name;
  state.integrators = request.integrators;
  state.dts = logSpace(request.dt_min, request.dt_max, request.dt_cells);
  state.stiffnesses = logSpace(request.k_min, request.k_max, request.k_cells);
  state.cells = sweepCells(state.integrators, state.dts, state.stiffnesses);
  state.results.assign(state.cells.size(), CellResult{});
  state.finished.assign(state.cells.size(), 0);
  state.duration = request.duration;

  const int cores = std::max(1, int(std::thread::hardware_concurrency()));
  const int threads = request.threads > 0 ? request.threads : std::max(1, cores - 1);
  const int count = std::min<int>(threads, int(state.cells.size()));
  shared->active = count;
  shared->started = Clock::now();
  shared_ = shared;
  for (int t = 0; t < count; ++t)
    workers_.emplace_back([shared] { shared->work(); });
  return Status::ok();
}

void SweepJob::cancel() {
  if (!shared_) return;
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->cancel = true;
  if (shared_->state.phase == Phase::kRunning) shared_->state.phase = Phase::kCancelling;
}

void SweepJob::wait() {
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

SweepJob::Phase SweepJob::phase() const {
  if (!shared_) return Phase::kIdle;
  std::lock_guard<std::mutex> lock(shared_->mutex);
  return shared_->state.phase;
}

bool SweepJob::busy() const {
  const Phase p = phase();
  return p == Phase::kRunning || p == Phase::kCancelling;
}

SweepJob::Snapshot SweepJob::snapshot() const {
  if (!shared_) return Snapshot{};
  std::lock_guard<std::mutex> lock(shared_->mutex);
  Snapshot copy = shared_->state;
  const bool finished = copy.phase == Phase::kDone || copy.phase == Phase::kCancelled;
  const Clock::time_point end = finished ? shared_->ended : Clock::now();
  copy.wall_seconds = std::chrono::duration<double>(end - shared_->started).count();
  return copy;
}

}  // namespace hooke
