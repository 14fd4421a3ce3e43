// Tests of app/gui/settings_store: a round trip keeps every value; a corrupt, truncated,
// wrong-typed or out-of-range file gives the defaults for what is bad (all of them when the file
// is not a JSON object) and one line of warning; a failed write leaves the previous file whole;
// the default path follows XDG_CONFIG_HOME, then HOME.
#include "app/gui/settings_store.h"

#include "app/gui/sweep_panel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace hooke {
namespace {

namespace fs = std::filesystem;

class SettingsFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hooke_settings_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static std::vector<std::string> names(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir))
      out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  fs::path dir_;
};

// settings unlike the defaults in every field
StoredSettings unusual() {
  StoredSettings s;
  s.scene = "/data/scenes/bunny.node";
  s.cloth_res = 64;
  s.volume_res = 20;
  s.backend = "cpu";
  s.solver.integrator = Integrator::kBdf2;
  s.solver.tolerance = 3e-6f;
  s.solver.max_iterations = 1234;
  s.solver.newton_tolerance = 5e-3f;
  s.solver.newton_max_iterations = 17;
  s.time.dt = 0.0025;
  s.time.auto_skip = false;
  s.time.manual_skip = 7;
  s.time.time_scale = 0.5;
  s.material = MaterialSettings{2500.0f, 1.5f, 0.75f, 3.7f, 0.02f};
  s.camera = CameraSettings{-120.0f, 45.0f, 7.5f, glm::vec3(0.25f, -1.0f, 3.0f)};
  s.window_width = 1600;
  s.window_height = 900;
  s.show_panels = false;
  s.draw_body = false;
  s.draw_springs = true;
  s.draw_particles = true;
  s.draw_ground = false;
  s.draw_shadow = false;
  s.strain_full_scale = 0.05f;
  s.compare_integrator = Integrator::kSymplectic;
  s.compare_view = CompareView::kSplit;
  s.sweep.integrators = {false, true, false, true, true};
  s.sweep.dt_min = 2e-4;
  s.sweep.dt_max = 0.05;
  s.sweep.k_min = 100.0;
  s.sweep.k_max = 5e6;
  s.sweep.dt_cells = 9;
  s.sweep.k_cells = 12;
  s.sweep.duration = 1.25f;
  return s;
}

TEST(SettingsStore, RoundTripKeepsEveryValue) {
  const StoredSettings s = unusual();
  ASSERT_NE(s, StoredSettings{});
  std::string warning = "stale";
  const StoredSettings back = parseSettings(settingsToJson(s), &warning);
  EXPECT_EQ(warning, "");
  EXPECT_EQ(back, s);
  // the defaults too (no material, no camera)
  EXPECT_EQ(parseSettings(settingsToJson(StoredSettings{}), &warning), StoredSettings{});
  EXPECT_EQ(warning, "");
}

TEST(SettingsStore, NotJsonOrNotAnObjectGivesTheDefaultsAndOneLine) {
  for (const std::string text :
       {std::string(""), std::string("{\"scene\": {\"name\": \"volume\""),  // truncated
        std::string("\x89PNG\r\n\x1a\n\0\0garbage", 17), std::string("[1, 2, 3]"),
        std::string("\"cloth\""), std::string("{\"time\": {\"dt\": 0.005}} trailing")}) {
    SCOPED_TRACE(text);
    std::string warning;
    EXPECT_EQ(parseSettings(text, &warning), StoredSettings{});
    EXPECT_FALSE(warning.empty());
    EXPECT_NE(warning.find("using the defaults"), std::string::npos) << warning;
    EXPECT_EQ(warning.find('\n'), std::string::npos) << warning;
  }
}

TEST(SettingsStore, BadFieldsFallBackOneByOneAndTheRestIsKept) {
  nlohmann::json j = nlohmann::json::parse(settingsToJson(unusual()));
  j["time"]["dt"] = -0.01;                 // out of range
  j["solver"]["max_iterations"] = "many";  // wrong type
  j["solver"]["integrator"] = "rk4";       // unknown
  j["window"]["width"] = 5;                // too small
  j["scene"]["cloth_res"] = 2.5;           // not an integer
  j["view"]["springs"] = 1;                // not a boolean
  j["backend"] = "opencl";                 // unknown
  j["camera"]["pitch"] = 95.0;             // the camera as a whole
  j["material"].erase("mass");             // the material as a whole
  j["frobnicate"] = {{"x", 1}};            // unknown keys are ignored
  std::string warning;
  const StoredSettings s = parseSettings(j.dump(), &warning);
  const StoredSettings d, u = unusual();

  EXPECT_EQ(s.time.dt, d.time.dt);
  EXPECT_EQ(s.solver.max_iterations, d.solver.max_iterations);
  EXPECT_EQ(s.solver.integrator, d.solver.integrator);
  EXPECT_EQ(s.window_width, d.window_width);
  EXPECT_EQ(s.cloth_res, d.cloth_res);
  EXPECT_EQ(s.draw_springs, d.draw_springs);
  EXPECT_EQ(s.backend, d.backend);
  EXPECT_FALSE(s.camera.has_value());
  EXPECT_FALSE(s.material.has_value());
  // the good ones survive
  EXPECT_EQ(s.scene, u.scene);
  EXPECT_EQ(s.volume_res, u.volume_res);
  EXPECT_EQ(s.time.manual_skip, u.time.manual_skip);
  EXPECT_EQ(s.time.time_scale, u.time.time_scale);
  EXPECT_EQ(s.solver.tolerance, u.solver.tolerance);
  EXPECT_EQ(s.window_height, u.window_height);
  EXPECT_EQ(s.draw_particles, u.draw_particles);

  // one line naming the first problems and counting the rest
  EXPECT_EQ(warning.find('\n'), std::string::npos) << warning;
  EXPECT_NE(warning.find("defaults used for"), std::string::npos) << warning;
  EXPECT_NE(warning.find("scene.cloth_res (not an integer)"), std::string::npos) << warning;
  EXPECT_NE(warning.find("more"), std::string::npos) << warning;
}

