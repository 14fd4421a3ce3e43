// Tests of the desktop app's settings between runs (label gl; a private Xvfb, skipped without
// one): saved at exit and restored at start, flags on the command line winning over restored
// values; a corrupt file or a restored scene that no longer loads means a one-line warning and a
// normal start; --no-settings reads and writes nothing; the default path is under
// XDG_CONFIG_HOME. Every run points the app at a scratch directory, never at the real home.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/hooke_process.h"
#include "gui/xvfb_display.h"

namespace hooke {
namespace {

using testing::lineCount;
using testing::readAll;
using testing::runHooke;
using testing::ScratchDir;

class Settings : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!testing::XvfbDisplay::ensure(&why)) GTEST_SKIP() << why;
  }

  // `hooke <args> --exit-after 0.5 --report R` with the settings at `settings` (or as given in
  // args), XDG_CONFIG_HOME and HOME in the scratch directory; the report's JSON
  nlohmann::json run(const std::string& args, testing::ProcessResult* result = nullptr) {
    const auto report = dir_ / "report.json";
    std::filesystem::remove(report);
    const std::string env =
        "XDG_CONFIG_HOME='" + (dir_ / "xdg").string() + "' HOME='" + (dir_ / "home").string() + "'";
    auto r = runHooke(args + " --exit-after 0.5 --report '" + report.string() + "'", env);
    if (result) *result = r;
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    if (r.exit_code != 0) return {};
    return nlohmann::json::parse(readAll(report));
  }
  std::string settingsFlag() const { return "--settings '" + file().string() + "'"; }
  std::filesystem::path file() const { return dir_ / "settings.json"; }
  nlohmann::json saved() const { return nlohmann::json::parse(readAll(file())); }

  ScratchDir dir_;
};

int warnings(const std::string& err) {
  int n = 0;
  for (size_t at = err.find("hooke: warning:"); at != std::string::npos;
       at = err.find("hooke: warning:", at + 1))
    ++n;
  return n;
}

TEST_F(Settings, SavedAtExitRestoredAtStartAndFlagsWin) {
  nlohmann::json r = run(settingsFlag() + " --scene spring1d --dt 0.005 --integrator newton");
  EXPECT_EQ(r["scene"], "spring1d");
  ASSERT_TRUE(std::filesystem::exists(file()));
  nlohmann::json s = saved();
  EXPECT_EQ(s["scene"]["name"], "spring1d");
  EXPECT_DOUBLE_EQ(s["time"]["dt"].get<double>(), 0.005);
  EXPECT_EQ(s["solver"]["integrator"], "newton");
  EXPECT_EQ(s["window"]["width"], 1280);
  EXPECT_TRUE(s["camera"].is_object());
  EXPECT_TRUE(s["material"].is_object());

  // no flags: everything restored
  r = run(settingsFlag());
  EXPECT_EQ(r["scene"], "spring1d");
  EXPECT_EQ(r["integrator"], "newton");
  EXPECT_DOUBLE_EQ(r["dt"].get<double>(), 0.005);

  // a flag wins over its restored value, and only that one
  testing::ProcessResult result;
  r = run(settingsFlag() + " --dt 0.02", &result);
  EXPECT_EQ(r["scene"], "spring1d");
  EXPECT_EQ(r["integrator"], "newton");
  EXPECT_DOUBLE_EQ(r["dt"].get<double>(), 0.02);
  EXPECT_EQ(warnings(result.err), 0) << result.err;
  EXPECT_DOUBLE_EQ(saved()["time"]["dt"].get<double>(), 0.02);

  // a scene on the command line: that scene, with its own material
  r = run(settingsFlag() + " --scene cloth --res 8");
  EXPECT_EQ(r["scene"], "cloth");
  EXPECT_EQ(r["particles"], 64);
  EXPECT_EQ(saved()["scene"]["name"], "cloth");
  EXPECT_EQ(saved()["scene"]["cloth_res"], 8);
}

