// Tests of sim/spring_force: the force formula and its Jacobian against finite differences.
#include "sim/spring_force.h"

#include <gtest/gtest.h>

namespace hooke {
namespace {

TEST(SpringForce, PullsTogetherWhenStretchedAndDampsRelativeVelocity) {
  // stretched by 0.5 along x: f_i = k (l − L) n = 10 · 0.5 · (1, 0, 0)
  SpringForce f = springForce({0, 0, 0}, {1.5f, 0, 0}, {0, 0, 0}, {0, 0, 0}, 1.0f, 10.0f, 0.0f);
  EXPECT_FLOAT_EQ(f.on_i.x, 5.0f);
  EXPECT_FLOAT_EQ(f.length, 1.5f);
  // separating at 2 m/s adds c · 2 along n; motion across the axis adds nothing
  f = springForce({0, 0, 0}, {1, 0, 0}, {0, 0, 0}, {2, 7, 0}, 1.0f, 10.0f, 3.0f);
  EXPECT_FLOAT_EQ(f.on_i.x, 6.0f);
  EXPECT_FLOAT_EQ(f.on_i.y, 0.0f);
  // a degenerate spring exerts nothing and produces no NaN
  f = springForce({1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 0, 0}, 1.0f, 10.0f, 3.0f);
  EXPECT_EQ(f.on_i, glm::vec3(0.0f));
}

// ∂f_i/∂x_j by central differences in double, compared with K from springJacobian
TEST(SpringForce, StiffnessBlockMatchesFiniteDifferencesInTension) {
  const glm::dvec3 xi(0.1, -0.2, 0.3), xj(1.0, 0.4, -0.5);
  const double rest = 0.8, k = 50.0;
  auto force = [&](glm::dvec3 xj_) {
    glm::dvec3 d = xj_ - xi;
    double l = glm::length(d);
    return k * (l - rest) * d / l;
  };
  glm::dvec3 d = xj - xi;
  double l = glm::length(d);
  SpringJacobian J = springJacobian(glm::vec3(d / l), float(l), float(rest), float(k), 0.0f);
  const double eps = 1e-6;
  for (int col = 0; col < 3; ++col) {
    glm::dvec3 e(0.0);
    e[col] = eps;
    glm::dvec3 fd = (force(xj + e) - force(xj - e)) / (2 * eps);
    glm::vec3 unit(0.0f);
    unit[col] = 1.0f;
    glm::vec3 analytic = applyStiffness(J, unit);
    for (int row = 0; row < 3; ++row)
      EXPECT_NEAR(analytic[row], fd[row], 1e-4 * k) << row << col;
  }
}

TEST(SpringForce, CompressionClampsTheTransverseTerm) {
  // l < L: 1 − L/l < 0 is clamped to 0, leaving K = k n nᵀ (positive semi-definite)
  SpringJacobian J = springJacobian({1, 0, 0}, 0.5f, 1.0f, 10.0f, 2.0f);
  EXPECT_EQ(J.stiff_iso, 0.0f);
  EXPECT_EQ(J.stiff_nn, 10.0f);
  EXPECT_EQ(applyStiffness(J, {0, 1, 0}), glm::vec3(0.0f));
  // the system block S = h D + h² K along n: a = h c + h² k
  SystemBlock S = systemBlock(J, 0.1f);
  EXPECT_FLOAT_EQ(S.a, 0.1f * 2.0f + 0.01f * 10.0f);
  EXPECT_FLOAT_EQ(S.b, 0.0f);
}

}  // namespace
}  // namespace hooke
