// One window's app: the frame (simulate, lay out, draw, capture), the panels' requests, mouse and
// key handling, scene loading and screenshots.
//
// [SECTION] set-up
// [SECTION] the frame
// [SECTION] requests from panels, keys and drops
// [SECTION] input
// [SECTION] view, screenshots, messages
#include "app/gui/gui_app.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <utility>

#include <glad/gl.h>
#include <spdlog/spdlog.h>

#include "app/backend_factory.h"
#include "io/atomic_file.h"
#include "render/gl_debug.h"
#include "render/screen_capture.h"

namespace hooke {

namespace {

constexpr double kMessageSeconds = 4.0;
constexpr int kMaxLoggedGlErrors = 20;
// below this width the 3D view takes the whole window and the panels float over it
constexpr float kMinViewWidth = 240.0f;

SceneKind kindOf(const SceneOptions& options) {
  if (options.scene == "cloth") return SceneKind::kCloth;
  if (options.scene == "volume") return SceneKind::kVolume;
  if (options.scene == "spring1d") return SceneKind::kSpring1d;
  return SceneKind::kFile;
}

}  // namespace

// [SECTION] set-up

GuiApp::GuiApp(GuiWindow* window, std::unique_ptr<SimSession> session, const PanelState& state)
    : window_(window), session_(std::move(session)), state_(state) {
  // can the user switch to CUDA? yes when it runs now; otherwise ask the factory why not
  if (session_->backend().name() != "cuda") {
    BackendChoice probe;
    if (Status s = createBackend("cuda", &probe); !s) {
      cuda_unavailable_ = s.message();
      const std::string prefix = "--backend cuda: ";
      if (cuda_unavailable_.rfind(prefix, 0) == 0) cuda_unavailable_.erase(0, prefix.size());
    }
  }
  state_.backend = std::string(session_->backend().name());
  state_.scene = kindOf(session_->sceneOptions());
  if (session_->sceneOptions().res) {
    (state_.scene == SceneKind::kVolume ? state_.volume_res : state_.cloth_res) =
        *session_->sceneOptions().res;
  }
  state_.material = session_->material();
  state_.pull = defaultPull(session_->pullScale());
  window_->setEvents(this);
}

GuiApp::~GuiApp() {
  window_->setEvents(nullptr);
}

Status GuiApp::init() {
  if (Status s = renderer_.init(); !s) return s;
  if (Status s = renderer_.setScene(session_->scene()); !s) return s;
  writer_ = makeVisualWriter(session_->backend(), &renderer_);
  writer_backend_ = &session_->backend();
  updateTitle();
  return checkGl("starting the renderer");
}

FrameSize GuiApp::currentSize() const {
  return {window_->framebufferSize(), window_->windowSize()};
}

// [SECTION] the frame

Status GuiApp::frame(const FrameSize& size, double wall_seconds, Image* capture) {
  wall_seconds_ += wall_seconds;
  apply(std::exchange(pending_, PanelRequests{}));

  // the simulation: ticks due for this much wall time, the mouse's pull at each solve
  session_->setPull(input_.pull(), state_.pull);
  const bool running = !session_->paused() && !session_->divergedAt() && !session_->backendError();
  const FrameAdvance advanced = session_->advance(wall_seconds);
  frames_.addFrame(wall_seconds, advanced.sim_seconds, running);
  if (!session_->notice().empty()) {
    showMessage(session_->notice(), true);
    session_->clearNotice();
  }

  // a minimised window (a zero-size framebuffer) simulates but draws nothing
  const bool minimised = size.framebuffer.x <= 0 || size.framebuffer.y <= 0 || size.window.x <= 0 ||
                         size.window.y <= 0;
  if (minimised) {
    if (capture) return Status::error("no screenshot: the window is minimised");
    return Status::ok();
  }

  // the panels, which also decide where the 3D view goes
  window_->beginUiFrame();
  layout(size);
  if (!view_framed_) {
    resetView();
    view_framed_ = true;
  }
  PanelRequests requests;
  PanelFacts facts;
  facts.session = session_.get();
  facts.frames = &frames_;
  facts.cuda_unavailable = cuda_unavailable_;
  facts.gl_description = window_->glDescription();
  facts.visual_path = std::string(writer_->name());
  facts.viewport = viewport_;
  facts.stats_docked = stats_docked_;
  facts.pulling = input_.pulling();
  hints(&facts);
  facts.now = wall_seconds_;
  drawPanels(state_, facts, &requests);
  apply(requests);

  // the scene: visual state into the vertex buffer (a new backend may want another writer), then
  // drawn beside the panels
  if (&session_->backend() != writer_backend_) {
    writer_ = makeVisualWriter(session_->backend(), &renderer_);
    writer_backend_ = &session_->backend();
  }
  if (Status s = writer_->write(session_->backend(), session_->alpha(), &renderer_); !s) {
    showMessage(s.message(), true);
  }
  DrawOptions draw = state_.draw;
  const int view_width = std::max(1, int(std::lround(viewport_.width * framebuffer_scale_.x)));
  const int view_height = std::max(1, int(std::lround(viewport_.height * framebuffer_scale_.y)));
  draw.viewport_x = int(std::lround(viewport_.x * framebuffer_scale_.x));
  draw.viewport_y =
      size.framebuffer.y - int(std::lround(viewport_.y * framebuffer_scale_.y)) - view_height;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  Status drawn = renderer_.draw(camera_, view_width, view_height, draw);
  glViewport(0, 0, size.framebuffer.x, size.framebuffer.y);
  window_->endUiFrame();

  // the finished frame: read back when asked, then shown
  Status captured = Status::ok();
  if (capture) captured = readBackBuffer(size.framebuffer.x, size.framebuffer.y, capture);
  if (screenshot_requested_) saveScreenshot();
  window_->swapBuffers();

  // GL errors are logged, never fatal
  for (const Status& s : {drawn, checkGl("drawing the frame")}) {
    if (s) continue;
    ++gl_errors_;
    if (gl_errors_ <= kMaxLoggedGlErrors) spdlog::error("OpenGL error: {}", s.message());
  }
  return captured;
}

void GuiApp::layout(const FrameSize& size) {
  // controls on the left, stats on the right, the view between; a narrow window gives up the
  // stats column first (Stats floats over the view), then the controls column
  framebuffer_scale_ = glm::vec2(size.framebuffer) / glm::max(glm::vec2(size.window), 1.0f);
  const glm::vec2 window(size.window);
  float left = state_.show_panels ? controlsPanelWidth() : 0.0f;
  float right = state_.show_panels ? statsPanelWidth() : 0.0f;
  stats_docked_ = true;
  if (window.x - left - right < kMinViewWidth) {
    right = 0.0f;
    stats_docked_ = false;
  }
  if (window.x - left < kMinViewWidth) left = 0.0f;
  viewport_ =
      Viewport{left, 0.0f, std::max(1.0f, window.x - left - right), std::max(1.0f, window.y)};
}

// [SECTION] requests from panels, keys and drops

void GuiApp::apply(const PanelRequests& requests) {
  if (requests.load) loadScene(*requests.load);
  if (requests.reset) {
    if (Status s = session_->reset(); !s) showMessage(s.message(), true);
    input_.cancel();
  }
  if (requests.solver_changed) session_->setSolver(state_.solver);
  if (requests.time_changed) session_->setTime(state_.time);
  if (requests.material_changed) session_->setMaterial(state_.material);
  if (requests.backend_changed) {
    if (Status s = session_->setBackend(state_.backend); !s) {
      state_.backend_error = s.message();
      state_.backend = std::string(session_->backend().name());
    } else {
      state_.backend_error.clear();
    }
  }
  if (requests.step) {
    // stepping pauses: the user wants to look at each solve
    state_.paused = true;
    session_->setPaused(true);
    session_->requestStep();
  } else if (requests.pause_changed) {
    session_->setPaused(state_.paused);
  }
  if (requests.reset_view) resetView();
  if (requests.screenshot) screenshot_requested_ = true;
}

void GuiApp::loadScene(const SceneOptions& options) {
  const std::string backend = std::string(session_->backend().name());
  if (Status s = session_->load(options, backend, state_.solver, state_.time); !s) {
    state_.scene_error = s.message();
    state_.scene = kindOf(session_->sceneOptions());
    showMessage(s.message(), true);
    return;
  }
  state_.scene_error.clear();
  sceneLoaded();
  spdlog::info("loaded {}: {} particles, {} springs", session_->scene().name,
               session_->model().particleCount(), session_->model().springCount());
}

void GuiApp::sceneLoaded() {
  input_.cancel();
  if (Status s = renderer_.setScene(session_->scene()); !s) showMessage(s.message(), true);
  writer_ = makeVisualWriter(session_->backend(), &renderer_);
  writer_backend_ = &session_->backend();
  state_.scene = kindOf(session_->sceneOptions());
  state_.material = session_->material();
  state_.pull = defaultPull(session_->pullScale());
  view_framed_ = false;
  updateTitle();
}

// [SECTION] input

void GuiApp::hints(PanelFacts* facts) const {
  const PickTargets targets = pickTargets();
  if (input_.pulling()) {
    // the rubber band: from the held particle as drawn to the cursor's target
    const size_t held = size_t(input_.pull().particle);
    if (held < targets.positions.size()) {
      facts->pull_from = projectToPixel(camera_, viewport_, targets.positions[held]);
      facts->pull_to = projectToPixel(camera_, viewport_, input_.pull().target);
    }
    return;
  }
  // the particle a press would take, when the cursor is free over the view
  if (input_.busy() || window_->uiWantsMouse() || !viewport_.contains(cursor_)) return;
  const int64_t particle = InputController::pick(cursor_, targets, camera_, viewport_);
  if (particle >= 0) {
    facts->hover = projectToPixel(camera_, viewport_, targets.positions[size_t(particle)]);
  }
}

PickTargets GuiApp::pickTargets() const {
  PickTargets targets;
  targets.positions = writer_->hostPositions();
  if (targets.positions.size() != session_->model().particleCount()) {
    targets.positions = session_->state().x;
  }
  targets.pinned = session_->model().pinned;
  targets.radius = renderer_.figureBallRadius();
  targets.axis_particle = session_->isOscillator() ? session_->drivenParticle() : -1;
  return targets;
}

void GuiApp::onMouseButton(MouseButton button, bool pressed, const glm::vec2& pixel) {
  cursor_ = pixel;
  if (!pressed) {
    input_.release(button);  // always: a drag may end over a panel
    return;
  }
  if (window_->uiWantsMouse() || !viewport_.contains(pixel)) return;
  input_.press(button, pixel, pickTargets(), camera_, viewport_);
}

void GuiApp::onCursor(const glm::vec2& pixel) {
  cursor_ = pixel;
  input_.move(pixel, &camera_, viewport_);
}

void GuiApp::onScroll(float steps) {
  if (window_->uiWantsMouse() || !viewport_.contains(cursor_)) return;
  input_.scroll(steps, &camera_, viewport_);
}

void GuiApp::onKey(Key key) {
  if (window_->uiWantsKeyboard()) return;
  switch (commandForKey(key)) {
    case KeyCommand::kNone:
      return;
    case KeyCommand::kTogglePause:
      state_.paused = !state_.paused;
      pending_.pause_changed = true;
      return;
    case KeyCommand::kSingleStep:
      pending_.step = true;
      return;
    case KeyCommand::kReset:
      pending_.reset = true;
      return;
    case KeyCommand::kSceneCloth:
    case KeyCommand::kSceneVolume:
    case KeyCommand::kSceneSpring1d: {
      const KeyCommand command = commandForKey(key);
      state_.scene = command == KeyCommand::kSceneCloth    ? SceneKind::kCloth
                     : command == KeyCommand::kSceneVolume ? SceneKind::kVolume
                                                           : SceneKind::kSpring1d;
      pending_.load = sceneOptionsFor(state_);
      return;
    }
    case KeyCommand::kResetView:
      pending_.reset_view = true;
      return;
    case KeyCommand::kTogglePanels:
      state_.show_panels = !state_.show_panels;
      return;
    case KeyCommand::kScreenshot:
      screenshot_requested_ = true;
      return;
  }
}

void GuiApp::onDrop(const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  state_.scene = SceneKind::kFile;
  const std::string& path = paths.front();
  const size_t n = std::min(path.size(), sizeof state_.file_path - 1);
  std::copy_n(path.data(), n, state_.file_path);
  state_.file_path[n] = '\0';
  pending_.load = sceneOptionsFor(state_);
}

// [SECTION] view, screenshots, messages

void GuiApp::resetView() {
  // the body as drawn, plus room below it to sag into under gravity: a flat sheet (the cloth)
  // hangs by about its width, a solid sags a little
  Bounds bounds = renderer_.bounds();
  if (bounds.empty()) return;
  const glm::vec3 size = bounds.size();
  const float widest = std::max(size.x, size.z);
  const bool flat = std::min({size.x, size.y, size.z}) < 0.01f * std::max({size.x, size.y, size.z});
  bounds.add(bounds.min - glm::vec3(0.0f, flat ? widest : 0.3f * widest, 0.0f));
  camera_.yaw_degrees = OrbitCamera::kDefaultYawDegrees;
  camera_.pitch_degrees = OrbitCamera::kDefaultPitchDegrees;
  camera_.frame(bounds, viewport_.aspect(), 0.75f);
}

void GuiApp::saveScreenshot() {
  screenshot_requested_ = false;
  const glm::ivec2 size = window_->framebufferSize();
  Image image;
  std::string png;
  if (Status s = readBackBuffer(size.x, size.y, &image); !s) return showMessage(s.message(), true);
  if (Status s = encodePng(image, &png); !s) return showMessage(s.message(), true);

  // hooke-YYYYMMDD-HHMMSS.png in the working directory, never over an existing file
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  std::string path = std::string("hooke-") + stamp + ".png";
  for (int i = 2; std::filesystem::exists(path) && i < 100; ++i) {
    path = std::string("hooke-") + stamp + "-" + std::to_string(i) + ".png";
  }
  AtomicFile file;
  Status s = file.open(path);
  if (s) {
    file.stream().write(png.data(), std::streamsize(png.size()));
    s = file.commit();
  }
  if (!s) return showMessage("screenshot not saved: " + s.message(), true);
  spdlog::info("screenshot saved: {}", path);
  showMessage("screenshot saved: " + path);
}

void GuiApp::showMessage(const std::string& text, bool error) {
  state_.message = text;
  state_.message_is_error = error;
  state_.message_until = wall_seconds_ + kMessageSeconds;
  if (error) spdlog::warn("{}", text);
}

void GuiApp::updateTitle() {
  const Model& model = session_->model();
  window_->setTitle("hooke - " + session_->scene().name + " (" +
                    std::to_string(model.particleCount()) + " particles, " +
                    std::to_string(model.springCount()) + " springs)");
}

}  // namespace hooke