// The comparison's integrator and view and the Sweep panel's grid go through the app: restored
// into its panels at start, saved from them at exit.
TEST_F(Settings, CompareAndSweepChoicesSurviveARun) {
  nlohmann::json start = nlohmann::json::parse(R"({
    "scene": {"name": "cloth", "cloth_res": 8},
    "compare": {"integrator": "symplectic", "view": "split"},
    "sweep": {"integrators": ["explicit", "bdf2"], "dt": [0.0005, 0.02], "k": [50, 2e6],
              "dt_cells": 9, "k_cells": 4, "duration": 1.5}})");
  {
    std::ofstream out(file());
    out << start.dump();
  }
  testing::ProcessResult result;
  run(settingsFlag(), &result);
  EXPECT_EQ(warnings(result.err), 0) << result.err;
  const nlohmann::json s = saved();
  EXPECT_EQ(s["compare"], start["compare"]);
  EXPECT_EQ(s["sweep"]["integrators"], start["sweep"]["integrators"]);
  EXPECT_EQ(s["sweep"]["dt"], start["sweep"]["dt"]);
  EXPECT_EQ(s["sweep"]["k"], start["sweep"]["k"]);
  EXPECT_EQ(s["sweep"]["dt_cells"], 9);
  EXPECT_EQ(s["sweep"]["k_cells"], 4);
  EXPECT_DOUBLE_EQ(s["sweep"]["duration"].get<double>(), 1.5);
}

TEST_F(Settings, ACorruptFileMeansDefaultsAndOneWarning) {
  const std::string good = [&] {
    run(settingsFlag() + " --scene spring1d --dt 0.005");
    return readAll(file());
  }();
  for (const std::string bad :
       {good.substr(0, good.size() / 2),
        std::string("\x7f"
                    "ELF\x02\x01\x01\0\0garbage",
                    16),
        std::string("{\"time\": {\"dt\": \"fast\"}, \"scene\": {\"name\": 42}}")}) {
    std::ofstream(file(), std::ios::binary | std::ios::trunc) << bad;
    testing::ProcessResult result;
    const nlohmann::json r = run(settingsFlag(), &result);
    EXPECT_EQ(warnings(result.err), 1) << result.err;
    EXPECT_NE(result.err.find("settings file " + file().string()), std::string::npos) << result.err;
    EXPECT_EQ(r["scene"], "cloth");  // the defaults
    EXPECT_DOUBLE_EQ(r["dt"].get<double>(), 0.01);
    // and the file is whole again after the run
    EXPECT_EQ(saved()["scene"]["name"], "cloth");
  }
}

TEST_F(Settings, ARestoredSceneThatNoLongerLoadsStartsFromTheCommandLine) {
  std::ofstream(file()) << R"({"scene": {"name": ")" << (dir_ / "gone.json").string()
                        << R"("}, "time": {"dt": 0.004}})";
  testing::ProcessResult result;
  const nlohmann::json r = run(settingsFlag(), &result);
  EXPECT_EQ(warnings(result.err), 1) << result.err;
  EXPECT_NE(result.err.find("the restored settings cannot start"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("gone.json"), std::string::npos) << result.err;
  EXPECT_EQ(r["scene"], "cloth");
}

TEST_F(Settings, TheDefaultPathIsUnderXdgAndNoSettingsTouchesNothing) {
  const auto xdg_file = dir_ / "xdg" / "hooke" / "settings.json";
  run("--no-settings --scene spring1d");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "xdg"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "home"));

  run("--scene spring1d");
  ASSERT_TRUE(std::filesystem::exists(xdg_file));
  EXPECT_EQ(nlohmann::json::parse(readAll(xdg_file))["scene"]["name"], "spring1d");
  EXPECT_EQ(run("")["scene"], "spring1d");
  EXPECT_EQ(run("--no-settings")["scene"], "cloth");  // nothing read either

  auto both = runHooke("--no-settings " + settingsFlag() + " --exit-after 1");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(lineCount(both.err), 1) << both.err;
}

}  // namespace
}  // namespace hooke
