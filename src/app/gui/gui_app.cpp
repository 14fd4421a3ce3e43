// One window's app: the frame (simulate, lay out, draw, capture), the panels' requests, mouse and
// key handling, scene loading and screenshots.
//
// [SECTION] set-up
// [SECTION] the frame
// [SECTION] requests from panels, keys and drops
// [SECTION] side by side
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
#include "app/gui/compare_view.h"
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
    : window_(window), session_(std::move(session)), state_(state), compare_(session_.get()) {
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
  chooseWriter();
  updateTitle();
  if (state_.compare.enabled) setCompare(state_.compare);
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
  compare_.setPull(input_.pull(), state_.pull);  // both sessions, when comparing
  const bool running = !session_->paused() && !session_->divergedAt() && !session_->backendError();
  const FrameAdvance advanced = compare_.advance(wall_seconds);
  frames_.addFrame(wall_seconds, advanced.sim_seconds, running);
  if (!session_->notice().empty()) {
    showMessage(session_->notice(), true);
    session_->clearNotice();
    if (session_->backendSwitch()) state_.backend = std::string(session_->backend().name());
  }
  state_.paused = session_->paused();  // a divergence pauses the session

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
  facts.compare = compare_.active() ? &compare_ : nullptr;
  drawPanels(state_, facts, &requests);
  drawSweepPanel(sweep_ui_, sweep_job_, state_, facts, &requests);
  compareLabels(state_, facts, split() ? views_[0] : viewport_, views_[1]);
  apply(requests);

  // the scene: visual state into the vertex buffer (a new backend may want another writer), then
  // drawn beside the panels
  if (&session_->backend() != writer_backend_) chooseWriter();
  if (Status s = writer_->write(session_->backend(), session_->alpha(), &renderer_); !s) {
    // the device write failed: the host upload always works (the backend copies out)
    showMessage(std::string(writer_->name()) + " failed, using the host upload: " + s.message(),
                true);
    writer_.reset();
    writer_ = std::make_unique<HostUploadWriter>();
    (void)writer_->write(session_->backend(), session_->alpha(), &renderer_);
  }
  // a view in window units -> its framebuffer rectangle (GL's y-up) in the draw options
  auto place = [&](const Viewport& view, DrawOptions* options) {
    const int width = std::max(1, int(std::lround(view.width * framebuffer_scale_.x)));
    const int height = std::max(1, int(std::lround(view.height * framebuffer_scale_.y)));
    options->viewport_x = int(std::lround(view.x * framebuffer_scale_.x));
    options->viewport_y =
        size.framebuffer.y - int(std::lround(view.y * framebuffer_scale_.y)) - height;
    return glm::ivec2(width, height);
  };
  DrawOptions draw = state_.draw;
  const glm::ivec2 first = place(split() ? views_[0] : viewport_, &draw);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  Status drawn = renderer_.draw(camera_, first.x, first.y, draw);
  if (drawn && compare_.active()) {
    // the second session: in the right view, or as a ghost over the first
    DrawOptions second = state_.draw;
    const glm::ivec2 area = place(split() ? views_[1] : viewport_, &second);
    drawn = drawSecond(second, area.x, area.y);
  }
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
  const float half = std::floor(0.5f * viewport_.width);
  views_[0] = Viewport{viewport_.x, viewport_.y, std::max(1.0f, half), viewport_.height};
  views_[1] = Viewport{viewport_.x + half, viewport_.y, std::max(1.0f, viewport_.width - half),
                       viewport_.height};
}

// [SECTION] requests from panels, keys and drops

