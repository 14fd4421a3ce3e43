// Tests one implicit step of CpuBackend (matrix-free, float, PCG) against an independent
// double-precision assembly of the same DESIGN.md system (bench/eigen_system.h) solved by Eigen.
#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <Eigen/SparseCholesky>

#include "bench/eigen_system.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using SystemD = EigenImplicitSystem<double>;

// uniform in [−1, 1] from mt19937's raw output, which the standard fixes on every platform
float symmetricUniform(std::mt19937& rng) {
  return static_cast<float>(static_cast<double>(rng()) / 4294967295.0 * 2.0 - 1.0);
}

// Moves every free particle by up to `displacement` m and gives it up to `velocity` m/s per axis
// (only along y when y_only), so forces, dampers and the h² K v0 term are all non-zero.
Scene perturb(Scene scene, float displacement, float velocity, uint32_t seed, bool y_only) {
  std::mt19937 rng(seed);
  for (size_t i = 0; i < scene.state.x.size(); ++i) {
    if (scene.model.pinned[i]) continue;
    for (int a = 0; a < 3; ++a) {
      float dx = symmetricUniform(rng) * displacement;
      float dv = symmetricUniform(rng) * velocity;
      if (y_only && a != 1) continue;
      scene.state.x[i][a] += dx;
      scene.state.v[i][a] = dv;
    }
  }
  return scene;
}

struct CpuStep {
  std::vector<glm::vec3> delta_v;  // (particles) v1 − v0
  StepStats stats;
};

// One implicit step of CpuBackend from the scene's state: Δv = v1 − v0.
CpuStep cpuImplicitStep(const Scene& scene, float h, std::span<const glm::vec3> external,
                        float tolerance, int max_iterations) {
  CpuBackend backend;
  EXPECT_TRUE(backend.load(scene.model, scene.state).isOk());
  SolverSettings settings;
  settings.integrator = Integrator::kImplicit;
  settings.tolerance = tolerance;
  settings.max_iterations = max_iterations;
  backend.setSettings(settings);

  CpuStep out;
  EXPECT_TRUE(backend.step(h, external, &out.stats).isOk());
  State after;
  backend.readState(&after);
  out.delta_v.resize(after.v.size());
  for (size_t i = 0; i < after.v.size(); ++i)
    out.delta_v[i] = after.v[i] - scene.state.v[i];
  return out;
}

struct Case {
  std::string name;
  Scene scene;
  float h;
  std::vector<glm::vec3> external;  // empty or one per particle
};

// names the case in failure messages instead of a byte dump
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"Cloth8", perturb(makeCloth(8, {}), 0.01f, 0.2f, 1u, false), 0.03f, {}});
  out.push_back({"Volume4", perturb(makeVolume(4, {}), 0.01f, 0.2f, 2u, false), 0.03f, {}});
  out.push_back({"Spring1d", perturb(makeSpring1d({}), 0.05f, 0.5f, 3u, true), 0.03f, {}});

  // drag and an external pull on one corner, so every term of f0 and A is exercised
  Material with_drag;
  with_drag.drag = 0.05f;
  Case dragged{
      "Cloth8DragExternal", perturb(makeCloth(8, with_drag), 0.01f, 0.2f, 4u, false), 0.03f, {}};
  dragged.external.assign(dragged.scene.model.particleCount(), glm::vec3(0.0f));
  dragged.external.back() = glm::vec3(0.5f, 2.0f, -0.3f);
  out.push_back(std::move(dragged));
  return out;
}

class ImplicitVsEigen : public ::testing::TestWithParam<Case> {};

TEST_P(ImplicitVsEigen, CgStepMatchesSparseCholesky) {
  const Case& c = GetParam();
  const Model& model = c.scene.model;

  // hooke: one step to a tight tolerance
  CpuStep cpu = cpuImplicitStep(c.scene, c.h, c.external, 1e-7f, 10000);

  // Eigen: the same system assembled in double, solved directly
  SystemD system;
  assembleImplicitSystem(model, c.scene.state.x, c.scene.state.v, c.external, double(c.h), &system);
  Eigen::SimplicialLDLT<SystemD::Matrix> ldlt(system.A);
  ASSERT_EQ(ldlt.info(), Eigen::Success) << "A is not symmetric positive definite";
  const Eigen::VectorXd dv_eigen = ldlt.solve(system.b);
  const Eigen::VectorXd dv_cpu = flatten<double>(cpu.delta_v);

  ASSERT_GT(dv_eigen.norm(), 0.0);
  const double relative_error = (dv_cpu - dv_eigen).norm() / dv_eigen.norm();
  EXPECT_LE(relative_error, 1e-5) << "iterations " << cpu.stats.cg_iterations << ", residual "
                                  << cpu.stats.cg_residual;

  // pinned particles do not move in either
  for (size_t i = 0; i < model.particleCount(); ++i) {
    if (!model.pinned[i]) continue;
    EXPECT_EQ(cpu.delta_v[i], glm::vec3(0.0f)) << "particle " << i;
    EXPECT_EQ(dv_eigen.segment<3>(3 * Eigen::Index(i)).norm(), 0.0) << "particle " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, ImplicitVsEigen, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// At k = 1e5, h = 0.05 the system is stiff; with the iteration cap at a few values, the residual
// CG reports must be the true |b − A Δv| / |b| of the double-precision system.
TEST(ImplicitVsEigenStiff, ReportedResidualIsTheTrueResidual) {
  Material stiff;
  stiff.stiffness = 1e5f;
  const float h = 0.05f;
  for (const Scene& scene : {perturb(makeCloth(8, stiff), 0.005f, 0.2f, 5u, false),
                             perturb(makeVolume(4, stiff), 0.005f, 0.2f, 6u, false)}) {
    SystemD system;
    assembleImplicitSystem(scene.model, scene.state.x, scene.state.v, {}, double(h), &system);
    const double b_norm = system.b.norm();
    ASSERT_GT(b_norm, 0.0);

    for (int cap : {3, 10, 30, 500}) {
      SCOPED_TRACE(scene.name + ", iteration cap " + std::to_string(cap));
      CpuStep cpu = cpuImplicitStep(scene, h, {}, 1e-5f, cap);
      const Eigen::VectorXd dv = flatten<double>(cpu.delta_v);

      // |b − A Δv| / |b| in double
      const double true_residual = (system.b - system.A * dv).norm() / b_norm;
      EXPECT_NEAR(cpu.stats.cg_residual, true_residual, 1e-3)
          << "iterations " << cpu.stats.cg_iterations;

      // and closer: within 5 %, above a floor of float rounding in the assembled system
      EXPECT_NEAR(cpu.stats.cg_residual, true_residual, 0.05 * true_residual + 2e-5)
          << "iterations " << cpu.stats.cg_iterations;
      EXPECT_LE(cpu.stats.cg_iterations, cap);
      if (!cpu.stats.cg_converged) {
        EXPECT_EQ(cpu.stats.cg_iterations, cap);
      }
    }
  }
}

}  // namespace
}  // namespace hooke
