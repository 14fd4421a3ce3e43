// Tests of the Newton-solved integrators of sim/cpu_backend (newton, bdf2): orders of accuracy,
// numerical damping against the exact oscillator, convergence, and stretch at large steps.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/cpu_backend.h"
#include "sim/damped_oscillator.h"
#include "sim/scenes.h"
#include "sim/simulation.h"

namespace hooke {
namespace {

std::unique_ptr<Backend> loaded(const Scene& scene, Integrator integrator, float tolerance) {
  auto backend = std::make_unique<CpuBackend>();
  EXPECT_TRUE(backend->load(scene.model, scene.state).isOk());
  SolverSettings settings;
  settings.integrator = integrator;
  settings.tolerance = tolerance;
  settings.max_iterations = 2000;
  backend->setSettings(settings);
  return backend;
}

// spring1d's displacement from equilibrium, simulated and exact, at every step of h
struct Spring1dRun {
  std::vector<double> simulated, exact;
};

Spring1dRun runSpring1d(Integrator integrator, double h, double seconds) {
  Scene scene = makeSpring1d({});
  const Model& m = scene.model;
  const double k = m.stiffness[0], c = m.damping[0], mass = m.mass[1];
  const double y_eq = 1.0 - mass * -m.gravity.y / k;
  DampedOscillator exact{mass, k, c, 1.0 - y_eq, 0.0};
  auto backend = loaded(scene, integrator, 1e-7f);
  Spring1dRun run;
  State s;
  const int steps = static_cast<int>(std::lround(seconds / h));
  for (int n = 1; n <= steps; ++n) {
    EXPECT_TRUE(backend->step(static_cast<float>(h), {}, nullptr).isOk());
    backend->readState(&s);
    run.simulated.push_back(s.x[1].y - y_eq);
    run.exact.push_back(exact.displacement(n * h));
  }
  return run;
}

double maxError(const Spring1dRun& run) {
  double worst = 0.0;
  for (size_t i = 0; i < run.exact.size(); ++i) {
    worst = std::max(worst, std::abs(run.simulated[i] - run.exact[i]));
  }
  return worst;
}

TEST(ImplicitIntegrators, NewtonIsFirstOrderAndBdf2SecondOrder) {
  const double newton_ratio = maxError(runSpring1d(Integrator::kNewton, 0.002, 1.0)) /
                              maxError(runSpring1d(Integrator::kNewton, 0.001, 1.0));
  EXPECT_NEAR(newton_ratio, 2.0, 0.3);
  // BDF2: halving h quarters the error
  const double e1 = maxError(runSpring1d(Integrator::kBdf2, 0.004, 1.0));
  const double e2 = maxError(runSpring1d(Integrator::kBdf2, 0.002, 1.0));
  const double e3 = maxError(runSpring1d(Integrator::kBdf2, 0.001, 1.0));
  EXPECT_NEAR(e1 / e2, 4.0, 0.8) << e1 << " " << e2;
  EXPECT_NEAR(e2 / e3, 4.0, 0.8) << e2 << " " << e3;
}

// amplitude over the last of 10 periods, relative to the exact one
double amplitudeError(Integrator integrator, double h) {
  const double period = 2.0 * M_PI / 10.0;  // ω0 = √(100 / 1) = 10 rad/s
  Spring1dRun run = runSpring1d(integrator, h, 10.0 * period);
  const size_t last = static_cast<size_t>(period / h);
  double simulated = 0.0, exact = 0.0;
  for (size_t i = run.exact.size() - last; i < run.exact.size(); ++i) {
    simulated = std::max(simulated, std::abs(run.simulated[i]));
    exact = std::max(exact, std::abs(run.exact[i]));
  }
  return std::abs(simulated - exact) / exact;
}

TEST(ImplicitIntegrators, Bdf2KeepsTheAmplitudeImplicitEulerDampsAway) {
  // m = 1 kg, k = 100 N/m, c = 0.1 N·s/m, h = 0.01 s, after 10 periods
  const double implicit_error = amplitudeError(Integrator::kImplicit, 0.01);
  const double bdf2_error = amplitudeError(Integrator::kBdf2, 0.01);
  EXPECT_GT(implicit_error, 0.5);  // backward Euler has lost most of the oscillation
  EXPECT_LE(bdf2_error, implicit_error / 20.0) << bdf2_error << " vs " << implicit_error;
}

TEST(ImplicitIntegrators, NewtonConvergesOnASoftCloth) {
  Material material;
  material.stiffness = 1e3f;
  Scene scene = makeCloth(8, material);
  auto backend = loaded(scene, Integrator::kNewton, 1e-6f);
  for (int i = 0; i < 20; ++i) {
    StepStats stats;
    ASSERT_TRUE(backend->step(0.02f, {}, &stats).isOk());
    EXPECT_LE(stats.newton_residual, SolverSettings{}.newton_tolerance) << "step " << i;
    EXPECT_LT(stats.newton_iterations, 10) << "step " << i;
    EXPECT_GE(stats.newton_iterations, 1);
  }
}

// the largest strain over the first second of the 10 × 10 cloth falling from horizontal
double worstStrain(Integrator integrator, double h) {
  Material material;
  material.stiffness = 1e5f;
  Scene scene = makeCloth(10, material);
  Simulation sim(loaded(scene, integrator, 1e-5f), scene.model, scene.state, h, 0);
  double worst = 0.0;
  for (int tick = 0; tick < static_cast<int>(1.0 / h); ++tick) {
    auto report = sim.tick();
    EXPECT_TRUE(report.has_value());
    if (report) worst = std::max(worst, report->strain.max);
  }
  EXPECT_FALSE(sim.diverged());
  return worst;
}

TEST(ImplicitIntegrators, NewtonRemovesTheLinearisationsOverstretch) {
  // k = 1e5 at h = 0.1: one linearised step stretches springs by about 125 %
  const double linearised = worstStrain(Integrator::kImplicit, 0.1);
  EXPECT_GT(linearised, 1.0);
  for (Integrator integrator : {Integrator::kNewton, Integrator::kBdf2}) {
    for (double h : {0.05, 0.1}) {
      EXPECT_LT(worstStrain(integrator, h), 0.05) << integratorName(integrator) << " h " << h;
    }
  }
}

TEST(ImplicitIntegrators, Bdf2RestartsWhenTheStepChanges) {
  // a changed h drops the history: that step is a backward-Euler step, like newton's
  Scene scene = makeSpring1d({});
  auto bdf2 = loaded(scene, Integrator::kBdf2, 1e-7f);
  auto newton = loaded(scene, Integrator::kNewton, 1e-7f);
  State a, b;
  ASSERT_TRUE(bdf2->step(0.01f, {}, nullptr).isOk());
  ASSERT_TRUE(newton->step(0.01f, {}, nullptr).isOk());
  bdf2->readState(&a);
  newton->readState(&b);
  EXPECT_EQ(a.x, b.x);  // the first step has no history
  ASSERT_TRUE(bdf2->step(0.01f, {}, nullptr).isOk());
  ASSERT_TRUE(newton->step(0.01f, {}, nullptr).isOk());
  bdf2->readState(&a);
  newton->readState(&b);
  EXPECT_NE(a.x, b.x);  // the second is a true BDF2 step
  ASSERT_TRUE(newton->load(scene.model, a).isOk());
  ASSERT_TRUE(bdf2->step(0.02f, {}, nullptr).isOk());
  ASSERT_TRUE(newton->step(0.02f, {}, nullptr).isOk());
  bdf2->readState(&a);
  newton->readState(&b);
  EXPECT_EQ(a.x, b.x);  // a new h starts again with backward Euler
}

}  // namespace
}  // namespace hooke
