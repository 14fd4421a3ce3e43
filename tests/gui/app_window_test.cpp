// Tests of the desktop app in a real window (label gl): `hooke --exit-after` for each scene writes
// a screenshot showing the body and the panels and a report with `hooke run`'s keys; bad input and
// a missing display end with one line and no files; in-process, resizes and a minimised (zero-size)
// framebuffer cause no GL errors, and a scripted drag through the app's mouse handlers moves the
// spring1d mass. The display is a private Xvfb (xvfb_display.h); without one the tests skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#include <stb_image.h>

#include "app/gui/gui_app.h"
#include "app/gui/gui_window.h"
#include "cli/hooke_process.h"
#include "gui/app_window_fixture.h"
#include "gui/xvfb_display.h"
#include "render/gl_debug.h"

namespace hooke {
namespace {

using testing::lineCount;
using testing::readAll;
using testing::runHooke;
using testing::ScratchDir;

// [SECTION] helpers

// The app restores and saves the user's settings: every run from here gets an empty config
// directory of its own (and the runs that exit normally say --no-settings), so no test reads or
// writes the real ~/.config/hooke.
class PrivateConfigHome : public ::testing::Environment {
 public:
  void SetUp() override { ::setenv("XDG_CONFIG_HOME", dir_.path().c_str(), 1); }

 private:
  ScratchDir dir_;
};
::testing::Environment* const kPrivateConfigHome =
    ::testing::AddGlobalTestEnvironment(new PrivateConfigHome);

class WithDisplay : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::XvfbDisplay::ensure(&why)) GTEST_SKIP() << why;
  }
};

struct Decoded {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(int x, int y) const { return &rgb[(size_t(y) * width + x) * 3]; }
};

Decoded decodePng(const std::filesystem::path& path) {
  Decoded image;
  int channels = 0;
  stbi_uc* data = stbi_load(path.string().c_str(), &image.width, &image.height, &channels, 3);
  if (data) {
    image.rgb.assign(data, data + size_t(image.width) * image.height * 3);
    stbi_image_free(data);
  }
  return image;
}

// fraction of pixels in [x0, x1) x [y0, y1) that pass `test`
template <typename Test>
double fraction(const Decoded& image, int x0, int y0, int x1, int y1, Test test) {
  size_t hits = 0, all = 0;
  for (int y = y0; y < y1; ++y) {
    for (int x = x0; x < x1; ++x, ++all)
      hits += test(image.at(x, y)) ? 1 : 0;
  }
  return all ? double(hits) / double(all) : 0.0;
}

bool dark(const uint8_t* p) {
  return p[0] < 70 && p[1] < 70 && p[2] < 80;
}

std::set<std::string> keysOf(const nlohmann::json& object) {
  std::set<std::string> keys;
  for (auto it = object.begin(); it != object.end(); ++it)
    keys.insert(it.key());
  return keys;
}

// [SECTION] hooke --exit-after, as a script runs it

struct SceneCase {
  std::string args;
  bool (*body)(const uint8_t*);  // a pixel of the body's colour
  double min_body;               // its share of the 3D view
};

void PrintTo(const SceneCase& c, std::ostream* out) {
  *out << c.args;
}

class LaunchedApp : public WithDisplay, public ::testing::WithParamInterface<SceneCase> {};

