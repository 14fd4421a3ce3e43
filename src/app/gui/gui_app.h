// The desktop app for one window: each frame advances the session, lays out the panels and the 3D
// view, writes the visual state into the renderer's vertex buffer, draws the scene and the UI, and
// handles the mouse and keys (DESIGN.md "One frame"). Owns no window and never exits the process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/frame_stats.h"
#include "app/gui/gui_window.h"
#include "app/gui/input_controller.h"
#include "app/gui/panels.h"
#include "app/gui/sim_session.h"
#include "app/gui/visual_writer.h"
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
  const Viewport& viewport() const { return viewport_; }
  const InputController& input() const { return input_; }
  int glErrors() const { return gl_errors_; }
  double wallSeconds() const { return wall_seconds_; }

  // WindowEvents: mouse and keys (ImGui keeps the mouse and keyboard when it wants them)
  void onMouseButton(MouseButton button, bool pressed, const glm::vec2& pixel) override;
  void onCursor(const glm::vec2& pixel) override;
  void onScroll(float steps) override;
  void onKey(Key key) override;
  void onDrop(const std::vector<std::string>& paths) override;

 private:
  void layout(const FrameSize& size);
  void apply(const PanelRequests& requests);
  void loadScene(const SceneOptions& options);
  void sceneLoaded();
  void resetView();
  void saveScreenshot();
  void showMessage(const std::string& text, bool error = false);
  PickTargets pickTargets() const;
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
};

}  // namespace hooke
