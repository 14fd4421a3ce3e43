// Tests of sim/metrics: energies, strain, and the divergence guard's three triggers.
#include "sim/metrics.h"

#include <gtest/gtest.h>

#include <limits>

#include "sim/scenes.h"

namespace hooke {
namespace {

TEST(Metrics, Spring1dEnergiesByHand) {
  Scene scene = makeSpring1d({});
  scene.state.x[1] = {0.0f, 0.75f, 0.0f};  // stretched 0.25 m
  scene.state.v[1] = {0.0f, 2.0f, 0.0f};
  Energy e = computeEnergy(scene.model, scene.state);
  EXPECT_NEAR(e.kinetic, 0.5 * 1.0 * 4.0, 1e-9);
  EXPECT_NEAR(e.gravitational, 1.0 * 9.81 * 0.75, 1e-5);  // −m g·x with g = (0, −9.81, 0)
  EXPECT_NEAR(e.spring, 0.5 * 100.0 * 0.0625, 1e-6);
  EXPECT_NEAR(e.total(), e.kinetic + e.potential(), 1e-12);
  Strain s = computeStrain(scene.model, scene.state.x);
  EXPECT_NEAR(s.max, 0.25, 1e-6);
  EXPECT_NEAR(s.mean, 0.25, 1e-6);
}

TEST(Metrics, DivergenceGuardFlagsNonFiniteFarAndFast) {
  Scene scene = makeCloth(4, {});
  DivergenceGuard guard(scene.model, scene.state);
  State s = scene.state;
  EXPECT_FALSE(guard.check(s, 0.0));

  State nan_state = s;
  nan_state.x[5].y = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(guard.check(nan_state, 0.0));

  State inf_velocity = s;
  inf_velocity.v[3].x = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(guard.check(inf_velocity, 0.0));

  // the sheet's radius is ~0.7 m: 1000 × (0.7 + 1) m away is absurd, 100 m is not
  State far = s;
  far.x[9].y = -100.0f;
  EXPECT_FALSE(guard.check(far, 0.0));
  far.x[9].y = -2000.0f;
  EXPECT_TRUE(guard.check(far, 0.0));

  // 1 kg of free mass: more than 1e8 J is absurd
  EXPECT_FALSE(guard.check(s, 1e7));
  EXPECT_TRUE(guard.check(s, 2e8));
  EXPECT_TRUE(guard.check(s, std::numeric_limits<double>::infinity()));
}

}  // namespace
}  // namespace hooke
