// Tests of the hooke CLI as a user runs it: exit codes, one-line errors, reports, traces, and
// scene export/load round trips.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/hooke_process.h"

namespace hooke {
namespace {

using testing::lineCount;
using testing::readAll;
using testing::runHooke;
using testing::ScratchDir;

// bad input: exit 2, exactly one line on stderr containing `expected`, nothing on stdout
void expectRejected(const std::string& args, const std::string& expected) {
  SCOPED_TRACE(args);
  auto r = runHooke(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(lineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Cli, RejectsBadFlagsAndValues) {
  expectRejected("run --steps 1 --frobnicate 3", "--frobnicate");
  expectRejected("run --steps 1 --dt 0", "--dt must be a finite number > 0");
  expectRejected("run --steps 1 --dt -0.01", "--dt must be a finite number > 0");
  expectRejected("run --steps 1 --dt nan", "--dt");
  expectRejected("run --steps 1 --dt inf", "--dt");
  expectRejected("run --steps 1 --dt fast", "--dt");
  expectRejected("run --steps 1 --stiffness -5", "--stiffness must be a finite number >= 0");
  expectRejected("run --steps 1 --damping -1", "--damping");
  expectRejected("run --steps 1 --mass 0", "--mass must be a finite number > 0");
  expectRejected("run --steps 1 --mass -2", "--mass");
  expectRejected("run --steps 1 --res 1", "--res must be at least 2");
  expectRejected("run --steps 1 --res many", "--res");
  expectRejected("run --steps 1 --skip often", "--skip must be auto or an integer");
  expectRejected("run --steps 1 --skip -1", "--skip");
  expectRejected("run --steps 0", "--steps must be between 1");
  expectRejected("run --steps 1 --duration 1", "--steps");
  expectRejected("run", "give exactly one of --steps TICKS or --duration SECONDS");
  expectRejected("run --duration -1", "--duration");
  expectRejected("run --steps 1 --integrator rk4", "--integrator must be explicit");
  expectRejected("run --steps 1 --backend opencl", "--backend must be auto, cpu or cuda");
  expectRejected("run --steps 1 --tolerance 0", "--tolerance");
  expectRejected("run --steps 1 --max-iterations 0", "--max-iterations");
  expectRejected("run --steps 1 --scene spring1d --trace-particles 0,7", "index 7 out of range");
  expectRejected("run --steps 1 --scene spring1d --trace-particles a", "--trace-particles");
  expectRejected("frobnicate", "frobnicate");
  expectRejected("export-scene --scene cloth", "--out");
}

TEST(Cli, RejectsMissingAndMalformedSceneFiles) {
  ScratchDir dir;
  expectRejected("run --steps 1 --scene " + (dir / "nope.json").string(), "nope.json");
  expectRejected("run --steps 1 --scene " + dir.path().string(), dir.path().string());
  expectRejected("run --steps 1 --scene " + (dir / "scene.txt").string(), "scene.txt");

  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string head = R"({"format":"hooke-scene","version":1,"particles":[)"
                           R"({"x":[0,0,0],"m":1,"pinned":true},{"x":[0,-1,0],"m":1}],"springs":[)";
  expectRejected(
      "run --steps 1 --scene " + write("syntax.json", "{\n\"format\": \"hooke-scene\",\n oops"),
      "syntax.json:3");
  expectRejected("run --steps 1 --scene " +
                     write("range.json", head + R"({"i":0,"j":5,"rest":1,"k":1,"c":0}]})"),
                 "springs[0]");
  expectRejected("run --steps 1 --scene " +
                     write("self.json", head + R"({"i":1,"j":1,"rest":1,"k":1,"c":0}]})"),
                 "springs[0]");
  expectRejected("run --steps 1 --scene " +
                     write("rest.json", head + R"({"i":0,"j":1,"rest":-1,"k":1,"c":0}]})"),
                 "rest");
  expectRejected("run --steps 1 --scene " +
                     write("res.json", head + R"({"i":0,"j":1,"rest":1,"k":1,"c":0}]})") +
                     " --res 8",
                 "--res applies to the built-in scenes only");

  // a TetGen mesh whose .ele stops early
  write("cut.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n");
  write("cut.ele", "2 4 0\n0 0 1 2 3\n");
  expectRejected("run --steps 1 --scene " + (dir / "cut.node").string(), "cut.ele");
}

TEST(Cli, BadInputLeavesNoOutputFiles) {
  ScratchDir dir;
  auto r = runHooke("run --steps 10 --dt -1 --report " + (dir / "r.json").string() + " --trace " +
                    (dir / "t.csv").string());
  EXPECT_EQ(r.exit_code, 2);
  r = runHooke("run --steps 10 --report " + (dir / "missing-dir" / "r.json").string() +
               " --trace " + (dir / "t.csv").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing-dir"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Cli, ReportHasEveryDocumentedKey) {
  ScratchDir dir;
  auto r = runHooke("run --scene cloth --res 8 --backend cpu --dt 0.01 --duration 0.3 --report " +
                    (dir / "r.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  for (const char* key :
       {"scene", "integrator", "backend", "dt", "skip", "h", "ticks", "solves", "sim_time",
        "wall_seconds", "diverged", "diverged_at", "energy", "max_strain", "cg"}) {
    EXPECT_TRUE(report.contains(key)) << key;
  }
  EXPECT_EQ(report["scene"], "cloth");
  EXPECT_EQ(report["integrator"], "implicit");
  EXPECT_EQ(report["backend"], "cpu");
  EXPECT_EQ(report["skip"], 2);  // auto at dt = 0.01
  EXPECT_DOUBLE_EQ(report["h"].get<double>(), 0.03);
  EXPECT_EQ(report["ticks"], 30);
  EXPECT_EQ(report["solves"], 10);
  EXPECT_NEAR(report["sim_time"].get<double>(), 0.3, 1e-12);
  EXPECT_EQ(report["diverged"], false);
  EXPECT_TRUE(report["diverged_at"].is_null());
  for (const char* key : {"kinetic", "potential", "total"}) {
    EXPECT_TRUE(report["energy"][key].is_number()) << key;
  }
  EXPECT_GT(report["energy"]["kinetic"].get<double>(), 0.0);
  for (const char* key : {"iterations_mean", "iterations_max", "residual_max"}) {
    EXPECT_TRUE(report["cg"][key].is_number()) << key;
  }
  EXPECT_GT(report["cg"]["iterations_max"].get<int>(), 0);
  EXPECT_LE(report["cg"]["residual_max"].get<double>(), 1e-4);
}

TEST(Cli, ExplicitClothDivergesAndStillExitsZero) {
  ScratchDir dir;
  auto r = runHooke(
      "run --scene cloth --res 32 --integrator explicit --backend cpu --dt 0.01 --skip 0 "
      "--stiffness 1e5 --duration 2 --report " +
      (dir / "r.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DIVERGED"), std::string::npos) << r.out;
  auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  EXPECT_EQ(report["diverged"], true);
  ASSERT_TRUE(report["diverged_at"].is_number());
  EXPECT_GT(report["diverged_at"].get<double>(), 0.0);
  EXPECT_LT(report["solves"].get<int>(), 200);  // stepping stopped early
}

TEST(Cli, TraceHasInitialStateThenEverySolve) {
  ScratchDir dir;
  auto r = runHooke("run --scene spring1d --backend cpu --dt 0.01 --skip 1 --steps 6 --trace " +
                    (dir / "t.csv").string() + " --trace-particles 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream csv(readAll(dir / "t.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "t,particle,x,y,z");
  std::vector<double> times;
  while (std::getline(csv, line)) {
    double t, x, y, z;
    int particle;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%d,%lf,%lf,%lf", &t, &particle, &x, &y, &z), 5)
        << line;
    EXPECT_EQ(particle, 1);
    times.push_back(t);
  }
  ASSERT_EQ(times.size(), 4u);  // t = 0 and 3 solves of h = 0.02
  for (size_t i = 0; i < times.size(); ++i)
    EXPECT_NEAR(times[i], 0.02 * i, 1e-9);
}

TEST(Cli, ExportedSceneSimulatesExactlyAsTheBuiltin) {
  ScratchDir dir;
  for (const char* scene : {"cloth --res 10", "volume --res 6", "spring1d"}) {
    SCOPED_TRACE(scene);
    const std::string material = " --stiffness 2000 --damping 0.3 --mass 1.5";
    auto e = runHooke(std::string("export-scene --scene ") + scene + material + " --out " +
                      (dir / "s.json").string());
    ASSERT_EQ(e.exit_code, 0) << e.err;
    const std::string run = " --backend cpu --dt 0.01 --steps 30 --trace ";
    auto a =
        runHooke(std::string("run --scene ") + scene + material + run + (dir / "a.csv").string());
    auto b = runHooke("run --scene " + (dir / "s.json").string() + run + (dir / "b.csv").string());
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    std::string ta = readAll(dir / "a.csv"), tb = readAll(dir / "b.csv");
    EXPECT_GT(ta.size(), 100u);
    EXPECT_EQ(ta, tb);
  }
}

TEST(Cli, BackendChoiceFallsBackOrRefusesWithoutADevice) {
  ScratchDir dir;
  auto a = runHooke("run --scene spring1d --steps 3 --report " + (dir / "r.json").string(),
                    "CUDA_VISIBLE_DEVICES=");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto report = nlohmann::json::parse(readAll(dir / "r.json"));
  EXPECT_EQ(report["backend"], "cpu");
  EXPECT_EQ(lineCount(a.err), 1) << a.err;
  EXPECT_NE(a.err.find("CUDA not used"), std::string::npos) << a.err;

  auto c = runHooke("run --scene spring1d --steps 3 --backend cuda", "CUDA_VISIBLE_DEVICES=");
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_EQ(lineCount(c.err), 1) << c.err;
  EXPECT_NE(c.err.find("--backend cuda"), std::string::npos) << c.err;
}

TEST(Cli, HelpListsTheSubcommandsAndExitsZero) {
  auto r = runHooke("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("run"), std::string::npos);
  EXPECT_NE(r.out.find("export-scene"), std::string::npos);
  r = runHooke("run --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* flag : {"--scene", "--res", "--integrator", "--backend", "--dt", "--skip",
                           "--stiffness", "--damping", "--mass", "--tolerance", "--max-iterations",
                           "--steps", "--duration", "--report", "--trace", "--trace-particles"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace hooke
