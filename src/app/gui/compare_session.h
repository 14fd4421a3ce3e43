// Side-by-side comparison: the app's session and a second one that runs the same scene from the
// same state with another integrator, kept in step (the same ticks), with every other setting and
// the mouse's pull mirrored onto it. Every live change goes through here, so with comparison off
// it is a thin pass-through to the app's session. No GL, no ImGui: tested headless.
#pragma once

#include <memory>
#include <string>

#include "app/gui/drag_force.h"
#include "app/gui/material_editor.h"
#include "app/gui/sim_session.h"
#include "sim/backend.h"

namespace hooke {

// How the two are shown: the second as a translucent ghost over the first, or two views side by
// side with one camera.
enum class CompareView { kOverlay = 0, kSplit = 1 };

// What the comparison controls edit.
struct CompareSettings {
  bool enabled = false;
  Integrator integrator = Integrator::kBdf2;  // the second session's
  CompareView view = CompareView::kOverlay;
};

class CompareSession {
 public:
  // `primary` (loaded) must outlive this object.
  explicit CompareSession(SimSession* primary);
  ~CompareSession();

  // Starts comparing against `integrator`: the second session loads the primary's scene, backend,
  // solver settings, time and live material, and both restart from the scene's initial state.
  // On failure nothing changes.
  Status start(Integrator integrator);
  void stop();
  bool active() const { return second_ != nullptr; }
  Integrator integrator() const { return integrator_; }

  SimSession& primary() { return *primary_; }
  const SimSession& primary() const { return *primary_; }
  SimSession* second() { return second_.get(); }
  const SimSession* second() const { return second_.get(); }

  // [SECTION] live changes, applied to both (the second keeps its own integrator)
  void setSolver(const SolverSettings& solver);
  // The second session's integrator, from its next solve.
  Status setIntegrator(Integrator integrator);
  void setTime(const TimeSettings& time);
  void setMaterial(const MaterialSettings& material);
  // Fails with the primary's reason, or the second's (its integrator may not exist there; the
  // comparison then stops and the primary keeps the new backend).
  Status setBackend(const std::string& name);
  void setPaused(bool paused);
  void requestStep();
  void setPull(const Pull& pull, const PullSettings& settings);
  // Both back to the scene's initial state.
  Status reset();
  // After a divergence of either: each diverged session back to its last finite state, then both
  // paused (resuming lets the one behind catch up). Fails when neither has diverged, or with the
  // reason a session could not be reloaded.
  Status revertToLastFinite();
  // A new scene for both (the primary's SimSession::load; the second follows it).
  Status load(const SceneOptions& scene, const std::string& backend, const SolverSettings& solver,
              const TimeSettings& time);

  // [SECTION] the frame
  // Advances both by the same wall time; then whichever is behind (a solve budget ran out, say)
  // catches up once, so both show the same simulated time. Returns the primary's advance.
  FrameAdvance advance(double wall_seconds);
  const FrameAdvance& secondAdvance() const { return second_advance_; }

 private:
  Status loadSecond();

  SimSession* primary_;
  std::unique_ptr<SimSession> second_;
  Integrator integrator_ = Integrator::kBdf2;
  FrameAdvance second_advance_;
};

}  // namespace hooke