void GuiApp::apply(const PanelRequests& requests) {
  if (requests.load) loadScene(*requests.load);
  if (requests.reset) {
    dropGhostWriter();
    if (Status s = compare_.reset(); !s) showMessage(s.message(), true);
    state_.compare.enabled = compare_.active();
    input_.cancel();
  }
  if (requests.revert) {
    if (Status s = compare_.revertToLastFinite(); !s) {
      showMessage(s.message(), true);
    } else {
      state_.paused = true;
      showMessage("back to the last finite state; paused");
    }
    input_.cancel();
  }
  if (requests.solver_changed) compare_.setSolver(state_.solver);
  if (requests.time_changed) compare_.setTime(state_.time);
  if (requests.material_changed) compare_.setMaterial(state_.material);
  if (requests.backend_changed) {
    const bool comparing = compare_.active();
    Status s = compare_.setBackend(state_.backend);
    if (comparing && !compare_.active()) {
      // the primary switched; the second could not follow
      dropGhostWriter();
      state_.compare.enabled = false;
      showMessage(s.message(), true);
      s = Status::ok();
    }
    if (!s) {
      state_.backend_error = s.message();
      state_.backend = std::string(session_->backend().name());
    } else {
      state_.backend_error.clear();
    }
  }
  if (requests.step) {
    // stepping pauses: the user wants to look at each solve
    state_.paused = true;
    compare_.setPaused(true);
    compare_.requestStep();
  } else if (requests.pause_changed) {
    compare_.setPaused(state_.paused);
  }
  if (requests.compare_changed) setCompare(state_.compare);
  if (requests.reset_view) resetView();
  if (requests.screenshot) screenshot_requested_ = true;
}