TEST_P(LaunchedApp, ScreenshotShowsTheBodyAndPanelsAndTheReportIsWritten) {
  ScratchDir dir;
  const auto shot = dir / "s.png";
  const auto report = dir / "r.json";
  auto r = runHooke(GetParam().args + " --no-settings --exit-after 1.5 --screenshot '" +
                    shot.string() + "' --report '" + report.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("OpenGL error"), std::string::npos) << r.err;

  // a valid PNG of the window (1280 x 800 at scale 1)
  const std::string bytes = readAll(shot);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  const Decoded image = decodePng(shot);
  ASSERT_EQ(image.width, 1280);
  ASSERT_EQ(image.height, 800);

  // the panels: dark, on the left and on the right; the 3D view between them shows the body
  EXPECT_GT(fraction(image, 20, 100, 300, 700, dark), 0.6);
  EXPECT_GT(fraction(image, 990, 100, 1260, 700, dark), 0.5);
  const double body = fraction(image, 340, 40, 950, 790, GetParam().body);
  EXPECT_GT(body, GetParam().min_body) << GetParam().args;
  // the background gradient is there too (not a blank or black frame)
  EXPECT_GT(fraction(image, 340, 40, 950, 790,
                     [](const uint8_t* p) { return p[2] > 150 && p[2] >= p[0]; }),
            0.2);

  // the report: time has passed and there were solves, frames and no GL error; the keys are
  // `hooke run`'s and the app's own two (frames drawn, GL errors)
  const nlohmann::json json = nlohmann::json::parse(readAll(report));
  EXPECT_GT(json["sim_time"].get<double>(), 0.0);
  EXPECT_GT(json["solves"].get<int64_t>(), 0);
  EXPECT_FALSE(json["diverged"].get<bool>());
  EXPECT_GT(json["frames"].get<int64_t>(), 1);
  EXPECT_EQ(json["gl_errors"], 0);
  const auto run_report = dir / "run.json";
  auto run = runHooke("run --scene spring1d --steps 3 --report '" + run_report.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::set<std::string> run_keys = keysOf(nlohmann::json::parse(readAll(run_report)));
  run_keys.insert({"frames", "gl_errors"});
  EXPECT_EQ(keysOf(json), run_keys);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 3);
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, LaunchedApp,
    ::testing::Values(
        SceneCase{"--scene cloth --res 16",
                  [](const uint8_t* p) { return p[0] > 150 && p[1] < 130 && p[2] < 120; }, 0.02},
        SceneCase{"--scene spring1d",
                  [](const uint8_t* p) { return p[0] > 150 && p[1] < 110 && p[2] < 110; }, 0.004},
        SceneCase{"--scene volume",
                  [](const uint8_t* p) { return p[2] > 150 && p[0] < 110 && p[1] < 200; }, 0.02}),
    [](const ::testing::TestParamInfo<SceneCase>& info) {
      return std::string(info.index == 0 ? "cloth" : info.index == 1 ? "spring1d" : "volume");
    });

// [SECTION] bad input and no display: one line, exit 2, no window, no files

TEST(AppCommandLine, BadInputEndsWithOneLineAndNoFiles) {
  ScratchDir dir;
  struct Case {
    std::string args, expected;
  };
  for (const Case& c : std::vector<Case>{
           {"--dt -1", "--dt"},
           {"--exit-after 0", "--exit-after"},
           {"--exit-after nan", "--exit-after"},
           {"--integrator sideways", "--integrator"},
           {"--skip twice", "--skip"},
           {"--scene nowhere.json", "nowhere.json"},
           {"--scene cloth --res 1", "--res"},
           {"--stiffness -4", "--stiffness"},
           {"--width 10", "--width"},
           {"--screenshot out.jpg", "--screenshot"},
           {"--report /no/such/dir/r.json", "/no/such/dir"},
           {"--frobnicate", "frobnicate"},
       }) {
    // every run asks for both outputs (the case's own flag replaces the default one)
    std::string args = c.args;
    if (args.find("--exit-after") == std::string::npos) args += " --exit-after 5";
    if (args.find("--screenshot") == std::string::npos) {
      args += " --screenshot '" + (dir / "s.png").string() + "'";
    }
    if (args.find("--report") == std::string::npos) {
      args += " --report '" + (dir / "r.json").string() + "'";
    }
    auto r = runHooke(args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_EQ(lineCount(r.err), 1) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 0) << c.args;
  }
}

TEST(AppCommandLine, NoDisplaySaysSoAndPointsAtRender) {
  ScratchDir dir;
  auto r = runHooke("--exit-after 1 --report '" + (dir / "r.json").string() + "'",
                    "DISPLAY= WAYLAND_DISPLAY=");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("display"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hooke render"), std::string::npos) << r.err;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 0);
}

TEST(AppCommandLine, SubcommandsAreUnchangedAndRejectAppOptions) {
  auto r = runHooke("run --scene spring1d --steps 3");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = runHooke("--scene cloth run --steps 3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--scene"), std::string::npos) << r.err;
}

// [SECTION] in-process: resize, minimise, a scripted drag

class AppInWindow : public testing::AppWindowTest {
 protected:
  void open(const std::string& scene) {
    SceneOptions scene_options;
    scene_options.scene = scene;
    openApp(scene_options, TimeSettings{}, PanelState{}, 1280, 800);
  }
  // resizes and waits until the server has done it
  void resize(int width, int height) {
    window_->setSize(width, height);
    for (int i = 0; i < 200 && window_->windowSize() != glm::ivec2(width, height); ++i)
      window_->pollEvents(0.01);
    ASSERT_EQ(window_->windowSize(), glm::ivec2(width, height));
  }
};

