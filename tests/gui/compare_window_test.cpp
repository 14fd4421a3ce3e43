// Tests of the Sweep panel and side-by-side comparison in a real window (label gl): with the
// sweep run from the panel's settings and the comparison on, a frame shows the heatmaps in
// `hooke sweep`'s colours, the cloth, and the second cloth as a ghost where the first is not, and
// a click on a stable cell runs both sessions at its dt and stiffness; in split mode each half
// shows its own body, and a drag in the right half pulls both sessions.
// The display is a private Xvfb (xvfb_display.h); without one the tests skip. With
// HOOKE_GUI_SCREENSHOT_DIR set, the frames are also written there as PNGs.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include "app/gui/gui_app.h"
#include "app/gui/gui_window.h"
#include "gui/app_window_fixture.h"
#include "gui/xvfb_display.h"
#include "render/gl_debug.h"

namespace hooke {
namespace {

// [SECTION] helpers

bool clothRed(const uint8_t* p) {
  return p[0] > 150 && p[1] < 130 && p[2] < 120;
}

bool near(const uint8_t* p, int r, int g, int b, int tolerance = 4) {
  return std::abs(p[0] - r) <= tolerance && std::abs(p[1] - g) <= tolerance &&
         std::abs(p[2] - b) <= tolerance;
}

template <typename Test>
size_t count(const Image& image, const Viewport& area, Test test) {
  size_t hits = 0;
  for (int y = int(area.y); y < int(area.y + area.height) && y < image.height; ++y) {
    for (int x = int(area.x); x < int(area.x + area.width) && x < image.width; ++x)
      hits += test(image.pixel(x, y)) ? 1 : 0;
  }
  return hits;
}

double areaOf(const Viewport& v) {
  return double(v.width) * double(v.height);
}

void saveIfAsked(const Image& image, const std::string& name) {
  const char* dir = std::getenv("HOOKE_GUI_SCREENSHOT_DIR");
  if (!dir || !*dir) return;
  std::string png;
  ASSERT_TRUE(encodePng(image, &png).isOk());
  std::ofstream out(std::filesystem::path(dir) / name, std::ios::binary);
  out.write(png.data(), std::streamsize(png.size()));
}

class CompareInWindow : public testing::AppWindowTest {
 protected:
  void open(const SceneOptions& scene, const TimeSettings& time, int width, int height) {
    PanelState state;
    state.time = time;
    openApp(scene, time, state, width, height);
  }
  Image capture() {
    Image image;
    window_->pollEvents();
    EXPECT_TRUE(app_->frame(app_->currentSize(), 1.0 / 60.0, &image).isOk());
    return image;
  }
  void setPaused(bool paused) {
    if (app_->panelState().paused != paused) app_->onKey(Key::kSpace);
    frames(1);
  }
};

// [SECTION] the Sweep panel with the ghost

TEST_F(CompareInWindow, SweepPanelAndGhostShowTheHeatmapsAndBothBodies) {
  // the cloth at k = 1e5 and h = 0.05 s: the linearised implicit Euler sinks slowly, BDF2 falls
  SceneOptions scene;
  scene.scene = "cloth";
  scene.res = 16;
  scene.stiffness = 1e5;
  TimeSettings time;
  time.dt = 0.05;
  time.auto_skip = false;
  time.manual_skip = 0;
  open(scene, time, 1440, 900);
  if (HasFatalFailure() || IsSkipped()) return;

  CompareSettings compare;
  compare.enabled = true;
  compare.integrator = Integrator::kBdf2;
  compare.view = CompareView::kOverlay;
  app_->setCompare(compare);
  ASSERT_TRUE(app_->compare().active());
  app_->showSweepPanel(true);
  frames(2);

  // the sweep as the panel's Run button starts it, on a grid small enough for a test
  SweepPanelState& ui = app_->sweepPanel();
  ui.fold_settings = true;  // as the Run button does
  for (bool& chosen : ui.integrators)
    chosen = false;
  ui.integrators[0] = ui.integrators[1] = ui.integrators[2] =
      true;  // explicit, symplectic, implicit
  ui.dt_min = 1e-3;
  ui.k_max = 1e6;
  ui.duration = 0.3f;
  ASSERT_TRUE(
      app_->sweepJob().start(sweepRequestFor(ui, app_->panelState(), app_->session())).isOk());
  setPaused(true);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (app_->sweepJob().busy() && std::chrono::steady_clock::now() < deadline)
    frames(1);  // the frame loop keeps running while the sweep does
  ASSERT_EQ(app_->sweepJob().phase(), SweepJob::Phase::kDone);
  const SweepJob::Snapshot snap = app_->sweepJob().snapshot();
  ASSERT_EQ(snap.cells.size(), 108u);  // 3 integrators x 6 x 6

  // both from the start again, 0.4 s in
  app_->onKey(Key::kR);
  setPaused(false);
  frames(23);
  setPaused(true);
  EXPECT_NEAR(app_->session().simTime(), 0.4, 0.051);
  EXPECT_EQ(app_->compare().second()->simTime(), app_->session().simTime());
  const Image with_ghost = capture();
  saveIfAsked(with_ghost, "sweep-panel.png");

  // the heatmaps in hooke sweep's colours: explicit Euler diverges somewhere on this grid,
  // implicit Euler is stable somewhere
  const Viewport whole{0.0f, 0.0f, float(with_ghost.width), float(with_ghost.height)};
  EXPECT_GT(count(with_ghost, whole, [](const uint8_t* p) { return near(p, 46, 160, 67); }), 500u);
  EXPECT_GT(count(with_ghost, whole, [](const uint8_t* p) { return near(p, 214, 39, 40); }), 500u);

  // the cloth in the view
  const Viewport view = app_->viewport();
  EXPECT_GT(double(count(with_ghost, view, clothRed)) / areaOf(view), 0.01);

  // the ghost: where the first cloth is not, the frame changes when the comparison goes away
  CompareSettings off = compare;
  off.enabled = false;
  app_->setCompare(off);
  EXPECT_FALSE(app_->compare().active());
  frames(1);
  const Image without = capture();
  size_t ghost_only = 0;
  for (int y = int(view.y); y < int(view.y + view.height); ++y) {
    for (int x = int(view.x); x < int(view.x + view.width); ++x) {
      const uint8_t* a = with_ghost.pixel(x, y);
      const uint8_t* b = without.pixel(x, y);
      const int diff = std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]);
      if (!clothRed(b) && diff > 40) ++ghost_only;
    }
  }
  EXPECT_GT(double(ghost_only) / areaOf(view), 0.005);
  EXPECT_EQ(app_->glErrors(), 0);
  Status clean = checkGl("after the test");
  EXPECT_TRUE(clean.isOk()) << clean.message();