void GuiApp::loadScene(const SceneOptions& options) {
  const std::string backend = std::string(session_->backend().name());
  const bool comparing = compare_.active();
  dropGhostWriter();
  Status loaded = compare_.load(options, backend, state_.solver, state_.time);
  ghost_scene_stale_ = true;
  if (comparing && !compare_.active()) {
    // the scene loaded; the second session could not take it
    state_.compare.enabled = false;
    showMessage(loaded.message(), true);
    loaded = Status::ok();
  }
  if (Status s = loaded; !s) {
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

// The vertex writer for the session's backend: CUDA–GL interop for a CUDA backend, else the
// host upload (the old writer goes first: both would register the same buffer).
void GuiApp::chooseWriter() {
  writer_.reset();
  std::string why_host;
  writer_ = makeVisualWriter(session_->backend(), &renderer_, &why_host);
  writer_backend_ = &session_->backend();
  if (!why_host.empty()) spdlog::warn("CUDA-GL interop not used: {}", why_host);
  spdlog::info("visual path: {}", writer_->name());
}

// [SECTION] side by side

void GuiApp::setCompare(const CompareSettings& settings) {
  const bool was_split = split();
  state_.compare = settings;
  if (!settings.enabled) {
    if (compare_.active()) {
      dropGhostWriter();
      compare_.stop();
    }
  } else if (!compare_.active()) {
    dropGhostWriter();
    if (Status s = compare_.start(settings.integrator); !s) {
      state_.compare.enabled = false;
      showMessage(s.message(), true);
    } else {
      ghost_scene_stale_ = true;
      input_.cancel();
    }
  } else if (settings.integrator != compare_.integrator()) {
    if (Status s = compare_.setIntegrator(settings.integrator); !s) {
      state_.compare.integrator = compare_.integrator();
      showMessage(s.message(), true);
    }
  }
  if (split() != was_split) view_framed_ = false;  // the body framed for the new view's shape
}

void GuiApp::dropGhostWriter() {
  ghost_writer_.reset();
  ghost_writer_backend_ = nullptr;
}

Status GuiApp::drawSecond(const DrawOptions& placed, int width, int height) {
  SimSession& second = *compare_.second();
  if (!ghost_ready_) {
    if (Status s = ghost_renderer_.init(); !s) return s;
    ghost_ready_ = true;
  }
  if (ghost_scene_stale_) {
    dropGhostWriter();  // a writer may be registered on the buffer setScene replaces
    if (Status s = ghost_renderer_.setScene(second.scene()); !s) return s;
    ghost_scene_stale_ = false;
  }
  if (!ghost_writer_ || &second.backend() != ghost_writer_backend_) {
    dropGhostWriter();
    std::string why_host;
    ghost_writer_ = makeVisualWriter(second.backend(), &ghost_renderer_, &why_host);
    ghost_writer_backend_ = &second.backend();
  }
  if (Status s = ghost_writer_->write(second.backend(), second.alpha(), &ghost_renderer_); !s) {
    dropGhostWriter();
    ghost_writer_ = std::make_unique<HostUploadWriter>();
    ghost_writer_backend_ = &second.backend();
    (void)ghost_writer_->write(second.backend(), second.alpha(), &ghost_renderer_);
  }
  DrawOptions options = placed;
  if (split()) {
    options.clear_whole_framebuffer = false;  // keep the left view
  } else {
    options.overlay = true;
    options.opacity = kGhostOpacity;
    options.tint_amount = kGhostTintAmount;
  }
  return ghost_renderer_.draw(camera_, width, height, options);
}

void GuiApp::sceneLoaded() {
  input_.cancel();
  writer_.reset();  // an interop writer is registered on the vertex buffer setScene replaces
  if (Status s = renderer_.setScene(session_->scene()); !s) showMessage(s.message(), true);
  chooseWriter();
  state_.scene = kindOf(session_->sceneOptions());
  state_.material = session_->material();
  state_.pull = defaultPull(session_->pullScale());
  view_framed_ = false;
  updateTitle();
}

// [SECTION] input

void GuiApp::hints(PanelFacts* facts) const {
  // the view the cursor (or the drag in progress) is in: one of two when split
  const Viewport& view = input_.busy() ? input_view_ : viewAt(cursor_);
  const bool second = input_.busy() ? input_second_ : split() && &view == &views_[1];
  const PickTargets targets = pickTargets(second);
  if (input_.pulling()) {
    // the rubber band: from the held particle as drawn to the cursor's target
    const size_t held = size_t(input_.pull().particle);
    if (held < targets.positions.size()) {
      facts->pull_from = projectToPixel(camera_, view, targets.positions[held]);
      facts->pull_to = projectToPixel(camera_, view, input_.pull().target);
    }
    return;
  }
  // the particle a press would take, when the cursor is free over the view
  if (input_.busy() || window_->uiWantsMouse() || !viewport_.contains(cursor_)) return;
  const int64_t particle = InputController::pick(cursor_, targets, camera_, view);
  if (particle >= 0) {
    facts->hover = projectToPixel(camera_, view, targets.positions[size_t(particle)]);
  }
}

PickTargets GuiApp::pickTargets(bool second) const {
  // the body under the cursor: the second session's in the right view of a split
  const bool other = second && compare_.second() && ghost_writer_;
  const SimSession& session = other ? *compare_.second() : *session_;
  PickTargets targets;
  targets.positions = (other ? ghost_writer_ : writer_)->hostPositions();
  if (targets.positions.size() != session.model().particleCount()) {
    targets.positions = session.state().x;
  }
  targets.pinned = session.model().pinned;
  targets.radius = (other ? ghost_renderer_ : renderer_).figureBallRadius();
  targets.axis_particle = session.isOscillator() ? session.drivenParticle() : -1;
  return targets;
}

bool GuiApp::split() const {
  return compare_.active() && state_.compare.view == CompareView::kSplit;
}

const Viewport& GuiApp::viewAt(const glm::vec2& pixel) const {
  if (!split()) return viewport_;
  return views_[1].contains(pixel) ? views_[1] : views_[0];
}

void GuiApp::onMouseButton(MouseButton button, bool pressed, const glm::vec2& pixel) {
  cursor_ = pixel;
  if (!pressed) {
    input_.release(button);  // always: a drag may end over a panel
    return;
  }
  if (window_->uiWantsMouse() || !viewport_.contains(pixel)) return;
  input_view_ = viewAt(pixel);
  input_second_ = split() && &viewAt(pixel) == &views_[1];
  input_.press(button, pixel, pickTargets(input_second_), camera_, input_view_);
}

void GuiApp::onCursor(const glm::vec2& pixel) {
  cursor_ = pixel;
  input_.move(pixel, &camera_, input_.busy() ? input_view_ : viewAt(pixel));
}

void GuiApp::onScroll(float steps) {
  if (window_->uiWantsMouse() || !viewport_.contains(cursor_)) return;
  input_.scroll(steps, &camera_, input_.busy() ? input_view_ : viewAt(cursor_));
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
  camera_.frame(bounds, (split() ? views_[0] : viewport_).aspect(), 0.75f);
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
