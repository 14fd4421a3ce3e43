// `hooke sweep` as a user runs it: the CSV rows, the heatmap PNGs, and bad input that exits 2
// with one line and leaves no file.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli/hooke_process.h"

namespace hooke::testing {
namespace {

TEST(SweepCli, WritesCsvAndHeatmaps) {
  ScratchDir dir;
  const auto out = dir / "sweep-out";  // created by hooke
  ProcessResult r = runHooke(
      "sweep --scene spring1d --integrators explicit,implicit --cells 3x3 "
      "--dt-range 1e-3:0.1 --stiffness-range 1e2:1e6 --duration 0.5 --threads 2 --out '" +
      out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = readAll(out / "sweep.csv");
  EXPECT_EQ(lineCount(csv), 19);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "integrator,dt,stiffness,status,max_strain,energy_drift,realism_error,steps,wall_ms");
  EXPECT_NE(csv.find("explicit,0.1,1e+06,diverged"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("implicit,0.1,1e+06,diverged"), std::string::npos) << csv;
  for (const char* name : {"heatmap-explicit.png", "heatmap-implicit.png"}) {
    const std::string png = readAll(out / name);
    ASSERT_GT(png.size(), 8u) << name;
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << name;
  }
  // the table: a block per integrator, 3 rows of S/U/X
  EXPECT_NE(r.out.find("explicit (rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("implicit (rows"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find('X'), std::string::npos);
  EXPECT_EQ(r.err, "");  // no progress bar without a terminal
}

TEST(SweepCli, BadInputExits2WithOneLineAndNoFiles) {
  const char* cases[] = {
      "--integrators explicit,warp",
      "--integrators explicit --dt-range 0.1:1e-4",
      "--integrators explicit --dt-range 0:0.1",
      "--integrators explicit --dt-range 1e-3",
      "--integrators explicit --stiffness-range 10:-5",
      "--integrators explicit --stiffness-range 1e3:1e3",
      "--integrators explicit --cells 1x3",
      "--integrators explicit --cells 3x65",
      "--integrators explicit --cells 3by3",
      "--integrators explicit --duration -1",
      "--integrators explicit --stiffness 100",
      "--integrators explicit --threads 0",
      "--integrators explicit --backend gpu",
      "--integrators explicit --duration 1000",  // 1e7 steps per cell at dt 1e-4
      "--integrators implicit,implicit",
      "--integrators explicit --scene nothing.json",
  };
  // every case fails its checks before a cell runs
  for (const char* args : cases) {
    ScratchDir dir;
    const auto out = dir / "sweep-out";
    ProcessResult r = runHooke("sweep " + std::string(args) + " --out '" + out.string() + "'");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(lineCount(r.err), 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("see hooke --help"), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << args;
  }
  // --out naming a file
  ScratchDir dir;
  { std::ofstream(dir / "file") << "x"; }
  ProcessResult r = runHooke("sweep --scene spring1d --integrators implicit --out '" +
                             (dir / "file").string() + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_EQ(readAll(dir / "file"), "x");
}

}  // namespace
}  // namespace hooke::testing