TEST_F(AppInWindow, ResizeAndMinimiseCauseNoGlErrors) {
  open("cloth");
  if (HasFatalFailure() || IsSkipped()) return;
  frames(5);
  for (glm::ivec2 size : {glm::ivec2(640, 480), glm::ivec2(1600, 1000), glm::ivec2(300, 900),
                          glm::ivec2(1280, 800)}) {
    resize(size.x, size.y);
    frames(3);
    Image image;
    ASSERT_TRUE(app_->frame(app_->currentSize(), 1.0 / 60.0, &image).isOk());
    EXPECT_EQ(image.width, window_->framebufferSize().x);
    EXPECT_EQ(image.height, window_->framebufferSize().y);
  }

  // minimised: a zero-size framebuffer simulates, draws nothing and cannot be captured
  const double t = app_->session().simTime();
  for (int i = 0; i < 30; ++i)
    ASSERT_TRUE(app_->frame(FrameSize{}, 1.0 / 60.0).isOk());
  EXPECT_GT(app_->session().simTime(), t);
  Image image;
  EXPECT_FALSE(app_->frame(FrameSize{}, 1.0 / 60.0, &image).isOk());
  frames(3);  // and back
  EXPECT_EQ(app_->glErrors(), 0);
  Status clean = checkGl("after the test");
  EXPECT_TRUE(clean.isOk()) << clean.message();
}

TEST_F(AppInWindow, ScriptedDragThroughTheMouseHandlersMovesTheMass) {
  open("spring1d");
  if (HasFatalFailure() || IsSkipped()) return;
  frames(3);
  const glm::vec3 mass = app_->session().state().x[1];
  const std::optional<glm::vec2> ball = projectToPixel(app_->camera(), app_->viewport(), mass);
  ASSERT_TRUE(ball.has_value());

  // the real cursor goes there too, so Dear ImGui knows the mouse is over the 3D view
  glfwSetCursorPos(window_->handle(), ball->x, ball->y);
  frames(2);
  app_->onCursor(*ball);
  app_->onMouseButton(MouseButton::kLeft, true, *ball);
  ASSERT_TRUE(app_->input().pulling());
  const glm::vec2 up = *ball - glm::vec2(0.0f, 120.0f);
  glfwSetCursorPos(window_->handle(), up.x, up.y);
  app_->onCursor(up);
  const float target = app_->input().pull().target.y;
  EXPECT_GT(target, mass.y + 0.2f);
  frames(90);
  const float held = app_->session().state().x[1].y;
  EXPECT_GT(held, mass.y + 0.5f * (target - mass.y));

  // released, it falls back past its rest height and swings
  app_->onMouseButton(MouseButton::kLeft, false, up);
  EXPECT_FALSE(app_->input().pulling());
  float lowest = held;
  for (int i = 0; i < 60; ++i) {
    frames(1);
    lowest = std::min(lowest, app_->session().state().x[1].y);
  }
  EXPECT_LT(lowest, held - 0.2f);
  EXPECT_EQ(app_->glErrors(), 0);
}

TEST_F(AppInWindow, KeysPauseStepResetSwitchScenesAndSaveScreenshots) {
  open("cloth");
  if (HasFatalFailure() || IsSkipped()) return;
  frames(3);

  // Space pauses: time stands still; S steps one solve interval; R resets
  app_->onKey(Key::kSpace);
  frames(1);
  const double paused_at = app_->session().simTime();
  const int64_t solves = app_->session().solves();
  frames(5);
  EXPECT_EQ(app_->session().simTime(), paused_at);
  app_->onKey(Key::kS);
  frames(1);
  EXPECT_EQ(app_->session().solves(), solves + 1);
  EXPECT_FLOAT_EQ(app_->session().alpha(), 1.0f);
  EXPECT_GT(app_->session().simTime(), paused_at);
  app_->onKey(Key::kR);
  frames(1);
  EXPECT_EQ(app_->session().simTime(), 0.0);

  // 3 loads spring1d, 2 the volume
  app_->onKey(Key::k3);
  frames(1);
  EXPECT_EQ(app_->session().scene().name, "spring1d");
  app_->onKey(Key::k2);
  frames(1);
  EXPECT_EQ(app_->session().scene().name, "volume");

  // F12 writes hooke-<time>.png into the working directory
  ScratchDir dir;
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  app_->onKey(Key::kF12);
  frames(1);
  std::filesystem::current_path(before);
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    files.push_back(entry.path());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename().string().rfind("hooke-", 0), 0u) << files[0];
  EXPECT_EQ(files[0].extension(), ".png");
  const Decoded shot = decodePng(files[0]);
  EXPECT_EQ(shot.width, window_->framebufferSize().x);
  EXPECT_EQ(app_->glErrors(), 0);
}

}  // namespace
}  // namespace hooke
