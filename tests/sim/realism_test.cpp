// Tests of the realism measures (src/sim/realism.h): the oscillation fit on synthetic signals,
// the spring1d closed-form checks, the integrators' order of accuracy, the converged reference,
// ω_max and the cloth-drop measure.
#include "sim/realism.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

#include "sim/scenes.h"
#include "sim/sweep.h"

namespace hooke {
namespace {

constexpr double kPi = std::numbers::pi;

// u(t) = e^{−ζ ω0 t} cos(ω_d t) sampled every h for `periods` and a quarter periods
void dampedCosine(double zeta, double w0, double h, int periods, std::vector<double>* t,
                  std::vector<double>* u) {
  const double wd = w0 * std::sqrt(1.0 - zeta * zeta);
  const int n = int(std::ceil((periods + 0.25) * 2.0 * kPi / wd / h));
  for (int i = 0; i <= n; ++i) {
    t->push_back(i * h);
    u->push_back(std::exp(-zeta * w0 * i * h) * std::cos(wd * i * h));
  }
}

TEST(Realism, FitRecoversPeriodAndDampingRatioOfSyntheticSignal) {
  const double w0 = 2.0 * kPi * 1.5;  // 1.5 Hz
  for (double zeta : {0.0, 0.005, 0.05}) {
    std::vector<double> t, u;
    dampedCosine(zeta, w0, 1e-3, 10, &t, &u);
    OscillationFit fit;
    ASSERT_TRUE(fitOscillation(t, u, &fit)) << zeta;
    const double period = 2.0 * kPi / (w0 * std::sqrt(1.0 - zeta * zeta));
    EXPECT_NEAR(fit.period, period, 1e-5 * period) << zeta;
    EXPECT_NEAR(fit.damping_ratio, zeta, 2e-5) << zeta;
    EXPECT_EQ(fit.crossings, 10);
    EXPECT_EQ(fit.peaks, 10);  // the t = 0 maximum is not a sampled peak
  }
  // coarse sampling (20 samples per period): the parabola still finds the peak value closely
  std::vector<double> t, u;
  dampedCosine(0.0, 2.0 * kPi, 0.05, 3, &t, &u);
  const std::vector<Peak> peaks = findPeaks(t, u);
  ASSERT_FALSE(peaks.empty());
  EXPECT_NEAR(peaks.front().time, 1.0, 1e-9);
  EXPECT_NEAR(peaks.front().value, 1.0, 1e-9);
  // too short to fit
  std::vector<double> t1{0, 1, 2}, u1{1, 0, -1};
  OscillationFit fit;
  EXPECT_FALSE(fitOscillation(t1, u1, &fit));
}

TEST(Realism, ZeroCrossingsInterpolateLinearly) {
  std::vector<double> t{0, 1, 2, 3}, u{-1, 3, -2, 2};
  const std::vector<double> c = upwardZeroCrossings(t, u);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c[0], 0.25);
  EXPECT_DOUBLE_EQ(c[1], 2.5);
}

// m 1 kg, k 100 N/m, c 0.1 N·s/m, dt 0.01 s: ω h = 0.1
TEST(Realism, Spring1dClosedFormChecks) {
  const Scene scene = makeSpring1d(Material{});
  const Spring1dCheck implicit = checkSpring1d(scene, Integrator::kImplicit, 0.01, 10, {});
  const Spring1dCheck bdf2 = checkSpring1d(scene, Integrator::kBdf2, 0.01, 10, {});
  const Spring1dCheck symplectic = checkSpring1d(scene, Integrator::kSymplectic, 0.01, 10, {});
  ASSERT_FALSE(implicit.diverged);
  ASSERT_FALSE(bdf2.diverged);
  EXPECT_NEAR(implicit.exact_period, 2.0 * kPi / (10.0 * std::sqrt(1.0 - 0.005 * 0.005)), 1e-9);
  EXPECT_NEAR(implicit.exact_damping_ratio, 0.005, 1e-9);  // c = 0.1f
  // backward Euler's |λ| = (1 + h²ω²)^(−1/2) per step adds ζ ≈ h ω / 2 = 0.05
  EXPECT_NEAR(implicit.added_damping_ratio, 0.05, 0.005);
  EXPECT_LT(implicit.amplitude_error, -0.9);  // after 10 periods little is left
  // BDF2 loses far less: at most a twentieth of implicit Euler's amplitude error
  EXPECT_LE(std::abs(bdf2.amplitude_error), std::abs(implicit.amplitude_error) / 20.0);
  EXPECT_LT(std::abs(bdf2.added_damping_ratio), 0.005);
  // symplectic Euler neither adds nor removes damping
  EXPECT_LT(std::abs(symplectic.added_damping_ratio), 1e-4);
  EXPECT_LT(std::abs(symplectic.period_error), 0.005);
  // a fine step converges on the exact period
  const Spring1dCheck fine = checkSpring1d(scene, Integrator::kBdf2, 1e-3, 3, {});
  EXPECT_LT(std::abs(fine.period_error), 1e-3);
  EXPECT_LT(std::abs(fine.amplitude_error), 1e-2);
}

// halving dt divides BDF2's error by about 4 (second order) and implicit Euler's by about 2
TEST(Realism, OrderOfAccuracyFromHalvingDt) {
  auto scene = [](double k) {
    Material m;
    m.stiffness = float(k);
    return makeSpring1d(m);
  };
  auto error = [&](Integrator integrator, double dt) {
    return runSweepCell(scene, {integrator, dt, 100.0}, 1.0, {}).realism_error;
  };
  const double bdf2 = error(Integrator::kBdf2, 0.01) / error(Integrator::kBdf2, 0.005);
  const double implicit = error(Integrator::kImplicit, 0.01) / error(Integrator::kImplicit, 0.005);
  EXPECT_NEAR(bdf2, 4.0, 0.5);
  EXPECT_NEAR(implicit, 2.0, 0.4);
}

TEST(Realism, OmegaMaxOfOneSpringAndOfALattice) {
  Material m;
  m.stiffness = 400.0f;
  m.mass = 4.0f;
  const Scene spring = makeSpring1d(m);
  const OmegaMax w = estimateOmegaMax(spring.model, spring.state);
  EXPECT_NEAR(w.power, 10.0, 1e-6);                   // √(k / m)
  EXPECT_NEAR(w.bound, std::sqrt(2.0) * 10.0, 1e-6);  // √(2 k / m)
  // the Gershgorin bound holds on a cloth and is not loose by more than √2 · 2
  const Scene cloth = makeCloth(6, Material{});
  const OmegaMax c = estimateOmegaMax(cloth.model, cloth.state);
  EXPECT_GT(c.power, 0.0);
  EXPECT_LE(c.power, c.bound * (1.0 + 1e-9));
  EXPECT_GT(c.power, c.bound / 2.0);
}

// symplectic Euler on spring1d (k 1e4, m 1): stable for h < 2/ω = 0.02 s
TEST(Realism, DivergenceDtOfSymplecticEulerMatchesTwoOverOmega) {
  Material m;
  m.stiffness = 1e4f;
  const Scene scene = makeSpring1d(m);
  const DivergenceLimit l = findDivergenceDt(scene, Integrator::kSymplectic, 1.0, 0.005, 4, {});
  ASSERT_TRUE(std::isfinite(l.stable_dt) && std::isfinite(l.diverged_dt));
  EXPECT_LT(l.stable_dt, l.diverged_dt);
  EXPECT_LT(l.diverged_dt / l.stable_dt, 1.2);
  EXPECT_GT(l.diverged_dt, 0.02 / 1.5);
  EXPECT_LT(l.stable_dt, 0.02 * 1.5);
}

TEST(Realism, ReferenceRecordsStatesAtRequestedTimes) {
  Material m;
  m.stiffness = 1e3f;
  const Scene cloth = makeCloth(4, m);
  const ReferenceSpec spec = referenceSpec(1e-3, SolverSettings{});
  // 0.05 is a step of the reference; 0.0505 lies between two steps
  const std::vector<double> times{0.0, 0.05, 0.0505, 0.1};
  Reference ref;
  ASSERT_TRUE(computeReference(cloth, times, spec, &ref));
  ASSERT_EQ(ref.states.size(), 4u);
  EXPECT_EQ(rmsPositionError(cloth.model, ref.states[0], cloth.state), 0.0);
  // the direct run to 0.05 s is the recorded state
  Reference direct;
  const std::vector<double> t05{0.05};
  ASSERT_TRUE(computeReference(cloth, t05, spec, &direct));
  EXPECT_LT(rmsPositionError(cloth.model, ref.states[1], direct.states[0]), 1e-7);
  // the cloth falls: between 0.05 and 0.0505 s it moves by about v · 0.5 ms
  const double moved = rmsPositionError(cloth.model, ref.states[2], ref.states[1]);
  EXPECT_GT(moved, 0.5 * 0.0005 * 9.81 * 0.05 * 0.5);
  EXPECT_LT(moved, 2.0 * 0.0005 * 9.81 * 0.05);
  EXPECT_NE(referenceAt(ref, 0.1), nullptr);
  EXPECT_EQ(referenceAt(ref, 0.2), nullptr);
  // the key changes with the system, the times and the step
  const std::string key = referenceKey(cloth, times, spec);
  EXPECT_EQ(key, referenceKey(cloth, times, spec));
  EXPECT_NE(key, referenceKey(cloth, t05, spec));
  EXPECT_NE(key, referenceKey(cloth, times, referenceSpec(5e-4, SolverSettings{})));
  Material stiffer;
  stiffer.stiffness = 2e3f;
  EXPECT_NE(key, referenceKey(makeCloth(4, stiffer), times, spec));
  // unsorted times are refused
  const std::vector<double> bad{0.1, 0.05};
  EXPECT_FALSE(computeReference(cloth, bad, spec, &ref));
}

// the cloth drop on a 10 × 10 cloth at k 1e5, dt 0.05: converged backward Euler keeps up
// with a small-step reference; the linearised one sinks like honey and over-stretches
struct Drop {
  double depth;
  DropResult ref, newton, implicit;
};

const Drop& clothDrop() {
  static const Drop drop = [] {
    Material m;
    m.stiffness = 1e5f;
    const Scene cloth = makeCloth(10, m);
    State hanging;
    EXPECT_TRUE(hangingState(cloth, &hanging));
    Drop d;
    d.depth = lowestPoint(hanging);
    d.ref = measureDrop(cloth, Integrator::kBdf2, 0.05 / 16, d.depth, 2.0, 0.0, {});
    d.newton = measureDrop(cloth, Integrator::kNewton, 0.05, d.depth, 2.0, 0.5, {});
    d.implicit = measureDrop(cloth, Integrator::kImplicit, 0.05, d.depth, 3.0, 0.0, {});
    return d;
  }();
  return drop;
}

TEST(Realism, ClothDropLinearisedImplicitLagsAndStretches) {
  const Drop& d = clothDrop();
  // two corners of a 1 m cloth at y = 2 m: the far edge hangs about 1 m lower
  EXPECT_NEAR(d.depth, 1.0, 0.05);
  ASSERT_TRUE(std::isfinite(d.ref.reach_time));
  EXPECT_GT(d.ref.reach_time, 0.3);  // free fall by 0.9 m takes 0.43 s; the folding edge whips
  EXPECT_LT(d.ref.reach_time, 0.6);
  EXPECT_LT(d.ref.max_strain, 0.01);
  EXPECT_GT(d.implicit.reach_time, 3.0 * d.ref.reach_time);
  EXPECT_GT(d.implicit.max_strain, 0.05);
  EXPECT_EQ(d.implicit.newton_per_step, 1.0);
  // Newton-converged backward Euler: far faster than the linearised step, and no over-stretch
  EXPECT_LT(d.newton.reach_time, 0.5 * d.implicit.reach_time);
  EXPECT_LE(d.newton.max_strain, 0.05);
  EXPECT_GT(d.newton.newton_per_step, 1.0);
}

// the goal: within 1.2 × the reference's time
TEST(Realism, ClothDropNewtonWithinGoalOfReference) {
  const Drop& d = clothDrop();
  EXPECT_LE(d.newton.reach_time, 1.2 * d.ref.reach_time)
      << "newton took " << d.newton.newton_per_step << " Newton iterations per step";
}

}  // namespace
}  // namespace hooke
