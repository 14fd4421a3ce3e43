// Tests of sim/cpu_backend: convergence to the exact oscillator, energy, stability and pinning.
#include "sim/cpu_backend.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/damped_oscillator.h"
#include "sim/metrics.h"
#include "sim/scenes.h"
#include "sim/simulation.h"

namespace hooke {
namespace {

std::unique_ptr<Backend> loaded(const Scene& scene, SolverSettings settings) {
  auto backend = std::make_unique<CpuBackend>();
  EXPECT_TRUE(backend->load(scene.model, scene.state).isOk());
  backend->setSettings(settings);
  return backend;
}

SolverSettings settingsFor(Integrator integrator, float tolerance = 1e-6f) {
  SolverSettings s;
  s.integrator = integrator;
  s.tolerance = tolerance;
  s.max_iterations = 1000;
  return s;
}

// max |y(t) − y_exact(t)| of spring1d's mass over `seconds`, stepping h = dt
double spring1dError(Integrator integrator, double dt, double seconds) {
  Scene scene = makeSpring1d({});
  const Model& m = scene.model;
  const double k = m.stiffness[0], c = m.damping[0], mass = m.mass[1], g = -m.gravity.y;
  // equilibrium 1 m + mg/k below the anchor; released from rest at the rest length
  const double y_eq = 2.0 - 1.0 - mass * g / k;
  DampedOscillator exact{mass, k, c, 1.0 - y_eq, 0.0};
  auto backend = loaded(scene, settingsFor(integrator, 1e-7f));
  State state;
  double worst = 0.0;
  const int steps = static_cast<int>(std::lround(seconds / dt));
  for (int n = 1; n <= steps; ++n) {
    EXPECT_TRUE(backend->step(static_cast<float>(dt), {}, nullptr).isOk());
    backend->readState(&state);
    EXPECT_EQ(state.x[1].x, 0.0f);  // stays on the vertical axis
    EXPECT_EQ(state.x[1].z, 0.0f);
    worst = std::max(worst, std::abs(state.x[1].y - (y_eq + exact.displacement(n * dt))));
  }
  return worst;
}

TEST(CpuBackend, Spring1dConvergesAtFirstOrder) {
  for (Integrator integrator : {Integrator::kSymplectic, Integrator::kImplicit}) {
    double e1 = spring1dError(integrator, 0.004, 2.0);
    double e2 = spring1dError(integrator, 0.002, 2.0);
    double e3 = spring1dError(integrator, 0.001, 2.0);
    SCOPED_TRACE(std::string(integratorName(integrator)));
    // halving dt roughly halves the error
    EXPECT_NEAR(e1 / e2, 2.0, 0.3) << e1 << " " << e2;
    EXPECT_NEAR(e2 / e3, 2.0, 0.3) << e2 << " " << e3;
    EXPECT_LT(e3, 0.01);
  }
}

TEST(CpuBackend, ExplicitEulerIsTheTemplateFormula) {
  // one step by hand: x1 = x0 + h v0, v1 = v0 + h f(x0, v0) / m
  Scene scene = makeSpring1d({});
  scene.state.x[1] = {0.0f, 0.5f, 0.0f};  // stretched by 0.5 m
  scene.state.v[1] = {0.0f, -1.0f, 0.0f};
  auto backend = loaded(scene, settingsFor(Integrator::kExplicit));
  ASSERT_TRUE(backend->step(0.01f, {}, nullptr).isOk());
  State s;
  backend->readState(&s);
  // f = −9.81 (gravity) + 100 · 0.5 (spring pulls up) + 0.1 · 1 (damper opposes the fall)
  const float f = -9.81f + 50.0f + 0.1f;
  EXPECT_FLOAT_EQ(s.x[1].y, 0.5f - 0.01f);
  EXPECT_NEAR(s.v[1].y, -1.0f + 0.01f * f, 1e-6f);
  EXPECT_EQ(s.x[0], glm::vec3(0, 2, 0));  // the anchor never moves
}

TEST(CpuBackend, ExternalForceActsOnTheDrivenParticle) {
  Scene scene = makeSpring1d({});
  auto backend = loaded(scene, settingsFor(Integrator::kSymplectic));
  std::vector<glm::vec3> external(2, glm::vec3(0.0f));
  external[1] = {0.0f, 9.81f, 0.0f};  // exactly cancels gravity at the rest length
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(backend->step(0.01f, external, nullptr).isOk());
  State s;
  backend->readState(&s);
  EXPECT_NEAR(s.x[1].y, 1.0f, 1e-6f);
  EXPECT_FALSE(backend->step(0.01f, std::vector<glm::vec3>(3), nullptr).isOk());
}

// total energy over a damped run with no input never rises above where it started
void expectEnergyNonIncreasing(const Scene& scene, Integrator integrator, double h, int steps,
                               double slack) {
  auto backend = loaded(scene, settingsFor(integrator, 1e-6f));
  State s;
  backend->readState(&s);
  double previous = computeEnergy(scene.model, s).total();
  const double start = previous;
  for (int n = 0; n < steps; ++n) {
    ASSERT_TRUE(backend->step(static_cast<float>(h), {}, nullptr).isOk());
    backend->readState(&s);
    double e = computeEnergy(scene.model, s).total();
    ASSERT_LE(e, previous + slack) << "step " << n;
    ASSERT_LE(e, start + slack) << "step " << n;
    if (integrator == Integrator::kImplicit) previous = e;  // implicit: step by step
  }
  EXPECT_LT(computeEnergy(scene.model, s).total(), start);
}

TEST(CpuBackend, DampedEnergyDoesNotIncrease) {
  expectEnergyNonIncreasing(makeSpring1d({}), Integrator::kImplicit, 0.01, 500, 1e-9);
  expectEnergyNonIncreasing(makeCloth(12, {}), Integrator::kImplicit, 0.02, 150, 1e-6);
  expectEnergyNonIncreasing(makeVolume(6, {}), Integrator::kImplicit, 0.02, 150, 1e-6);
  // symplectic Euler's energy oscillates at O(h); at a small step it stays below the start
  expectEnergyNonIncreasing(makeSpring1d({}), Integrator::kSymplectic, 0.001, 3000, 1e-6);
  expectEnergyNonIncreasing(makeCloth(12, {}), Integrator::kSymplectic, 1e-4, 3000, 1e-4);
}

TEST(CpuBackend, ImplicitSurvivesLargeStepsAndHighStiffness) {
  Material material;
  material.stiffness = 1e6f;
  Scene scene = makeCloth(32, material);
  SolverSettings settings = settingsFor(Integrator::kImplicit, 1e-4f);
  Simulation sim(loaded(scene, settings), scene.model, scene.state, 0.1, 0);
  double worst_strain = 0.0, late_strain = 0.0;
  for (int tick = 0; tick < 30; ++tick) {
    auto report = sim.tick();
    ASSERT_TRUE(report.has_value());
    worst_strain = std::max(worst_strain, report->strain.max);
    if (tick >= 20) late_strain = std::max(late_strain, report->strain.max);
  }
  EXPECT_FALSE(sim.diverged());
  for (glm::vec3 x : sim.state().x)
    ASSERT_TRUE(std::isfinite(x.x + x.y + x.z));
  // the one-step linearisation overstretches in the first steps (the transverse stiffness is
  // zero at rest length), then the strain settles: bounded, and small once hanging
  EXPECT_LT(worst_strain, 10.0);
  EXPECT_LT(late_strain, 0.02);
  EXPECT_LT(sim.state().x[32 * 32 - 1].y, 2.0f);
}

TEST(CpuBackend, ExplicitDivergesAtStiffLargeStep) {
  Material material;
  material.stiffness = 1e5f;
  Scene scene = makeCloth(32, material);
  Simulation sim(loaded(scene, settingsFor(Integrator::kExplicit)), scene.model, scene.state, 0.01,
                 0);
  for (int tick = 0; tick < 200 && !sim.diverged(); ++tick)
    sim.tick();
  ASSERT_TRUE(sim.diverged());
  EXPECT_GT(*sim.divergedAt(), 0.0);
  EXPECT_LE(*sim.divergedAt(), 2.0);
  // stepping has stopped: further ticks do nothing
  const int64_t solves = sim.totals().solves;
  EXPECT_FALSE(sim.tick().has_value());
  EXPECT_EQ(sim.totals().solves, solves);
}

TEST(CpuBackend, PinnedParticlesNeverMove) {
  Scene scene = makeCloth(8, {});
  scene.state.v[0] = {1.0f, 2.0f, 3.0f};  // a pinned particle's velocity is zeroed on load
  for (Integrator integrator :
       {Integrator::kExplicit, Integrator::kSymplectic, Integrator::kImplicit}) {
    auto backend = loaded(scene, settingsFor(integrator));
    for (int i = 0; i < 20; ++i)
      ASSERT_TRUE(backend->step(0.001f, {}, nullptr).isOk());
    State s;
    backend->readState(&s);
    EXPECT_EQ(s.x[0], scene.state.x[0]);
    EXPECT_EQ(s.x[7], scene.state.x[7]);
    EXPECT_EQ(s.v[0], glm::vec3(0.0f));
    EXPECT_NE(s.x[63], scene.state.x[63]);
  }
}

TEST(CpuBackend, WriteVisualInterpolatesPreviousAndCurrent) {
  Scene scene = makeCloth(4, {});
  auto backend = loaded(scene, settingsFor(Integrator::kImplicit));
  ASSERT_TRUE(backend->step(0.05f, {}, nullptr).isOk());
  State s;
  backend->readState(&s);
  std::vector<glm::vec3> out(s.x.size());
  backend->writeVisual(0.25f, out);
  for (size_t i = 0; i < out.size(); ++i) {
    glm::vec3 expected = scene.state.x[i] + 0.25f * (s.x[i] - scene.state.x[i]);
    EXPECT_NEAR(glm::length(out[i] - expected), 0.0f, 1e-6f);
  }
}

TEST(CpuBackend, UpdateModelChangesStiffnessWithoutReset) {
  Scene scene = makeSpring1d({});
  auto backend = loaded(scene, settingsFor(Integrator::kImplicit));
  ASSERT_TRUE(backend->step(0.01f, {}, nullptr).isOk());
  Model stiffer = scene.model;
  stiffer.stiffness[0] = 1000.0f;
  ASSERT_TRUE(backend->updateModel(stiffer).isOk());
  State s;
  backend->readState(&s);
  EXPECT_LT(s.x[1].y, 1.0f);  // the state carried on from the first step
  Model rewired = scene.model;
  rewired.pinned[1] = 1;
  EXPECT_FALSE(backend->updateModel(rewired).isOk());
}

TEST(CpuBackend, CgReportsTheCapWhenItCannotConverge) {
  Material material;
  material.stiffness = 1e6f;
  Scene scene = makeCloth(16, material);
  SolverSettings settings = settingsFor(Integrator::kImplicit, 1e-7f);
  settings.max_iterations = 3;
  auto backend = loaded(scene, settings);
  // from rest the vertical system is diagonal (springs lie flat); a few steps make it coupled
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(backend->step(0.05f, {}, nullptr).isOk());
  StepStats stats;
  ASSERT_TRUE(backend->step(0.05f, {}, &stats).isOk());
  EXPECT_EQ(stats.cg_iterations, 3);
  EXPECT_FALSE(stats.cg_converged);
  EXPECT_GT(stats.cg_residual, 1e-7f);
}

}  // namespace
}  // namespace hooke