  // the comparison alone, as the README shows it
  app_->showSweepPanel(false);
  app_->setCompare(compare);
  setPaused(false);
  frames(24);
  setPaused(true);
  saveIfAsked(capture(), "compare.png");

  // a click on the rightmost stable cell (implicit's heatmap is the last) loads that cell
  app_->showSweepPanel(true);
  frames(1);
  const Image panel = capture();
  glm::ivec2 green(-1);
  for (int y = 0; y < panel.height; ++y) {
    for (int x = panel.width - 1; x > green.x; --x) {
      if (near(panel.pixel(x, y), 46, 160, 67)) green = glm::ivec2(x, y);
    }
  }
  ASSERT_GE(green.x, 0);
  green += glm::ivec2(-3, 3);  // the top right corner of that cell -> inside it
  glfwSetCursorPos(window_->handle(), green.x, green.y);
  frames(2);
  const GLFWmousebuttonfun press = glfwSetMouseButtonCallback(window_->handle(), nullptr);
  glfwSetMouseButtonCallback(window_->handle(), press);
  ASSERT_NE(press, nullptr);
  press(window_->handle(), GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
  frames(1);
  press(window_->handle(), GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
  frames(1);
  const long long loaded = app_->sweepPanel().loaded_cell;
  ASSERT_GE(loaded, 0);
  const SweepCell cell = snap.cells[size_t(loaded)];
  EXPECT_EQ(cell.integrator, Integrator::kImplicit);
  EXPECT_EQ(snap.results[size_t(loaded)].status, CellStatus::kStable);
  EXPECT_EQ(app_->panelState().time.dt, cell.dt);
  EXPECT_EQ(app_->panelState().time.skip(), 0);
  EXPECT_EQ(app_->panelState().material.stiffness, float(cell.stiffness));
  // live from the next solves, no reset (a click on the empty view gives the keys back to the app)
  const double t = app_->session().simTime();
  const glm::vec2 empty(view.x + view.width - 30.0f, view.y + 0.45f * view.height);
  glfwSetCursorPos(window_->handle(), empty.x, empty.y);
  frames(1);
  press(window_->handle(), GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
  frames(1);
  press(window_->handle(), GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
  setPaused(false);
  frames(10);
  EXPECT_GT(app_->session().simTime(), t);
  EXPECT_DOUBLE_EQ(app_->session().h(), cell.dt);
  EXPECT_EQ(app_->session().material().stiffness, float(cell.stiffness));
  EXPECT_EQ(app_->compare().second()->material().stiffness, float(cell.stiffness));
  EXPECT_EQ(app_->glErrors(), 0);
}

// [SECTION] split views and the pull

// Explicit Euler beside implicit on a stiff cloth: the second run diverges and pauses while the
// first goes on; the Stats column turns the second's state red and offers its revert, which the
// frame loop carries out (both paused, the second finite again).
TEST_F(CompareInWindow, ADivergedSecondRunIsShownAndReverted) {
  SceneOptions scene;
  scene.scene = "cloth";
  scene.res = 12;
  scene.stiffness = 1e5;
  open(scene, TimeSettings{}, 1440, 900);
  if (HasFatalFailure() || IsSkipped()) return;
  CompareSettings compare;
  compare.enabled = true;
  compare.integrator = Integrator::kExplicit;
  app_->setCompare(compare);
  ASSERT_TRUE(app_->compare().active());
  frames(1);
  const Image before = capture();
  const Viewport view = app_->viewport();
  // the panels right of the view, where the Stats column is
  const Viewport stats{view.x + view.width, 0.0f, float(before.width) - (view.x + view.width),
                       float(before.height)};
  auto red = [](const uint8_t* p) { return near(p, 255, 115, 102, 24); };
  const size_t red_before = count(before, stats, red);

  SimSession& second = *app_->compare().second();
  for (int i = 0; i < 600 && !second.divergedAt(); ++i)
    frames(1);
  ASSERT_TRUE(second.divergedAt());
  EXPECT_FALSE(app_->session().divergedAt());
  EXPECT_FALSE(app_->session().paused());
  EXPECT_TRUE(second.paused());
  frames(2);
  const Image diverged = capture();
  saveIfAsked(diverged, "compare-diverged.png");
  EXPECT_GT(count(diverged, stats, red), red_before + 30);

  PanelRequests revert;  // the Stats column's button
  revert.revert = true;
  app_->apply(revert);
  frames(1);
  EXPECT_FALSE(second.divergedAt());
  EXPECT_TRUE(second.paused());
  EXPECT_TRUE(app_->session().paused());
  EXPECT_EQ(app_->glErrors(), 0);
}

TEST_F(CompareInWindow, SplitViewsShowBothBodiesAndADragPullsBoth) {
  SceneOptions scene;
  scene.scene = "spring1d";
  open(scene, TimeSettings{}, 1280, 800);
  if (HasFatalFailure() || IsSkipped()) return;
  CompareSettings compare;
  compare.enabled = true;
  compare.integrator = Integrator::kBdf2;
  compare.view = CompareView::kSplit;
  app_->setCompare(compare);
  frames(3);

  // each half of the view shows a red ball
  const Image image = capture();
  const Viewport view = app_->viewport();
  const Viewport left{view.x, view.y, 0.5f * view.width, view.height};
  const Viewport right{view.x + 0.5f * view.width, view.y, 0.5f * view.width, view.height};
  auto ball = [](const uint8_t* p) { return p[0] > 150 && p[1] < 110 && p[2] < 110; };
  EXPECT_GT(double(count(image, left, ball)) / areaOf(left), 0.004);
  EXPECT_GT(double(count(image, right, ball)) / areaOf(right), 0.004);

  // a drag on the right view's ball pulls the mass of both sessions up
  SimSession& first = app_->session();
  SimSession& second = *app_->compare().second();
  const glm::vec3 mass = second.state().x[1];
  const std::optional<glm::vec2> at = projectToPixel(app_->camera(), right, mass);
  ASSERT_TRUE(at.has_value());
  glfwSetCursorPos(window_->handle(), at->x, at->y);
  frames(2);
  app_->onCursor(*at);
  app_->onMouseButton(MouseButton::kLeft, true, *at);
  ASSERT_TRUE(app_->input().pulling());
  const glm::vec2 up = *at - glm::vec2(0.0f, 100.0f);
  glfwSetCursorPos(window_->handle(), up.x, up.y);
  app_->onCursor(up);
  frames(60);
  EXPECT_GT(first.state().x[1].y, mass.y + 0.2f);
  EXPECT_GT(second.state().x[1].y, mass.y + 0.2f);
  EXPECT_EQ(first.simTime(), second.simTime());
  app_->onMouseButton(MouseButton::kLeft, false, up);
  saveIfAsked(capture(), "compare-split.png");
  EXPECT_EQ(app_->glErrors(), 0);
}

}  // namespace
}  // namespace hooke
