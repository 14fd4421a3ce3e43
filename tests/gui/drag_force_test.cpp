// Tests of app/gui/drag_force: the spring-to-cursor force on its axis or in the camera plane.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "app/gui/drag_force.h"

namespace hooke {
namespace {

TEST(PullForce, AlongAnAxisIsTheSpringAndDamperProjected) {
  Pull pull;
  pull.particle = 1;
  pull.constraint = PullConstraint::kAxis;
  pull.direction = {0.0f, 1.0f, 0.0f};
  pull.target = {0.0f, 1.5f, 0.0f};
  const PullSettings settings{200.0f, 3.0f};
  const glm::vec3 x(0.3f, 1.0f, -0.2f), v(1.0f, -0.5f, 2.0f);
  const glm::vec3 f = pullForce(pull, settings, x, v);
  // f_y = k (y_target − y) − c v_y; nothing sideways
  EXPECT_FLOAT_EQ(f.y, 200.0f * 0.5f - 3.0f * -0.5f);
  EXPECT_FLOAT_EQ(f.x, 0.0f);
  EXPECT_FLOAT_EQ(f.z, 0.0f);
}

TEST(PullForce, InThePlaneHasNoNormalPart) {
  Pull pull;
  pull.particle = 7;
  pull.constraint = PullConstraint::kPlane;
  pull.direction = glm::normalize(glm::vec3(1.0f, -0.5f, -1.0f));
  pull.target = {0.4f, 2.0f, 0.1f};
  const PullSettings settings{50.0f, 0.5f};
  const glm::vec3 x(0.0f, 1.8f, 0.3f), v(0.2f, 0.1f, -0.3f);
  const glm::vec3 f = pullForce(pull, settings, x, v);
  EXPECT_NEAR(glm::dot(f, pull.direction), 0.0f, 1e-5f);
  // the in-plane part equals the unconstrained force's in-plane part
  const glm::vec3 full = 50.0f * (pull.target - x) - 0.5f * v;
  const glm::vec3 in_plane = full - glm::dot(full, pull.direction) * pull.direction;
  EXPECT_NEAR(glm::length(f - in_plane), 0.0f, 1e-5f);
}

TEST(PullForce, NothingHeldPullsNothing) {
  const Pull idle;
  EXPECT_EQ(pullForce(idle, PullSettings{}, {1, 2, 3}, {4, 5, 6}), glm::vec3(0.0f));
}

TEST(PullForce, DefaultsKeepThePatchStable) {
  // spring1d: 1 kg on 100 N/m, h = 0.03 s: 1 / (2 · 0.0009) + 100 / 4
  PullSettings p = defaultPull(PullScale{1.0f, 100.0f, false, 0.03});
  EXPECT_NEAR(p.stiffness, 0.5 / 0.0009 + 25.0, 1e-2);
  EXPECT_NEAR(p.damping, std::sqrt(p.stiffness * 1.0f), 1e-3);  // ζ = 0.5
  // a sheet: only the patch's mass counts, ω h = √(k / M) h ≈ 0.7
  for (double h : {0.001, 0.03, 0.1}) {
    p = defaultPull(PullScale{0.05f, 1e4f, true, h});
    EXPECT_NEAR(std::sqrt(p.stiffness / 0.05) * h, std::sqrt(0.5), 1e-3);
    EXPECT_LT(p.damping * h / 0.05, 2.0);  // the explicit damper is stable too
  }
}

TEST(PullPatch, SharesFollowMassAndDistance) {
  // a row of particles 0.1 m apart, the first pinned
  std::vector<glm::vec3> x;
  for (int i = 0; i < 8; ++i)
    x.push_back({0.1f * float(i), 0.0f, 0.0f});
  std::vector<float> mass(8, 0.5f);
  mass[4] = 1.0f;
  std::vector<uint8_t> pinned(8, 0);
  pinned[0] = 1;
  const PullPatch patch = pullPatch(x, mass, pinned, 2, 0.25f);
  ASSERT_FALSE(patch.shares.empty());
  EXPECT_EQ(patch.shares.front().particle, 2u);  // the held particle first
  float sum = 0.0f;
  std::set<uint32_t> who;
  for (const PatchShare& s : patch.shares) {
    sum += s.share;
    who.insert(s.particle);
  }
  EXPECT_NEAR(sum, 1.0f, 1e-6f);
  EXPECT_EQ(who, (std::set<uint32_t>{1, 2, 3, 4}));  // within 0.25 m, the pinned one left out
  // M = Σ m w with w = exp(−d² / (2 σ²)), σ = 0.125
  const auto w = [](float d) { return std::exp(-d * d / (2.0f * 0.125f * 0.125f)); };
  EXPECT_NEAR(patch.mass, 0.5f + 2.0f * 0.5f * w(0.1f) + 1.0f * w(0.2f), 1e-5f);
  // a lone free particle carries the whole pull
  const PullPatch alone = pullPatch(x, mass, pinned, 7, 0.0f);
  ASSERT_EQ(alone.shares.size(), 1u);
  EXPECT_FLOAT_EQ(alone.shares[0].share, 1.0f);
  EXPECT_FLOAT_EQ(alone.mass, 0.5f);
}

}  // namespace
}  // namespace hooke
