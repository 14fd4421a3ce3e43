// The CLI when the CUDA backend fails mid-run (label unit; needs a CUDA device, skipped without
// one). The fault is injected by the CUDA backend's test hook: HOOKE_CUDA_FAULT_AT_STEP=N makes
// its N-th step fail. `--backend auto` goes on on the CPU backend from the last good state and
// says so (stderr and the report); `--backend cuda` exits 2 with the error, writing no report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>

#include "cli/hooke_process.h"

namespace hooke {
namespace {

using testing::lineCount;
using testing::readAll;
using testing::runHooke;
using testing::ScratchDir;

// skips the calling test where `--backend cuda` cannot run at all (no device, no CUDA build)
#define SKIP_WITHOUT_CUDA()                                                            \
  do {                                                                                 \
    auto probe = runHooke("run --scene spring1d --backend cuda --steps 1");            \
    if (probe.exit_code == 2) GTEST_SKIP() << "no usable CUDA backend: " << probe.err; \
    ASSERT_EQ(probe.exit_code, 0) << probe.err;                                        \
  } while (0)

const char* kRun = "run --scene cloth --res 16 --dt 0.01 --skip 0 --steps 40 --integrator implicit";

TEST(FailoverCli, AutoContinuesOnTheCpuFromTheLastGoodState) {
  SKIP_WITHOUT_CUDA();
  ScratchDir dir;
  auto r = runHooke(std::string(kRun) + " --backend auto --report " + (dir / "r.json").string() +
                        " --trace " + (dir / "t.csv").string() + " --trace-particles 255",
                    "HOOKE_CUDA_FAULT_AT_STEP=7");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("the cuda backend failed at solve 7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("continuing on the cpu backend from the state at t = 0.06 s"),
            std::string::npos)
      << r.err;

  const auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  ASSERT_TRUE(report["backend_fallback"].is_object()) << report.dump(2);
  EXPECT_EQ(report["backend_fallback"]["at_solve"], 7);
  EXPECT_NEAR(report["backend_fallback"]["time"].get<double>(), 0.06, 1e-9);
  EXPECT_EQ(report["backend_fallback"]["from"], "cuda");
  EXPECT_EQ(report["backend_fallback"]["to"], "cpu");
  EXPECT_FALSE(report["backend_fallback"]["reason"].get<std::string>().empty());
  EXPECT_EQ(report["backend"], "cpu");
  EXPECT_EQ(report["solves"], 40);  // none lost: the failed solve was re-run
  EXPECT_EQ(report["diverged"], false);

  // the trace has every solve once, and no jump at the switch: the solves around it move the
  // particle about as far as their neighbours do (a restart from the initial state would not)
  const std::string trace = readAll(dir / "t.csv");
  EXPECT_EQ(lineCount(trace), 1 + 1 + 40);
  std::vector<glm::dvec3> x;  // the particle at t = 0 and after each solve
  std::istringstream rows(trace);
  std::string row;
  std::getline(rows, row);  // header
  while (std::getline(rows, row)) {
    double t = 0.0, px = 0.0, py = 0.0, pz = 0.0;
    unsigned particle = 0;
    ASSERT_EQ(std::sscanf(row.c_str(), "%lf,%u,%lf,%lf,%lf", &t, &particle, &px, &py, &pz), 5);
    x.emplace_back(px, py, pz);
  }
  ASSERT_EQ(x.size(), 41u);
  auto step = [&](size_t k) { return glm::length(x[k] - x[k - 1]); };  // solve k's move
  for (size_t k : {6u, 7u, 8u}) {
    EXPECT_GT(step(k), 0.0);
    EXPECT_LT(step(k), 2.0 * std::max(step(k - 1), step(k + 1))) << "solve " << k;
    EXPECT_GT(step(k), 0.5 * std::min(step(k - 1), step(k + 1))) << "solve " << k;
  }
}

TEST(FailoverCli, AnExplicitCudaBackendExitsTwoWithTheError) {
  SKIP_WITHOUT_CUDA();
  ScratchDir dir;
  auto r = runHooke(std::string(kRun) + " --backend cuda --report " + (dir / "r.json").string(),
                    "HOOKE_CUDA_FAULT_AT_STEP=7");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("the cuda backend failed"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "r.json"));
}

TEST(FailoverCli, WithoutTheFaultAutoStaysOnTheDevice) {
  SKIP_WITHOUT_CUDA();
  ScratchDir dir;
  auto r = runHooke(std::string(kRun) + " --backend auto --report " + (dir / "r.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  EXPECT_EQ(report["backend"], "cuda");
  EXPECT_TRUE(report["backend_fallback"].is_null());
}

}  // namespace
}  // namespace hooke
