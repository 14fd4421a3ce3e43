// `hooke evaluate` as a user runs it: the spring1d part's JSON and CSV, and bad input that exits
// 2 with one line and leaves no file.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/hooke_process.h"

namespace hooke::testing {
namespace {

TEST(EvaluateCli, Spring1dPartWritesJsonAndCsv) {
  ScratchDir dir;
  const auto out = dir / "eval";
  ProcessResult r = runHooke("evaluate --parts spring1d --out '" + out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("spring1d closed form"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(readAll(out / "evaluation.json"));
  const nlohmann::json& s = j.at("spring1d");
  ASSERT_EQ(s.at("rows").size(), 5u);
  EXPECT_TRUE(s.at("meets_goal").get<bool>());
  EXPECT_GE(s.at("implicit_over_bdf2_amplitude_error").get<double>(), 20.0);
  for (const nlohmann::json& row : s.at("rows")) {
    if (row.at("integrator") == "bdf2") {
      EXPECT_NEAR(row.at("error_ratio").get<double>(), 4.0, 0.5);
    }
    if (row.at("integrator") == "implicit") {
      EXPECT_NEAR(row.at("added_damping_ratio").get<double>(), 0.05, 0.005);
    }
  }
  EXPECT_FALSE(j.contains("drop"));
  const std::string csv = readAll(out / "evaluation-spring1d.csv");
  EXPECT_EQ(lineCount(csv), 6);
  EXPECT_FALSE(std::filesystem::exists(out / "evaluation-drop.csv"));
}

TEST(EvaluateCli, BadInputExits2WithOneLineAndNoFiles) {
  const char* cases[] = {
      "--parts warp",
      "--parts drop,drop",
      "--parts ''",
      "--parts drop,",
      "--drop-res 1",
      "--drop-res 10,x",
      "--drop-res 65",
      "--stability-duration 0",
      "--stability-duration 100",
      "--parts spring1d --what",
  };
  for (const char* args : cases) {
    ScratchDir dir;
    const auto out = dir / "eval";
    ProcessResult r = runHooke("evaluate " + std::string(args) + " --out '" + out.string() + "'");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(lineCount(r.err), 1) << args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
  ProcessResult missing = runHooke("evaluate --parts spring1d");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(lineCount(missing.err), 1) << missing.err;
  // --out naming a file
  ScratchDir dir;
  { std::ofstream(dir / "file") << "x"; }
  ProcessResult r = runHooke("evaluate --parts spring1d --out '" + (dir / "file").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_EQ(readAll(dir / "file"), "x");
}

}  // namespace
}  // namespace hooke::testing
