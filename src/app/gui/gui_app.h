// The desktop app for one window: each frame advances the session, lays out the panels and the 3D
// view, writes the visual state into the renderer's vertex buffer, draws the scene and the UI, and
// handles the mouse and keys (DESIGN.md "One frame"). Owns no window and never exits the process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/compare_session.h"
#include "app/gui/frame_stats.h"
#include "app/gui/gui_window.h"
#include "app/gui/input_controller.h"
#include "app/gui/panels.h"
#include "app/gui/sim_session.h"
#include "app/gui/sweep_job.h"
#include "app/gui/sweep_panel.h"
#include "app/visual_writer.h"
#include "render/image.h"
#include "render/orbit_camera.h"
#include "render/picking.h"
#include "render/renderer.h"

namespace hooke {

// The sizes a frame is drawn at (framebuffer pixels and window units; 0 x 0 when minimised).
struct FrameSize {
  glm::ivec2 framebuffer{0};
  glm::ivec2 window{0};
};

class GuiApp final : public WindowEvents {
 public:
  // `window` must outlive the app; its context must be current. `state` holds the panels'
  // starting values (from the command line); `session` is loaded.
  GuiApp(GuiWindow* window, std::unique_ptr<SimSession> session, const PanelState& state);
  ~GuiApp() override;

  // Compiles the renderer, uploads the scene and frames the camera. Fails on a GL error.
  Status init();

  // One frame: the simulation advances by wall_seconds (× the time scale), and unless minimised
  // the scene and panels are drawn and the buffers swapped. With `capture`, the finished frame is
  // read back into it before the swap (the --screenshot image); fails when there is nothing to
  // read (a minimised window).
  Status frame(const FrameSize& size, double wall_seconds, Image* capture = nullptr);

  // The sizes of the window now.
  FrameSize currentSize() const;

  SimSession& session() { return *session_; }
  const PanelState& panelState() const { return state_; }
  OrbitCamera& camera() { return camera_; }
  // Starts on this camera instead of framing the scene (a restored view).
  void restoreCamera(const OrbitCamera& camera) {
    camera_ = camera;
    view_framed_ = true;
  }
  const Viewport& viewport() const { return viewport_; }
  const InputController& input() const { return input_; }
  int glErrors() const { return gl_errors_; }
  // The comparison (turned on and off through setCompare, as its controls do) and the Sweep
  // panel's job and settings.
  CompareSession& compare() { return compare_; }
  void setCompare(const CompareSettings& settings);
  void showSweepPanel(bool show) { state_.show_sweep = show; }
  SweepJob& sweepJob() { return sweep_job_; }
  SweepPanelState& sweepPanel() { return sweep_ui_; }
  double wallSeconds() const { return wall_seconds_; }

  // WindowEvents: mouse and keys (ImGui keeps the mouse and keyboard when it wants them)
  void onMouseButton(MouseButton button, bool pressed, const glm::vec2& pixel) override;
  void onCursor(const glm::vec2& pixel) override;
  void onScroll(float steps) override;
  void onKey(Key key) override;
  void onDrop(const std::vector<std::string>& paths) override;

  // Carries out what the panels ask for (a button's request, as at the end of a frame).
  void apply(const PanelRequests& requests);

 private:
  void layout(const FrameSize& size);
  void loadScene(const SceneOptions& options);
  void sceneLoaded();
  void chooseWriter();
  void resetView();
  void saveScreenshot();
  void showMessage(const std::string& text, bool error = false);
  PickTargets pickTargets(bool second = false) const;
  // comparison: the split views, the view under a pixel, the second body's drawing
  bool split() const;
  const Viewport& viewAt(const glm::vec2& pixel) const;
  void dropGhostWriter();
  Status drawSecond(const DrawOptions& first, int width, int height);
  void hints(PanelFacts* facts) const;  // hover ring and pull band over the view
  void updateTitle();

  GuiWindow* window_;
  std::unique_ptr<SimSession> session_;
  PanelState state_;
  Renderer renderer_;
  std::unique_ptr<VisualWriter> writer_;
  const Backend* writer_backend_ = nullptr;  // the backend writer_ was chosen for
  OrbitCamera camera_;
  InputController input_;
  FrameStats frames_;
  Viewport viewport_;
  glm::vec2 framebuffer_scale_{1.0f};
  glm::vec2 cursor_{0.0f};
  PanelRequests pending_;  // from keys and drops, applied at the next frame
  std::string cuda_unavailable_;
  bool screenshot_requested_ = false;
  bool view_framed_ = false;
  bool stats_docked_ = true;
  int gl_errors_ = 0;
  double wall_seconds_ = 0.0;

  // side by side: the second session, its renderer and writer (the writer goes first), the views
  CompareSession compare_;
  Renderer ghost_renderer_;
  std::unique_ptr<VisualWriter> ghost_writer_;
  const Backend* ghost_writer_backend_ = nullptr;
  bool ghost_ready_ = false;       // ghost_renderer_ initialised
  bool ghost_scene_stale_ = true;  // the second session has a scene ghost_renderer_ lacks
  Viewport views_[2];              // split: left (the app's session) and right (the second)
  Viewport input_view_;            // the view the drag in progress started in
  bool input_second_ = false;      // ... and whether that was the second's

  // the Sweep panel
  SweepJob sweep_job_;
  SweepPanelState sweep_ui_;
};

}  // namespace hooke
