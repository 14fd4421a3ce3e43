// Tests of the sweep's grid, cell runner and classification (src/sim/sweep.h) on spring1d, where
// the stability limits are known in closed form.
#include "sim/sweep.h"

#include <cmath>

#include <gtest/gtest.h>

#include "sim/scenes.h"

namespace hooke {
namespace {

Scene spring1d(double k) {
  Material material;
  material.stiffness = float(k);
  return makeSpring1d(material);
}

CellResult run(Integrator integrator, double dt, double k, double duration = 1.0) {
  return runSweepCell(spring1d, {integrator, dt, k}, duration, SolverSettings{});
}

TEST(Sweep, LogSpaceIsLogUniformWithExactEndpoints) {
  const std::vector<double> v = logSpace(1e-4, 0.1, 10);
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v.front(), 1e-4);
  EXPECT_EQ(v.back(), 0.1);
  // v_{i+1} / v_i = (hi / lo)^(1 / (n − 1)) = 10^(1/3)
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    EXPECT_NEAR(v[i + 1] / v[i], std::cbrt(10.0), 1e-12) << i;
  }
  const std::vector<double> k = logSpace(10.0, 1e7, 2);
  EXPECT_EQ(k, (std::vector<double>{10.0, 1e7}));
}

TEST(Sweep, ClassificationThresholds) {
  EXPECT_EQ(classifyCell(true, 0.0, 10.0, 10.0), CellStatus::kDiverged);
  EXPECT_EQ(classifyCell(false, 0.1, 10.0, 10.0), CellStatus::kStable);
  EXPECT_EQ(classifyCell(false, kMaxRealisticStrain * 1.01, 10.0, 10.0), CellStatus::kUnrealistic);
  // gain limit 0.05 · |E0| + 1e-6 = 0.5 J
  EXPECT_EQ(classifyCell(false, 0.1, 10.0, 10.49), CellStatus::kStable);
  EXPECT_EQ(classifyCell(false, 0.1, 10.0, 10.51), CellStatus::kUnrealistic);
  EXPECT_EQ(classifyCell(false, 0.1, -10.0, -9.51), CellStatus::kStable);
  EXPECT_EQ(classifyCell(false, std::nan(""), 10.0, 10.0), CellStatus::kUnrealistic);
  EXPECT_EQ(cellStatusName(CellStatus::kUnrealistic), "unrealistic");
}

// explicit Euler blows up at large dt × high k; linearised implicit Euler survives the whole grid
TEST(Sweep, Spring1dExplicitDivergesWhereImplicitIsStable) {
  const std::vector<double> dts = logSpace(1e-3, 0.1, 3), ks = logSpace(1e3, 1e7, 3);
  const std::vector<SweepCell> cells =
      sweepCells({Integrator::kExplicit, Integrator::kImplicit}, dts, ks);
  ASSERT_EQ(cells.size(), 18u);
  for (const SweepCell& cell : cells) {
    const CellResult r = runSweepCell(spring1d, cell, 1.0, SolverSettings{});
    SCOPED_TRACE(std::string(integratorName(cell.integrator)) + " dt " + std::to_string(cell.dt) +
                 " k " + std::to_string(cell.stiffness));
    if (cell.integrator == Integrator::kImplicit) {
      EXPECT_EQ(r.status, CellStatus::kStable);
      EXPECT_LT(r.max_strain, 0.02);
      EXPECT_LE(r.energy_drift, 0.0);  // backward Euler only dissipates
      EXPECT_TRUE(std::isfinite(r.realism_error));
      EXPECT_EQ(r.steps, std::llround(1.0 / cell.dt));
    } else if (cell.dt == 0.1 && cell.stiffness == 1e7) {
      EXPECT_EQ(r.status, CellStatus::kDiverged);
      EXPECT_TRUE(std::isnan(r.energy_drift));
      EXPECT_LT(r.steps, 10);  // stopped early
    }
  }
  // h ω = 0.1 · √1e5 ≈ 32: explicit Euler grows by √(1 + h²ω²) per step
  EXPECT_EQ(run(Integrator::kExplicit, 0.1, 1e5).status, CellStatus::kDiverged);
  EXPECT_EQ(run(Integrator::kExplicit, 1e-3, 1e7).status, CellStatus::kDiverged);
}

// a soft spring hangs 1.96 m below its 1 m rest length at the bottom of its swing (2 m g / k):
// finite, but past the 50 % strain limit
TEST(Sweep, LargeStrainIsUnrealistic) {
  const CellResult r = run(Integrator::kImplicit, 0.01, 10.0);
  EXPECT_EQ(r.status, CellStatus::kUnrealistic);
  EXPECT_GT(r.max_strain, kMaxRealisticStrain);
  EXPECT_EQ(run(Integrator::kImplicit, 0.01, 1e3).status, CellStatus::kStable);
}

// explicit Euler's energy grows even where it has not blown up yet: unrealistic, not stable
TEST(Sweep, EnergyGainIsUnrealistic) {
  // |λ|² = 1 + h²ω² − h c / m per step: h = 0.02, ω² = 100 → about e^1.9 over 50 steps, a gain
  // of several J against the 0.49 J limit (|E0| = m g · 1 m = 9.81 J)
  const CellResult r = run(Integrator::kExplicit, 0.02, 100.0);
  EXPECT_EQ(r.status, CellStatus::kUnrealistic);
  EXPECT_GT(r.energy_gain, kMaxEnergyGainRatio);
  EXPECT_GT(r.energy_drift, 0.0);
  // symplectic Euler at the same cell keeps its energy
  EXPECT_EQ(run(Integrator::kSymplectic, 0.02, 100.0).status, CellStatus::kStable);
}

// symplectic Euler on an undamped oscillator is stable for h < 2/ω, ω = √(k/m); spring1d
// (m = 1 kg, c = 0.1 N·s/m, nearly undamped) must agree to within a factor of 2 in h
TEST(Sweep, Spring1dSymplecticBoundaryWithinFactorTwo) {
  const double dt = 0.01;
  for (double k : logSpace(1e2, 1e7, 16)) {
    const double h_limit = 2.0 / std::sqrt(k);  // m = 1 kg
    const CellResult r = run(Integrator::kSymplectic, dt, k);
    SCOPED_TRACE("k " + std::to_string(k) + " h/h_limit " + std::to_string(dt / h_limit));
    if (dt <= 0.5 * h_limit) EXPECT_NE(r.status, CellStatus::kDiverged);
    if (dt >= 2.0 * h_limit) EXPECT_EQ(r.status, CellStatus::kDiverged);
  }
}

// the closed-form check: a small step follows the exact oscillator closely
TEST(Sweep, Spring1dRealismErrorAgainstClosedForm) {
  const CellResult fine = run(Integrator::kBdf2, 1e-3, 100.0);
  const CellResult coarse = run(Integrator::kImplicit, 0.05, 100.0);
  EXPECT_LT(fine.realism_error, 0.05);
  EXPECT_GT(coarse.realism_error, fine.realism_error);
  // other scenes have no closed form
  auto cloth = [](double k) {
    Material m;
    m.stiffness = float(k);
    return makeCloth(4, m);
  };
  const CellResult r = runSweepCell(cloth, {Integrator::kImplicit, 0.01, 1e3}, 0.1, {});
  EXPECT_TRUE(std::isnan(r.realism_error));
  EXPECT_EQ(r.steps, 10);
}

}  // namespace
}  // namespace hooke
