// Tests of sim/simulation: the backend fallback (a step that fails mid-run is re-run on a
// replacement loaded with the last good state, and the trajectory goes on as a CPU run from that
// state would) and the last finite state kept across a divergence.
#include "sim/simulation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/cpu_backend.h"
#include "sim/failing_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

SolverSettings implicitSettings() {
  SolverSettings s;
  s.integrator = Integrator::kImplicit;
  s.tolerance = 1e-6f;
  s.max_iterations = 1000;
  return s;
}

std::unique_ptr<Backend> loadedCpu(const Model& model, const State& state,
                                   const SolverSettings& settings) {
  auto backend = std::make_unique<CpuBackend>();
  EXPECT_TRUE(backend->load(model, state).isOk());
  backend->setSettings(settings);
  return backend;
}

std::unique_ptr<Backend> failingAt(int64_t step, const Scene& scene,
                                   const SolverSettings& settings) {
  auto backend = std::make_unique<FailingBackend>(step, "fake-gpu");
  EXPECT_TRUE(backend->load(scene.model, scene.state).isOk());
  backend->setSettings(settings);
  return backend;
}

// the states after each of `solves` solves
std::vector<State> run(Simulation* sim, int solves) {
  std::vector<State> states;
  while (int(states.size()) < solves && !sim->error() && !sim->diverged()) {
    if (sim->tick()) states.push_back(sim->state());
  }
  return states;
}

TEST(Simulation, FailedStepContinuesOnTheFallbackFromTheLastGoodState) {
  const Scene scene = makeCloth(8, {});
  const SolverSettings settings = implicitSettings();
  const double dt = 0.01;
  const int skip = 1;  // h = 0.02
  constexpr int kFailAt = 5, kSolves = 12;

  Simulation sim(failingAt(kFailAt, scene, settings), scene.model, scene.state, dt, skip);
  State handed_over;
  int factory_calls = 0;
  sim.setFallback([&](const Model& model, const State& state, std::unique_ptr<Backend>* out) {
    ++factory_calls;
    handed_over = state;
    *out = loadedCpu(model, state, settings);
    return Status::ok();
  });
  const std::vector<State> states = run(&sim, kSolves);

  ASSERT_FALSE(sim.error()) << *sim.error();
  ASSERT_EQ(states.size(), size_t(kSolves));
  EXPECT_EQ(sim.totals().solves, kSolves);
  EXPECT_EQ(factory_calls, 1);
  EXPECT_EQ(sim.backend().name(), "cpu");
  ASSERT_TRUE(sim.backendSwitch().has_value());
  const BackendSwitch& record = *sim.backendSwitch();
  EXPECT_EQ(record.at_solve, kFailAt);
  EXPECT_NEAR(record.time, (kFailAt - 1) * 0.02, 1e-12);
  EXPECT_EQ(record.from, "fake-gpu");
  EXPECT_EQ(record.to, "cpu");
  EXPECT_NE(record.reason.find("injected fault at step 5"), std::string::npos) << record.reason;

  // the replacement got the state of solve 4: what a CPU run has after 4 solves
  Simulation reference(loadedCpu(scene.model, scene.state, settings), scene.model, scene.state, dt,
                       skip);
  const std::vector<State> cpu = run(&reference, kSolves);
  ASSERT_EQ(cpu.size(), size_t(kSolves));
  EXPECT_EQ(handed_over.x, cpu[kFailAt - 2].x);
  EXPECT_EQ(handed_over.v, cpu[kFailAt - 2].v);

  // from there on, solve by solve, the same trajectory as a CPU run started from that state
  Simulation resumed(loadedCpu(scene.model, handed_over, settings), scene.model, handed_over, dt,
                     skip);
  const std::vector<State> after = run(&resumed, kSolves - (kFailAt - 1));
  ASSERT_EQ(after.size(), size_t(kSolves - (kFailAt - 1)));
  for (size_t i = 0; i < after.size(); ++i) {
    SCOPED_TRACE("solve " + std::to_string(kFailAt + i));
    EXPECT_EQ(states[kFailAt - 1 + i].x, after[i].x);
    EXPECT_EQ(states[kFailAt - 1 + i].v, after[i].v);
  }
  // and the cloth did move between the switch and the end (the comparison is not of still states)
  EXPECT_NE(states.back().x, handed_over.x);
}

