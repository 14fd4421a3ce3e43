// Tests of app/gui/sweep_job: the Sweep panel's background sweep finishes with the same results
// as the sweep engine run directly on `hooke sweep`'s scenes, cancels without finishing every
// cell, rejects bad requests, and a clicked cell becomes the live session's dt, skip, stiffness
// and integrator at the next solve, without a reset.
#include <gtest/gtest.h>

#include <thread>

#include <chrono>

#include <cmath>
#include <string>

#include "app/gui/sweep_job.h"

namespace hooke {
namespace {

SceneOptions named(const std::string& name) {
  SceneOptions options;
  options.scene = name;
  return options;
}

// a request for the scene at its own material, as the panel makes it from a loaded session
SweepRequest requestFor(const SimSession& session) {
  SweepRequest r;
  r.scene = session.sceneOptions();
  r.reference = session.referenceMaterial();
  r.material = session.material();
  r.solver = session.solver();
  return r;
}

TEST(SweepJob, ASmallSpring1dSweepFinishesWithTheEnginesResults) {
  SimSession session;
  ASSERT_TRUE(session.load(named("spring1d"), "cpu", SolverSettings{}, TimeSettings{}).isOk());
  SweepRequest request = requestFor(session);
  request.integrators = {Integrator::kExplicit, Integrator::kImplicit};
  request.dt_min = 1e-3;
  request.dt_max = 0.1;
  request.k_min = 10.0;
  request.k_max = 1e4;
  request.dt_cells = 3;
  request.k_cells = 3;
  request.duration = 1.0;
  request.threads = 2;

  SweepJob job;
  EXPECT_EQ(job.phase(), SweepJob::Phase::kIdle);
  ASSERT_TRUE(job.start(request).isOk());
  job.wait();
  const SweepJob::Snapshot snap = job.snapshot();
  EXPECT_EQ(snap.phase, SweepJob::Phase::kDone);
  ASSERT_EQ(snap.cells.size(), 18u);
  EXPECT_EQ(snap.done, 18u);
  EXPECT_DOUBLE_EQ(snap.progress(), 1.0);
  EXPECT_EQ(snap.scene_name, "spring1d");
  EXPECT_EQ(snap.dts, logSpace(1e-3, 0.1, 3));
  EXPECT_EQ(snap.stiffnesses, logSpace(10.0, 1e4, 3));

  // every cell equals the engine's run on the scene `hooke sweep` builds (--stiffness k)
  const SceneFactory cli_factory = [](double k) {
    SceneOptions o = named("spring1d");
    o.stiffness = k;
    Scene scene;
    EXPECT_TRUE(buildScene(o, &scene).isOk());
    return scene;
  };
  for (size_t i = 0; i < snap.cells.size(); ++i) {
    ASSERT_TRUE(snap.finished[i]);
    const CellResult direct = runSweepCell(cli_factory, snap.cells[i], 1.0, request.solver);
    EXPECT_EQ(snap.results[i].status, direct.status) << i;
    EXPECT_EQ(snap.results[i].steps, direct.steps) << i;
    EXPECT_DOUBLE_EQ(snap.results[i].max_strain, direct.max_strain) << i;
  }

  // implicit Euler survives every cell; explicit Euler at h = 0.1 s, k = 1e4 N/m (h ω = 10 for
  // the 1 kg mass, far past 2) does not
  const size_t explicit_stiff_big_dt = snap.index(0, 2, 2);
  EXPECT_EQ(snap.cells[explicit_stiff_big_dt].integrator, Integrator::kExplicit);
  EXPECT_EQ(snap.results[explicit_stiff_big_dt].status, CellStatus::kDiverged);
  for (size_t row = 0; row < 3; ++row) {
    for (size_t col = 0; col < 3; ++col) {
      EXPECT_NE(snap.results[snap.index(1, row, col)].status, CellStatus::kDiverged);
    }
  }
}

TEST(SweepJob, CancelStopsHandingOutCellsAndKeepsTheFinishedOnes) {
  SimSession session;
  ASSERT_TRUE(session.load(named("spring1d"), "cpu", SolverSettings{}, TimeSettings{}).isOk());
  SweepRequest request = requestFor(session);
  request.integrators = {Integrator::kImplicit, Integrator::kNewton};
  request.dt_min = 1e-4;
  request.dt_max = 1e-3;
  request.dt_cells = 16;
  request.k_cells = 16;
  request.duration = 5.0;  // 5e4 solves in the finest cells: far longer than the test
  request.threads = 1;

  SweepJob job;
  ASSERT_TRUE(job.start(request).isOk());
  EXPECT_TRUE(job.busy());
  // a second start while running is refused
  EXPECT_FALSE(job.start(request).isOk());
  job.cancel();
  job.wait();
  const SweepJob::Snapshot snap = job.snapshot();
  EXPECT_EQ(snap.phase, SweepJob::Phase::kCancelled);
  EXPECT_FALSE(job.busy());
  ASSERT_EQ(snap.cells.size(), 512u);
  EXPECT_LE(snap.done, 2u);  // one worker: at most the cell in flight (and the one before)
  size_t finished = 0;
  for (uint8_t f : snap.finished)
    finished += f;
  EXPECT_EQ(finished, snap.done);

  // a new run starts once the cancelled one is over
  request.dt_min = 1e-2;
  request.dt_max = 0.1;
  request.dt_cells = request.k_cells = 2;
  request.duration = 0.2;
  ASSERT_TRUE(job.start(request).isOk());
  job.wait();
  EXPECT_EQ(job.phase(), SweepJob::Phase::kDone);
  EXPECT_EQ(job.snapshot().done, 8u);
}

TEST(SweepJob, BadRequestsAreRefusedWithTheFieldNamed) {
  SweepRequest ok;
  ok.scene = named("spring1d");
  ok.integrators = {Integrator::kImplicit};
  EXPECT_TRUE(checkSweepRequest(ok).isOk());
  struct Case {
    void (*edit)(SweepRequest&);
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{
           {[](SweepRequest& r) { r.integrators.clear(); }, "integrator"},
           {[](SweepRequest& r) { r.integrators.push_back(Integrator::kImplicit); }, "twice"},
           {[](SweepRequest& r) { r.dt_min = 0.0; }, "dt range"},
           {[](SweepRequest& r) { r.dt_max = r.dt_min; }, "dt range"},
           {[](SweepRequest& r) { r.k_max = NAN; }, "stiffness range"},
           {[](SweepRequest& r) { r.k_cells = 1; }, "grid side"},
           {[](SweepRequest& r) { r.dt_cells = kMaxSweepCells + 1; }, "grid side"},
           {[](SweepRequest& r) { r.duration = -1.0; }, "duration"},
           {[](SweepRequest& r) { r.duration = 1e3; }, "1e6"},
       }) {
    SweepRequest r = ok;
    c.edit(r);
    const Status s = checkSweepRequest(r);
    EXPECT_FALSE(s.isOk()) << c.expected;
    EXPECT_NE(s.message().find(c.expected), std::string::npos) << s.message();
  }
  // a scene that does not build: refused, nothing started
  SweepJob job;
  SweepRequest missing = ok;
  missing.scene = named("no/such/scene.json");
  EXPECT_FALSE(job.start(missing).isOk());
  EXPECT_EQ(job.phase(), SweepJob::Phase::kIdle);
}

TEST(SweepJob, AClickedCellBecomesTheLiveDtStiffnessAndIntegratorWithoutAReset) {
  SimSession session;
  TimeSettings time;  // dt 0.01, auto skip (n = 2)
  ASSERT_TRUE(session.load(named("spring1d"), "cpu", SolverSettings{}, time).isOk());
  for (int i = 0; i < 30; ++i)
    session.advance(1.0 / 60.0);
  const int64_t solves_before = session.solves();
  const double t_before = session.physicsTime();
  ASSERT_GT(solves_before, 0);

  // the grid of a 4 x 3 sweep; the cell (integrator bdf2, stiffness row 2, dt column 1)
  const std::vector<double> dts = logSpace(1e-3, 0.1, 4), ks = logSpace(10.0, 1e5, 3);
  const std::vector<SweepCell> cells =
      sweepCells({Integrator::kExplicit, Integrator::kBdf2}, dts, ks);
  SweepJob::Snapshot grid;
  grid.dts = dts;
  grid.stiffnesses = ks;
  const SweepCell& cell = cells[grid.index(1, 2, 1)];
  EXPECT_EQ(cell.integrator, Integrator::kBdf2);
  EXPECT_DOUBLE_EQ(cell.dt, dts[1]);
  EXPECT_DOUBLE_EQ(cell.stiffness, ks[2]);

  const CellSettings set =
      settingsForCell(cell, session.time(), session.material(), session.solver());
  EXPECT_DOUBLE_EQ(set.time.dt, dts[1]);
  EXPECT_EQ(set.time.skip(), 0);
  EXPECT_EQ(set.time.time_scale, session.time().time_scale);
  EXPECT_FLOAT_EQ(set.material.stiffness, float(ks[2]));
  EXPECT_EQ(set.material.mass, session.material().mass);
  EXPECT_EQ(set.material.damping, session.material().damping);
  EXPECT_EQ(set.solver.integrator, Integrator::kBdf2);
  EXPECT_EQ(set.solver.tolerance, session.solver().tolerance);

  // through the Time, Material and Solver paths: in force from the next solve, no reset
  session.setTime(set.time);
  session.setMaterial(set.material);
  session.setSolver(set.solver);
  // the old dt's ticks run to the next solve boundary, where the new dt ends that frame
  for (int i = 0; i < 5; ++i)
    session.advance(1.0 / 60.0);
  EXPECT_FALSE(session.divergedAt().has_value()) << *session.divergedAt();
  EXPECT_GT(session.solves(), solves_before);
  EXPECT_GT(session.physicsTime(), t_before);
  EXPECT_DOUBLE_EQ(session.h(), dts[1]);
  EXPECT_FLOAT_EQ(session.model().stiffness[0], float(ks[2]));
  EXPECT_EQ(session.solver().integrator, Integrator::kBdf2);
  ASSERT_TRUE(session.lastSolve().has_value());
  EXPECT_GE(session.lastSolve()->step.newton_iterations, 1);
}

// A cancel reaches the cell in flight: it stops before its next solve and is dropped, instead of
// running its million solves to the end.
TEST(SweepJob, CancelStopsTheCellInFlight) {
  SimSession session;
  ASSERT_TRUE(session.load(named("spring1d"), "cpu", SolverSettings{}, TimeSettings{}).isOk());
  SweepRequest request = requestFor(session);
  request.integrators = {Integrator::kImplicit};
  request.dt_min = 1e-5;
  request.dt_max = 2e-5;
  request.dt_cells = request.k_cells = 2;
  request.duration = 10.0;  // 5e5 to 1e6 solves per cell
  request.threads = 1;
  SweepJob job;
  ASSERT_TRUE(job.start(request).isOk());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the worker is inside cell 0
  job.cancel();
  job.wait();
  const SweepJob::Snapshot snap = job.snapshot();
  EXPECT_EQ(snap.phase, SweepJob::Phase::kCancelled);
  EXPECT_EQ(snap.done, 0u);
  for (uint8_t f : snap.finished)
    EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace hooke