// The comparison and the Sweep panel: each field on its own, ranges as whole pairs.
TEST(SettingsStore, BadCompareAndSweepFieldsFallBackOneByOne) {
  nlohmann::json j = nlohmann::json::parse(settingsToJson(unusual()));
  j["compare"]["view"] = "mirror";                  // unknown
  j["sweep"]["dt"] = {0.05, 2e-4};                  // decreasing
  j["sweep"]["k_cells"] = 33;                       // above kMaxSweepCells
  j["sweep"]["integrators"] = {"implicit", "rk4"};  // an unknown name drops the list
  std::string warning;
  const StoredSettings s = parseSettings(j.dump(), &warning);
  const StoredSettings d, u = unusual();
  EXPECT_EQ(s.compare_view, d.compare_view);
  EXPECT_EQ(s.sweep.dt_min, d.sweep.dt_min);
  EXPECT_EQ(s.sweep.dt_max, d.sweep.dt_max);
  EXPECT_EQ(s.sweep.k_cells, d.sweep.k_cells);
  EXPECT_EQ(s.sweep.integrators, d.sweep.integrators);
  // the good ones survive
  EXPECT_EQ(s.compare_integrator, u.compare_integrator);
  EXPECT_EQ(s.sweep.k_min, u.sweep.k_min);
  EXPECT_EQ(s.sweep.k_max, u.sweep.k_max);
  EXPECT_EQ(s.sweep.dt_cells, u.sweep.dt_cells);
  EXPECT_EQ(s.sweep.duration, u.sweep.duration);
  EXPECT_NE(warning.find("compare.view (not overlay or split)"), std::string::npos) << warning;
  EXPECT_EQ(warning.find('\n'), std::string::npos) << warning;

  for (const char* text : {R"({"sweep": {"k": [0, 10]}})", R"({"sweep": {"k": [1, 1e13]}})",
                           R"({"sweep": {"dt": [1e-3]}})", R"({"sweep": {"duration": 0.01}})",
                           R"({"compare": {"integrator": "euler"}})", R"({"sweep": 3})"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(parseSettings(text, &warning), StoredSettings{});
    EXPECT_FALSE(warning.empty());
  }
  // an empty list is a choice (nothing ticked), not an error
  EXPECT_EQ(parseSettings(R"({"sweep": {"integrators": []}})", &warning).sweep.integrators,
            (std::array<bool, 5>{}));
  EXPECT_EQ(warning, "");
}

// With no settings file the Sweep panel starts as it always did.
TEST(SettingsStore, StoredSweepDefaultsAreThePanelsDefaults) {
  const StoredSweep stored;
  const SweepPanelState panel;
  EXPECT_TRUE(std::equal(stored.integrators.begin(), stored.integrators.end(),
                         std::begin(panel.integrators)));
  EXPECT_EQ(stored.dt_min, panel.dt_min);
  EXPECT_EQ(stored.dt_max, panel.dt_max);
  EXPECT_EQ(stored.k_min, panel.k_min);
  EXPECT_EQ(stored.k_max, panel.k_max);
  EXPECT_EQ(stored.dt_cells, panel.dt_cells);
  EXPECT_EQ(stored.k_cells, panel.k_cells);
  EXPECT_EQ(stored.duration, panel.duration);
  EXPECT_EQ(StoredSettings{}.compare_integrator, CompareSettings{}.integrator);
  EXPECT_EQ(StoredSettings{}.compare_view, CompareSettings{}.view);
}

TEST(SettingsStore, NonFiniteAndHugeNumbersAreRefused) {
  // JSON has no NaN or infinity; a number too large for a float or an int is out of range
  for (const char* text :
       {R"({"time": {"dt": 1e400}})", R"({"time": {"dt": 0}})",
        R"({"solver": {"max_iterations": 1e12}})", R"({"solver": {"tolerance": 1}})",
        R"({"material": {"stiffness": 1e39, "damping": 1, "mass": 1,
                               "gravity": 9.8, "drag": 0}})",
        R"({"material": {"stiffness": 1, "damping": 1, "mass": 0,
                               "gravity": 9.8, "drag": 0}})",
        R"({"camera": {"yaw": 1, "pitch": 1, "distance": 1,
                               "target": [0, 1]}})",
        R"({"time": {"time_scale": 100}})"}) {
    SCOPED_TRACE(text);
    std::string warning;
    EXPECT_EQ(parseSettings(text, &warning), StoredSettings{});
    EXPECT_FALSE(warning.empty());
  }
}