TEST(Simulation, WithoutFallbackAFailedStepEndsTheRunOnTheLastGoodState) {
  const Scene scene = makeCloth(6, {});
  Simulation sim(failingAt(3, scene, implicitSettings()), scene.model, scene.state, 0.01, 0);
  const std::vector<State> states = run(&sim, 10);
  ASSERT_EQ(states.size(), 2u);
  ASSERT_TRUE(sim.error().has_value());
  EXPECT_NE(sim.error()->find("illegal memory access"), std::string::npos) << *sim.error();
  EXPECT_FALSE(sim.backendSwitch().has_value());
  EXPECT_EQ(sim.state().x, states.back().x);
  EXPECT_EQ(sim.totals().solves, 2);
  EXPECT_FALSE(sim.tick().has_value());  // no further ticks run
}

TEST(Simulation, AFallbackThatFailsEndsTheRunWithBothReasons) {
  const Scene scene = makeCloth(6, {});
  Simulation sim(failingAt(2, scene, implicitSettings()), scene.model, scene.state, 0.01, 0);
  sim.setFallback([](const Model&, const State&, std::unique_ptr<Backend>*) {
    return Status::error("no CPU memory left");
  });
  const std::vector<State> states = run(&sim, 10);
  EXPECT_EQ(states.size(), 1u);
  ASSERT_TRUE(sim.error().has_value());
  EXPECT_NE(sim.error()->find("injected fault at step 2"), std::string::npos) << *sim.error();
  EXPECT_NE(sim.error()->find("no CPU memory left"), std::string::npos) << *sim.error();
  EXPECT_FALSE(sim.backendSwitch().has_value());
}

TEST(Simulation, TheFallbackIsUsedOnceAFailingReplacementEndsTheRun) {
  const Scene scene = makeCloth(6, {});
  const SolverSettings settings = implicitSettings();
  Simulation sim(failingAt(2, scene, settings), scene.model, scene.state, 0.01, 0);
  sim.setFallback([&](const Model& model, const State& state, std::unique_ptr<Backend>* out) {
    auto replacement = std::make_unique<FailingBackend>(3, "fake-gpu");  // fails its own third step
    Status loaded = replacement->load(model, state);
    replacement->setSettings(settings);
    *out = std::move(replacement);
    return loaded;
  });
  const std::vector<State> states = run(&sim, 10);
  // solve 1 on the first, solves 2 and 3 on the replacement, its third step (solve 4) fails
  EXPECT_EQ(states.size(), 3u);
  ASSERT_TRUE(sim.backendSwitch().has_value());
  EXPECT_EQ(sim.backendSwitch()->at_solve, 2);
  ASSERT_TRUE(sim.error().has_value());
  EXPECT_NE(sim.error()->find("injected fault at step 3"), std::string::npos) << *sim.error();
}

bool allFinite(const State& s) {
  for (const std::vector<glm::vec3>* v : {&s.x, &s.v}) {
    for (const glm::vec3& p : *v) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) return false;
    }
  }
  return true;
}

TEST(Simulation, KeepsTheStateBeforeTheDivergingSolve) {
  Material material;
  material.stiffness = 1e5f;
  const Scene scene = makeCloth(16, material);
  SolverSettings settings;
  settings.integrator = Integrator::kExplicit;
  Simulation sim(loadedCpu(scene.model, scene.state, settings), scene.model, scene.state, 0.01, 0);
  EXPECT_EQ(sim.previousState().x, scene.state.x);  // before any solve: the initial state
  const std::vector<State> states = run(&sim, 1000);
  ASSERT_TRUE(sim.diverged());
  ASSERT_GE(states.size(), 2u);
  // previousState is the state of the solve before the one that diverged, and it is finite
  const State& last_good = states[states.size() - 2];
  EXPECT_EQ(sim.previousState().x, last_good.x);
  EXPECT_EQ(sim.previousState().v, last_good.v);
  EXPECT_TRUE(allFinite(sim.previousState()));
  EXPECT_NEAR(*sim.divergedAt() - 0.01, double(states.size() - 1) * 0.01, 1e-9);
}

}  // namespace
}  // namespace hooke
