// Tests of app/gui/sim_session: the frame loop of DESIGN.md "One frame" without a window (ticks due
// per wall second, the per-frame cap, pause and single step), live changes applied at the next
// solve boundary without a jump, divergence (auto-pause, revert to the last finite state, reset),
// a device backend failing mid-run (the CPU takes over from the last good state), and the run
// report's totals.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "app/gui/sim_session.h"
#include "sim/failing_backend.h"

namespace hooke {
namespace {

SceneOptions named(const std::string& name, std::optional<int> res = {}) {
  SceneOptions options;
  options.scene = name;
  options.res = res;
  return options;
}

TimeSettings timeOf(double dt, std::optional<int> skip = {}) {
  TimeSettings t;
  t.dt = dt;
  t.auto_skip = !skip.has_value();
  t.manual_skip = skip.value_or(0);
  return t;
}

struct Loaded {
  SimSession session;
  explicit Loaded(const SceneOptions& scene, const TimeSettings& time = timeOf(0.01),
                  SolverSettings solver = {}) {
    Status s = session.load(scene, "cpu", solver, time);
    EXPECT_TRUE(s.isOk()) << s.message();
  }
};

glm::vec3 visual(const SimSession& session, size_t particle) {
  std::vector<glm::vec3> x(session.model().particleCount());
  session.writeVisual(x);
  return x[particle];
}

TEST(SimSession, WallTimeBecomesTicksAndSolvesEveryNPlusOne) {
  Loaded l(named("spring1d"));
  SimSession& s = l.session;
  EXPECT_EQ(s.skip(), 2);  // dt = 0.01 -> n = 2, h = 0.03
  EXPECT_NEAR(s.h(), 0.03, 1e-12);

  // sixty frames of 1/60 s: one second of ticks (give or take the accumulator's rounding)
  int ticks = 0, solves = 0;
  std::set<int> alphas;
  for (int frame = 0; frame < 60; ++frame) {
    const FrameAdvance a = s.advance(1.0 / 60.0);
    ticks += a.ticks;
    solves += a.solves;
    EXPECT_FALSE(a.dropped);
    alphas.insert(int(std::lround(s.alpha() * 3.0f)));
  }
  EXPECT_GE(ticks, 99);
  EXPECT_LE(ticks, 100);
  EXPECT_EQ(solves, (ticks + 2) / 3);  // the first tick of every three solves
  EXPECT_NEAR(s.simTime(), ticks * 0.01, 1e-9);
  EXPECT_EQ(s.solves(), solves);
  // alpha = k / (n + 1): 1/3, 2/3, 1
  EXPECT_EQ(alphas, (std::set<int>{1, 2, 3}));
}

TEST(SimSession, AFrameRunsAtMostItsCapAndTheTimeScaleCounts) {
  Loaded l(named("spring1d"));
  SimSession& s = l.session;
  // a ten-second hiccup advances at most kMaxFrameSimSeconds
  FrameAdvance a = s.advance(10.0);
  EXPECT_EQ(a.ticks, int(std::ceil(kMaxFrameSimSeconds / 0.01)));
  EXPECT_TRUE(a.dropped);

  // half speed: half the ticks
  TimeSettings slow = s.time();
  slow.time_scale = 0.5;
  s.setTime(slow);
  int ticks = 0;
  for (int frame = 0; frame < 100; ++frame)
    ticks += s.advance(0.01).ticks;
  EXPECT_NEAR(ticks, 50, 1);
}

TEST(SimSession, PauseStopsTimeAndStepRunsOneSolveInterval) {
  Loaded l(named("spring1d"));
  SimSession& s = l.session;
  s.setPaused(true);
  EXPECT_EQ(s.advance(1.0).ticks, 0);
  EXPECT_EQ(s.simTime(), 0.0);

  // a step: n + 1 = 3 ticks, one solve, ending on the solved state (alpha 1)
  s.requestStep();
  const FrameAdvance a = s.advance(1.0 / 60.0);
  EXPECT_EQ(a.ticks, 3);
  EXPECT_EQ(a.solves, 1);
  EXPECT_FLOAT_EQ(s.alpha(), 1.0f);
  EXPECT_NEAR(s.physicsTime(), 0.03, 1e-12);
  EXPECT_EQ(visual(s, 1), s.state().x[1]);
  EXPECT_EQ(s.advance(1.0).ticks, 0);  // still paused

  // paused between two solves, a step finishes that interval and runs one more
  s.setPaused(false);
  (void)s.advance(0.0105);  // one tick: the next solve, alpha 1/3
  ASSERT_EQ(s.solves(), 2);
  s.setPaused(true);
  s.requestStep();
  const FrameAdvance b = s.advance(0.0);
  EXPECT_EQ(b.solves, 1);
  EXPECT_EQ(b.ticks, 5);
  EXPECT_FLOAT_EQ(s.alpha(), 1.0f);
}

TEST(SimSession, ANewDtAppliesAtTheNextSolveWithoutLosingTime) {
  Loaded l(named("spring1d"));
  SimSession& s = l.session;
  // stop mid-interval: one tick after a solve (alpha 1/3)
  s.setPaused(true);
  s.requestStep();
  (void)s.advance(0.0);
  s.setPaused(false);
  (void)s.advance(0.0105);  // one tick
  ASSERT_NEAR(s.simTime(), 0.04, 1e-9);

  // dt 0.01 -> 0.005 (auto skip: n = 6): the old interval finishes first
  s.setTime(timeOf(0.005));
  EXPECT_NEAR(s.h(), 0.03, 1e-12);
  for (int i = 0; i < 200; ++i)
    (void)s.advance(1.0 / 60.0);
  EXPECT_EQ(s.skip(), 6);
  EXPECT_NEAR(s.h(), 0.035, 1e-12);

  // the report counts every tick of both runs
  const RunSummary summary = s.summary(1.0);
  EXPECT_NEAR(summary.sim_time, s.simTime(), 1e-9);
  EXPECT_NEAR(summary.dt, 0.005, 1e-12);
  EXPECT_EQ(summary.solves, s.solves());
  EXPECT_GT(summary.ticks, 0);
  EXPECT_NEAR(summary.physics_time, s.physicsTime(), 1e-9);
}

TEST(SimSession, MaterialChangesApplyAtTheNextSolveWithoutAJump) {
  Loaded l(named("cloth", 8));
  SimSession& s = l.session;
  for (int i = 0; i < 20; ++i)
    (void)s.advance(1.0 / 60.0);

  // the visual path around the change moves as smoothly as before it
  const size_t corner = s.model().particleCount() - 1;  // a free corner
  auto biggestStep = [&](int frames) {
    float biggest = 0.0f;
    glm::vec3 last = visual(s, corner);
    for (int i = 0; i < frames; ++i) {
      (void)s.advance(1.0 / 60.0);
      const glm::vec3 now = visual(s, corner);
      biggest = std::max(biggest, glm::length(now - last));
      last = now;
    }
    return biggest;
  };
  const float before = biggestStep(10);
  MaterialSettings m = s.material();
  m.stiffness *= 4.0f;
  m.mass *= 0.5f;
  s.setMaterial(m);
  const float during = biggestStep(10);
  EXPECT_LT(during, 2.0f * before + 1e-3f) << "before " << before << ", during " << during;

  // the backend runs the new model: every spring 4x, bending still 0.1x
  EXPECT_NEAR(s.model().stiffness[0], 4.0e4f, 1.0f);
  float smallest = 1e30f;
  for (float k : s.model().stiffness)
    smallest = std::min(smallest, k);
  EXPECT_NEAR(smallest, 4.0e3f, 0.5f);
  EXPECT_FALSE(s.divergedAt().has_value());
}

TEST(SimSession, Spring1dFollowsTheClosedFormWithSmallSteps) {
  SolverSettings solver;
  solver.integrator = Integrator::kSymplectic;
  Loaded l(named("spring1d"), timeOf(1e-4, 0), solver);
  SimSession& s = l.session;
  ASSERT_TRUE(s.isOscillator());
  ASSERT_TRUE(s.oscillator().has_value());
  for (int i = 0; i < 60; ++i)
    (void)s.advance(1.0 / 60.0);
  ASSERT_GT(s.physicsTime(), 0.5);
  double worst = 0.0;
  for (const SolveSample& sample : s.history().samples()) {
    worst = std::max(worst, std::abs(sample.height - s.oscillator()->height(sample.time)));
  }
  EXPECT_LT(worst, 2e-3);  // of an amplitude of 0.098 m
}

TEST(SimSession, DivergenceStopsTheRunUntilReset) {
  SolverSettings solver;
  solver.integrator = Integrator::kExplicit;
  SceneOptions scene = named("cloth", 8);
  scene.stiffness = 1e6;
  Loaded l(scene, timeOf(0.01), solver);
  SimSession& s = l.session;
  for (int i = 0; i < 600 && !s.divergedAt(); ++i)
    (void)s.advance(1.0 / 60.0);
  ASSERT_TRUE(s.divergedAt().has_value());
  EXPECT_GT(*s.divergedAt(), 0.0);
  const double t = s.simTime();
  EXPECT_EQ(s.advance(1.0).ticks, 0);
  EXPECT_EQ(s.simTime(), t);
  EXPECT_TRUE(s.summary(1.0).diverged_at.has_value());

  EXPECT_TRUE(s.paused());  // a divergence pauses

  ASSERT_TRUE(s.reset().isOk());
  EXPECT_FALSE(s.divergedAt().has_value());
  EXPECT_FALSE(s.paused());  // and a reset ends that pause
  EXPECT_EQ(s.simTime(), 0.0);
  EXPECT_NEAR(s.model().stiffness[0], 1e6f, 1.0f);  // the settings survive a reset
}

// Loads "cuda" as a backend whose `fail_at`-th step fails, "cpu" as the CPU backend.
BackendLoader faultyCuda(int64_t fail_at, const FailingBackend** made = nullptr) {
  return [fail_at, made](const std::string& name, const Model& model, const State& state,
                         Integrator, BackendChoice* out) {
    if (name == "cuda") {
      auto backend = std::make_unique<FailingBackend>(fail_at);
      if (made) *made = backend.get();
      out->backend = std::move(backend);
    } else {
      out->backend = std::make_unique<CpuBackend>();
    }
    return out->backend->load(model, state);
  };
}

// n solves, one requested step at a time
void stepSolves(SimSession* s, int n) {
  for (int i = 0; i < n; ++i) {
    s->requestStep();
    (void)s->advance(0.0);
  }
}

TEST(SimSession, AFailingDeviceBackendHandsTheLastGoodStateToTheCpu) {
  const SceneOptions scene = named("cloth", 8);
  SolverSettings solver;
  solver.tolerance = 1e-6f;
  const FailingBackend* device = nullptr;
  SimSession faulty(faultyCuda(5, &device));
  ASSERT_TRUE(faulty.load(scene, "cuda", solver, timeOf(0.01)).isOk());
  ASSERT_EQ(faulty.backend().name(), "cuda");
  ASSERT_EQ(&faulty.backend(), device);
  faulty.setPaused(true);
  SimSession cpu;
  ASSERT_TRUE(cpu.load(scene, "cpu", solver, timeOf(0.01)).isOk());
  cpu.setPaused(true);

  stepSolves(&faulty, 4);
  stepSolves(&cpu, 4);
  EXPECT_FALSE(faulty.backendSwitch().has_value());
  EXPECT_EQ(faulty.state().x, cpu.state().x);

  // the fifth solve fails on the device and is re-run on the CPU from solve 4's state
  stepSolves(&faulty, 1);
  ASSERT_FALSE(faulty.backendError().has_value()) << *faulty.backendError();
  ASSERT_TRUE(faulty.backendSwitch().has_value());
  EXPECT_EQ(faulty.backendSwitch()->at_solve, 5);
  EXPECT_NEAR(faulty.backendSwitch()->time, 4 * faulty.h(), 1e-12);
  EXPECT_EQ(faulty.backendSwitch()->from, "cuda");
  EXPECT_EQ(faulty.backendSwitch()->to, "cpu");
  // backend() is the live one: the app re-picks its vertex writer when this object changes
  EXPECT_EQ(faulty.backend().name(), "cpu");
  EXPECT_NE(&faulty.backend(), static_cast<const Backend*>(nullptr));
  EXPECT_NE(faulty.notice().find("cuda backend failed at solve 5"), std::string::npos)
      << faulty.notice();
  EXPECT_NE(faulty.notice().find("illegal memory access"), std::string::npos);
  faulty.clearNotice();

  // and goes on as the CPU run does, solve for solve
  stepSolves(&cpu, 1);
  EXPECT_EQ(faulty.state().x, cpu.state().x);
  EXPECT_EQ(faulty.state().v, cpu.state().v);
  for (int i = 0; i < 10; ++i) {
    stepSolves(&faulty, 1);
    stepSolves(&cpu, 1);
    ASSERT_EQ(faulty.state().x, cpu.state().x) << "solve " << 6 + i;
  }
  EXPECT_EQ(faulty.solves(), 15);
  std::vector<glm::vec3> drawn(faulty.model().particleCount());
  faulty.writeVisual(drawn);  // the visual state comes from the CPU backend now
  EXPECT_EQ(drawn, faulty.state().x);
  EXPECT_TRUE(faulty.notice().empty());  // told once

  // a reset stays on the CPU
  ASSERT_TRUE(faulty.reset().isOk());
  EXPECT_EQ(faulty.backend().name(), "cpu");
  EXPECT_FALSE(faulty.backendSwitch().has_value());
}

TEST(SimSession, ADeviceFailureAfterALiveChangeCountsTheWholeRun) {
  // a change of dt starts a new Simulation; the switch is still told in whole-run solves and time
  SimSession faulty(faultyCuda(7));
  ASSERT_TRUE(faulty.load(named("spring1d"), "cuda", SolverSettings{}, timeOf(0.01, 0)).isOk());
  faulty.setPaused(true);
  stepSolves(&faulty, 3);  // h = 0.01
  faulty.setTime(timeOf(0.02, 0));
  stepSolves(&faulty, 5);  // h = 0.02: device steps 4..8, the 7th fails (solve 7 overall)
  ASSERT_TRUE(faulty.backendSwitch().has_value());
  EXPECT_EQ(faulty.backendSwitch()->at_solve, 7);
  EXPECT_NEAR(faulty.backendSwitch()->time, 3 * 0.01 + 3 * 0.02, 1e-9);
  EXPECT_EQ(faulty.solves(), 8);
}

TEST(SimSession, DivergencePausesAndRevertGoesBackToTheLastFiniteState) {
  SolverSettings solver;
  solver.integrator = Integrator::kExplicit;
  SceneOptions scene = named("cloth", 8);
  scene.stiffness = 1e6;
  Loaded l(scene, timeOf(0.01, 0), solver);
  SimSession& s = l.session;
  std::vector<State> states;
  for (int i = 0; i < 600 && !s.divergedAt(); ++i) {
    stepSolves(&s, 1);
    states.push_back(s.state());
  }
  ASSERT_TRUE(s.divergedAt().has_value());
  ASSERT_GE(states.size(), 2u);
  EXPECT_TRUE(s.paused());  // auto-paused
  const int64_t solves = s.solves();
  const State& last_finite = states[states.size() - 2];

  ASSERT_TRUE(s.revertToLastFinite().isOk());
  EXPECT_FALSE(s.divergedAt().has_value());
  EXPECT_TRUE(s.paused());
  EXPECT_EQ(s.state().x, last_finite.x);
  EXPECT_EQ(s.state().v, last_finite.v);
  EXPECT_EQ(s.solves(), solves - 1);
  EXPECT_NEAR(s.physicsTime(), double(solves - 1) * 0.01, 1e-9);
  std::vector<glm::vec3> drawn(s.model().particleCount());
  s.writeVisual(drawn);
  EXPECT_EQ(drawn, last_finite.x);
  EXPECT_FALSE(s.revertToLastFinite().isOk());  // nothing diverged now

  // the backend holds that state: the same solve, re-run, diverges at the same time again
  const double diverged_at = double(solves) * 0.01;
  stepSolves(&s, 1);
  ASSERT_TRUE(s.divergedAt().has_value());
  EXPECT_NEAR(*s.divergedAt(), diverged_at, 1e-9);
  EXPECT_EQ(s.solves(), solves);
}

TEST(SimSession, CgAtItsCapIsCountedNeverSilent) {
  SolverSettings capped;
  capped.max_iterations = 2;  // far too few for a 16 x 16 cloth once it moves
  Loaded l(named("cloth", 16), timeOf(0.01), capped);
  SimSession& s = l.session;
  s.setPaused(true);
  // the count is the number of solves whose CG stopped at the cap, one by one
  int64_t seen = 0;
  for (int i = 0; i < 8; ++i) {
    stepSolves(&s, 1);
    ASSERT_TRUE(s.lastSolve().has_value());
    seen += s.lastSolve()->step.cg_converged ? 0 : 1;
    EXPECT_EQ(s.cgUnconverged(), seen) << "solve " << i + 1;
  }
  EXPECT_GE(seen, 6);
  EXPECT_EQ(s.summary(1.0).totals.cg_unconverged, seen);

  // with room to converge, the count stops growing
  SolverSettings roomy;
  roomy.max_iterations = 1000;
  s.setSolver(roomy);
  stepSolves(&s, 5);
  EXPECT_EQ(s.cgUnconverged(), seen);
  EXPECT_TRUE(s.lastSolve()->step.cg_converged);
}

TEST(SimSession, AFailedLoadKeepsTheSceneAndCudaSaysWhy) {
  Loaded l(named("spring1d"));
  SimSession& s = l.session;
  Status bad = s.load(named("no-such-file.json"), "cpu", SolverSettings{}, timeOf(0.01));
  EXPECT_FALSE(bad.isOk());
  EXPECT_EQ(s.scene().name, "spring1d");
  Status cuda = s.setBackend("cuda");
  if (!cuda) {
    EXPECT_FALSE(cuda.message().empty());
    EXPECT_EQ(s.backend().name(), "cpu");
  }
}

TEST(SimSession, PullingSpring1dLiftsTheMassAndReleaseLetsItOscillate) {
  Loaded l(named("spring1d"));
  SimSession& s = l.session;
  const glm::vec3 start = s.state().x[1];
  Pull pull;
  pull.particle = 1;
  pull.constraint = PullConstraint::kAxis;
  pull.direction = {0.0f, 1.0f, 0.0f};
  pull.target = start + glm::vec3(0.0f, 0.4f, 0.0f);
  s.setPull(pull, defaultPull(PullScale{1.0f, 100.0f, false, 0.03}));
  EXPECT_FALSE(s.oscillator().has_value());
  for (int i = 0; i < 120; ++i)
    (void)s.advance(1.0 / 60.0);
  const float held = s.state().x[1].y;
  EXPECT_GT(held, start.y + 0.2f);  // most of the way to the cursor
  EXPECT_LT(held, pull.target.y + 0.01f);
  EXPECT_NEAR(s.state().x[1].x, 0.0f, 1e-6f);  // on the axis only

  // release: it falls back and swings about the rest height
  s.setPull(Pull{}, defaultPull(PullScale{1.0f, 100.0f, false, 0.03}));
  ASSERT_TRUE(s.oscillator().has_value());
  float lowest = held, highest = -1e9f;
  for (int i = 0; i < 120; ++i) {
    (void)s.advance(1.0 / 60.0);
    lowest = std::min(lowest, s.state().x[1].y);
    highest = std::max(highest, s.state().x[1].y);
  }
  const double rest = s.oscillator()->y_rest;
  EXPECT_LT(lowest, rest - 0.05);  // overshoots below the rest height
  EXPECT_GT(highest, rest);
}

TEST(SimSession, SummaryHasTheRunReportFields) {
  Loaded l(named("volume", 4));
  SimSession& s = l.session;
  for (int i = 0; i < 30; ++i)
    (void)s.advance(1.0 / 60.0);
  const RunSummary r = s.summary(0.5);
  EXPECT_EQ(r.scene, "volume");
  EXPECT_EQ(r.integrator, "implicit");
  EXPECT_EQ(r.backend, "cpu");
  EXPECT_GT(r.solves, 0);
  EXPECT_GT(r.sim_time, 0.0);
  EXPECT_EQ(r.particles, s.model().particleCount());
  EXPECT_EQ(r.totals.solves, r.solves);
  const nlohmann::json json = runReportJson(r);
  for (const char* key :
       {"scene", "integrator", "backend", "dt", "skip", "h", "ticks", "solves", "sim_time",
        "physics_time", "wall_seconds", "diverged", "diverged_at", "energy", "max_strain", "cg",
        "particles", "springs", "solver_ms_per_solve"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
}

}  // namespace
}  // namespace hooke
