// Tests of the sweep's grid, cell runner and classification (src/sim/sweep.h) on spring1d, where
// the stability limits are known in closed form.
#include "sim/sweep.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include <gtest/gtest.h>

#include "sim/cpu_backend.h"
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

namespace hooke {
namespace {

Scene shifted(Scene scene, float dy) {
  for (glm::vec3& x : scene.state.x)
    x.y += dy;
  return scene;
}

// E_s = K0 + S0 + M g L: spring1d at rest, 1 kg, 1 m from anchor to mass → 9.81 J, wherever the
// scene sits; a cloth of 1 kg with 1 m sides → 9.81 J
TEST(SweepEnergy, ScaleDoesNotDependOnHeight) {
  const Scene s = makeSpring1d(Material{});
  EXPECT_NEAR(energyScale(s.model, s.state), 9.81, 1e-5);
  const Scene low = shifted(s, -1000.0f);
  EXPECT_NEAR(energyScale(low.model, low.state), 9.81, 1e-5);
  const Scene cloth = makeCloth(5, Material{});
  // 1 kg spread over 25 particles, 2 of them pinned
  EXPECT_NEAR(energyScale(cloth.model, cloth.state), 23.0 / 25.0 * 9.81, 1e-4);
  // the threshold is 5 % of E_s
  EXPECT_EQ(classifyCellScaled(false, 0.1, 0.049 * 10.0, 10.0), CellStatus::kStable);
  EXPECT_EQ(classifyCellScaled(false, 0.1, 0.051 * 10.0, 10.0), CellStatus::kUnrealistic);
  EXPECT_EQ(classifyCellScaled(true, 0.1, 0.0, 10.0), CellStatus::kDiverged);
}

// the same cell placed near y = 0 or 1 km below classifies the same (with |E0| it did not)
TEST(SweepEnergy, ClassificationIsTheSameAtAnyHeight) {
  for (float dy : {-2.0f, 0.0f, -1000.0f}) {
    auto scene = [dy](double k) {
      Material m;
      m.stiffness = float(k);
      return shifted(makeSpring1d(m), dy);
    };
    SCOPED_TRACE(dy);
    // explicit Euler at h ω = 0.2 gains several J in 1 s; symplectic Euler keeps its energy
    EXPECT_EQ(runSweepCell(scene, {Integrator::kExplicit, 0.02, 100.0}, 1.0, {}).status,
              CellStatus::kUnrealistic);
    EXPECT_EQ(runSweepCell(scene, {Integrator::kSymplectic, 0.02, 100.0}, 1.0, {}).status,
              CellStatus::kStable);
  }
}

Scene smallCloth(double k) {
  Material m;
  m.stiffness = float(k);
  return makeCloth(5, m);
}

// cloth cells get their realism error from the converged reference: it shrinks with dt for
// bdf2, and the energy lost beyond the reference's is backward Euler's numerical damping
TEST(SweepReference, ClothRealismErrorAgainstReference) {
  const double duration = 0.3, k = 1e3;
  const std::vector<double> dts{1e-3, 1e-2, 3e-2};
  std::vector<double> times;
  for (double dt : dts)
    times.push_back(sweepEndTime(dt, duration));
  std::sort(times.begin(), times.end());
  Reference ref;
  ASSERT_TRUE(computeReference(smallCloth(k), times, referenceSpec(2.5e-4, {}), &ref));
  SweepCellOptions options;
  options.reference = &ref;
  std::vector<double> bdf2;
  for (double dt : dts) {
    const CellResult r =
        runSweepCell(smallCloth, {Integrator::kBdf2, dt, k}, duration, {}, options);
    ASSERT_TRUE(std::isfinite(r.realism_error)) << dt;
    bdf2.push_back(r.realism_error);
  }
  EXPECT_LT(bdf2[0], bdf2[1]);
  EXPECT_LT(bdf2[1], bdf2[2]);
  EXPECT_LT(bdf2[0], 1e-3);  // m
  const CellResult implicit =
      runSweepCell(smallCloth, {Integrator::kImplicit, 3e-2, k}, duration, {}, options);
  EXPECT_GT(implicit.realism_error, bdf2[2]);
  EXPECT_LT(implicit.energy_error, 0.0);  // loses more energy than physics does
  // without a reference: NaN
  EXPECT_TRUE(std::isnan(
      runSweepCell(smallCloth, {Integrator::kBdf2, 1e-2, k}, duration, {}).realism_error));
}

// a cell runs on the backend the factory makes; a failing factory marks it diverged with a note
TEST(SweepBackend, CellsRunOnTheFactoryBackend) {
  int made = 0;
  SweepCellOptions options;
  options.backend = [&](const Scene& scene, Integrator, std::unique_ptr<Backend>* out,
                        std::string* note) {
    ++made;
    auto cpu = std::make_unique<CpuBackend>();
    Status s = cpu->load(scene.model, scene.state);
    *note = "made by the test";
    *out = std::move(cpu);
    return s;
  };
  const SweepCell cell{Integrator::kImplicit, 0.01, 1e3};
  const CellResult a = runSweepCell(spring1d, cell, 0.5, {}, options);
  const CellResult b = runSweepCell(spring1d, cell, 0.5, {});
  EXPECT_EQ(made, 1);
  EXPECT_EQ(a.backend, "cpu");
  EXPECT_EQ(a.note, "made by the test");
  EXPECT_EQ(a.max_strain, b.max_strain);
  EXPECT_EQ(a.realism_error, b.realism_error);
  EXPECT_EQ(a.status, b.status);
  EXPECT_GE(a.newton_per_step, 1.0);

  options.backend = [](const Scene&, Integrator, std::unique_ptr<Backend>*, std::string*) {
    return Status::error("no device");
  };
  const CellResult failed = runSweepCell(spring1d, cell, 0.5, {}, options);
  EXPECT_EQ(failed.status, CellStatus::kDiverged);
  EXPECT_EQ(failed.note, "no device");
  EXPECT_EQ(failed.steps, 0);
}

}  // namespace
}  // namespace hooke