TEST(SettingsStore, APartialFileFillsTheRestWithDefaults) {
  std::string warning;
  const StoredSettings s = parseSettings(
      R"({"scene": {"name": "volume", "volume_res": 16}, "time": {"dt": 0.005}})", &warning);
  EXPECT_EQ(warning, "");
  StoredSettings expected;
  expected.scene = "volume";
  expected.volume_res = 16;
  expected.time.dt = 0.005;
  EXPECT_EQ(s, expected);
}

TEST_F(SettingsFiles, SaveCreatesTheDirectoryAndLoadReadsItBack) {
  const fs::path path = dir_ / "config" / "hooke" / "settings.json";
  ASSERT_TRUE(saveSettings(path.string(), unusual()).isOk());
  std::string warning;
  EXPECT_EQ(loadSettings(path.string(), &warning), unusual());
  EXPECT_EQ(warning, "");
  EXPECT_EQ(names(path.parent_path()), std::vector<std::string>{"settings.json"});
}

TEST_F(SettingsFiles, AMissingFileIsTheDefaultsWithoutAWarning) {
  std::string warning = "stale";
  EXPECT_EQ(loadSettings((dir_ / "none.json").string(), &warning), StoredSettings{});
  EXPECT_EQ(warning, "");
}

TEST_F(SettingsFiles, ACorruptFileIsTheDefaultsAndTheWarningNamesIt) {
  const fs::path path = dir_ / "settings.json";
  const std::string good = settingsToJson(unusual());
  std::ofstream(path, std::ios::binary) << good.substr(0, good.size() / 2);  // cut mid-write
  std::string warning;
  EXPECT_EQ(loadSettings(path.string(), &warning), StoredSettings{});
  EXPECT_NE(warning.find(path.string()), std::string::npos) << warning;
  EXPECT_NE(warning.find("not valid JSON"), std::string::npos) << warning;
  EXPECT_EQ(warning.find('\n'), std::string::npos) << warning;

  // a directory where the file should be: the defaults, and the warning says why
  const fs::path taken = dir_ / "taken.json";
  fs::create_directories(taken);
  EXPECT_EQ(loadSettings(taken.string(), &warning), StoredSettings{});
  EXPECT_NE(warning.find("is a directory"), std::string::npos) << warning;
}

TEST_F(SettingsFiles, AFailedWriteLeavesThePreviousFileWhole) {
  const fs::path path = dir_ / "settings.json";
  ASSERT_TRUE(saveSettings(path.string(), unusual()).isOk());
  const std::string before = contents(path);

  // a write that fails part-way (a file-size limit, which binds root too, as a full disk would)
  StoredSettings next = unusual();
  next.scene = std::string(900, 'x');  // larger than the limit below
  rlimit saved{};
  ::getrlimit(RLIMIT_FSIZE, &saved);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limit = saved;
  limit.rlim_cur = 512;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  Status s = saveSettings(path.string(), next);
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, old_handler);

  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(contents(path), before);
  EXPECT_EQ(names(dir_), std::vector<std::string>{"settings.json"});
  std::string warning;
  EXPECT_EQ(loadSettings(path.string(), &warning), unusual());
  EXPECT_EQ(warning, "");

  // a place that cannot hold the file: an error, nothing created
  EXPECT_FALSE(saveSettings((dir_ / "settings.json" / "below.json").string(), next).isOk());
  EXPECT_EQ(names(dir_), std::vector<std::string>{"settings.json"});
}

// Sets an environment variable for one scope (nullptr: unset), restoring it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(SettingsStore, TheDefaultPathFollowsXdgThenHome) {
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "/tmp/xdg-here");
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(defaultSettingsPath(), "/tmp/xdg-here/hooke/settings.json");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(defaultSettingsPath(), "/home/someone/.config/hooke/settings.json");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", "relative/dir");  // ignored, as the XDG spec says
    ScopedEnv home("HOME", "/home/someone");
    EXPECT_EQ(defaultSettingsPath(), "/home/someone/.config/hooke/settings.json");
  }
  {
    ScopedEnv xdg("XDG_CONFIG_HOME", nullptr);
    ScopedEnv home("HOME", nullptr);
    EXPECT_EQ(defaultSettingsPath(), "");
  }
}

}  // namespace
}  // namespace hooke
