// `hooke sweep` as a user runs it: the CSV rows, the heatmap PNGs, and bad input that exits 2
// with one line and leaves no file.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/hooke_process.h"

namespace hooke::testing {
namespace {

TEST(SweepCli, WritesCsvAndHeatmaps) {
  ScratchDir dir;
  const auto out = dir / "sweep-out";  // created by hooke
  ProcessResult r = runHooke(
      "sweep --scene spring1d --integrators explicit,implicit --cells 3x3 "
      "--dt-range 1e-3:0.1 --stiffness-range 1e2:1e6 --duration 0.5 --threads 2 --backend cpu "
      "--out '" +
      out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = readAll(out / "sweep.csv");
  EXPECT_EQ(lineCount(csv), 19);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "integrator,dt,stiffness,status,max_strain,energy_drift,realism_error,steps,wall_ms,"
            "energy_error,ms_per_step,newton_per_step,cg_per_step,backend");
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
      "--integrators explicit --scene cloth --reference-dt 1",  // above the smallest dt
      "--integrators explicit --scene cloth --reference-dt -1",
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

// cloth cells are measured against a converged reference computed once per stiffness and cached
TEST(SweepCli, ClothReferenceIsCachedAndGivesRealismError) {
  ScratchDir dir;
  const std::string cache = (dir / "cache").string();
  auto sweep = [&](const std::string& out) {
    return runHooke(
        "sweep --scene cloth --res 4 --integrators implicit,bdf2 --cells 2x2 --dt-range "
        "1e-3:1e-2 --stiffness-range 1e2:1e3 --duration 0.1 --backend cpu --reference-cache '" +
        cache + "' --out '" + (dir / out).string() + "'");
  };
  ProcessResult first = sweep("a");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("(0 of 2 from the cache"), std::string::npos) << first.out;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(cache)) {
    EXPECT_EQ(entry.path().extension(), ".json");
    ++files;
  }
  EXPECT_EQ(files, 2);  // one per stiffness
  ProcessResult second = sweep("b");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("(2 of 2 from the cache"), std::string::npos) << second.out;

  // every row has a finite realism error, the same from the cache as computed
  auto column = [](const std::string& csv, int index) {
    std::vector<std::string> values;
    std::stringstream lines(csv);
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
      std::stringstream fields(line);
      std::string field;
      for (int i = 0; i <= index; ++i)
        std::getline(fields, field, ',');
      values.push_back(field);
    }
    return values;
  };
  const std::vector<std::string> a = column(readAll(dir / "a" / "sweep.csv"), 6);
  const std::vector<std::string> b = column(readAll(dir / "b" / "sweep.csv"), 6);
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(a, b);
  for (const std::string& v : a)
    EXPECT_FALSE(v.empty());
}

// --backend cuda needs a CUDA build and a device; without them it exits 2 with the reason
TEST(SweepCli, CudaBackendWithoutDeviceExits2WithReason) {
  ScratchDir dir;
  const auto out = dir / "sweep-out";
  ProcessResult r = runHooke(
      "sweep --scene spring1d --integrators implicit --cells 2x2 --duration 0.1 --backend cuda "
      "--out '" +
      out.string() + "'");
  if (r.exit_code == 0) GTEST_SKIP() << "a CUDA device ran the sweep";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("hooke: --backend cuda: ", 0), 0u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // auto runs on the CPU and says why, in one line
  ProcessResult a = runHooke(
      "sweep --scene spring1d --integrators implicit --cells 2x2 --duration 0.1 --backend auto "
      "--out '" +
      out.string() + "'");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(lineCount(a.err), 1) << a.err;
  EXPECT_NE(a.err.find("CUDA not used"), std::string::npos) << a.err;
  EXPECT_NE(a.out.find("cpu backend"), std::string::npos) << a.out;
}

}  // namespace
}  // namespace hooke::testing
