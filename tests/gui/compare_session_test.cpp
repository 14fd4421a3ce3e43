// Tests of app/gui/compare_session: two sessions of one scene from one state stay in step; the
// same integrator gives the same states bit for bit, another integrator different ones; the
// mouse's pull moves both; settings are mirrored except the integrator; reset and scene loads
// take both along.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "app/gui/compare_session.h"

namespace hooke {
namespace {

SceneOptions named(const std::string& name, std::optional<int> res = {}) {
  SceneOptions options;
  options.scene = name;
  options.res = res;
  return options;
}

struct Pair {
  SimSession primary;
  CompareSession compare{&primary};
  explicit Pair(const SceneOptions& scene, Integrator integrator = Integrator::kImplicit) {
    SolverSettings solver;
    solver.integrator = integrator;
    Status s = primary.load(scene, "cpu", solver, TimeSettings{});
    EXPECT_TRUE(s.isOk()) << s.message();
  }
  void frames(int count) {
    for (int i = 0; i < count; ++i)
      compare.advance(1.0 / 60.0);
  }
};

double maxDistance(const State& a, const State& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.x.size(); ++i)
    d = std::max(d, double(glm::length(a.x[i] - b.x[i])));
  return d;
}

TEST(CompareSession, TheSameIntegratorGivesTheSameStatesBitForBit) {
  Pair p(named("cloth", 8));
  p.frames(10);  // the primary runs alone first; starting resets it
  ASSERT_GT(p.primary.solves(), 0);
  ASSERT_TRUE(p.compare.start(Integrator::kImplicit).isOk());
  ASSERT_TRUE(p.compare.active());
  EXPECT_EQ(p.primary.solves(), 0);
  EXPECT_EQ(p.primary.simTime(), 0.0);

  p.frames(40);
  const SimSession& second = *p.compare.second();
  EXPECT_GT(p.primary.solves(), 10);
  EXPECT_EQ(second.solves(), p.primary.solves());
  EXPECT_EQ(second.simTime(), p.primary.simTime());
  EXPECT_EQ(second.alpha(), p.primary.alpha());
  EXPECT_EQ(second.state().x, p.primary.state().x);
  EXPECT_EQ(second.state().v, p.primary.state().v);
  EXPECT_GT(maxDistance(p.primary.state(), p.primary.scene().state), 0.05);  // it did fall
}

TEST(CompareSession, AnotherIntegratorGivesOtherStatesAtTheSameTime) {
  Pair p(named("cloth", 8));
  ASSERT_TRUE(p.compare.start(Integrator::kBdf2).isOk());
  p.frames(30);
  const SimSession& second = *p.compare.second();
  EXPECT_EQ(second.solver().integrator, Integrator::kBdf2);
  EXPECT_EQ(p.primary.solver().integrator, Integrator::kImplicit);
  EXPECT_EQ(second.simTime(), p.primary.simTime());
  EXPECT_GT(maxDistance(p.primary.state(), second.state()), 1e-3);

  // the second switched to the primary's integrator and both reset: they agree again
  ASSERT_TRUE(p.compare.setIntegrator(Integrator::kImplicit).isOk());
  EXPECT_EQ(p.compare.second()->solver().integrator, Integrator::kImplicit);
  ASSERT_TRUE(p.compare.reset().isOk());
  p.frames(20);
  EXPECT_EQ(p.compare.second()->state().x, p.primary.state().x);
}

TEST(CompareSession, ThePullReachesBothSessions) {
  // three runs of spring1d: without a pull, and the pair (implicit, bdf2) pulled down
  SimSession alone;
  ASSERT_TRUE(alone.load(named("spring1d"), "cpu", SolverSettings{}, TimeSettings{}).isOk());
  Pair p(named("spring1d"));
  ASSERT_TRUE(p.compare.start(Integrator::kBdf2).isOk());
  const int64_t mass = p.primary.drivenParticle();
  ASSERT_GE(mass, 0);

  Pull pull;
  pull.particle = mass;
  pull.constraint = PullConstraint::kAxis;
  pull.direction = glm::vec3(0.0f, 1.0f, 0.0f);
  pull.target = p.primary.scene().state.x[size_t(mass)] - glm::vec3(0.0f, 2.0f, 0.0f);
  const PullSettings settings = defaultPull(p.primary.pullScale());
  p.compare.setPull(pull, settings);
  for (int i = 0; i < 60; ++i) {
    p.compare.advance(1.0 / 60.0);
    alone.advance(1.0 / 60.0);
  }
  const float free_y = alone.state().x[size_t(mass)].y;
  const float first_y = p.primary.state().x[size_t(mass)].y;
  const float second_y = p.compare.second()->state().x[size_t(mass)].y;
  // unpulled, the 1 kg mass on 100 N/m sags about 0.1 m; pulled 2 m down it goes much further
  EXPECT_LT(first_y, free_y - 0.5f);
  EXPECT_LT(second_y, free_y - 0.5f);
  EXPECT_NEAR(first_y, second_y, 0.1f);  // the same force, two integrators

  // released: both let go
  p.compare.setPull(Pull{}, settings);
  p.frames(5);
  EXPECT_FALSE(p.compare.second()->pullPatchNow().shares.size() > 0);
  EXPECT_FALSE(p.primary.pullPatchNow().shares.size() > 0);
}

TEST(CompareSession, SettingsAreMirroredExceptTheIntegrator) {
  Pair p(named("cloth", 6));
  ASSERT_TRUE(p.compare.start(Integrator::kNewton).isOk());
  SimSession& second = *p.compare.second();

  SolverSettings solver = p.primary.solver();
  solver.tolerance = 1e-6f;
  solver.max_iterations = 77;
  p.compare.setSolver(solver);
  EXPECT_EQ(second.solver().tolerance, 1e-6f);
  EXPECT_EQ(second.solver().max_iterations, 77);
  EXPECT_EQ(second.solver().integrator, Integrator::kNewton);
  EXPECT_EQ(p.primary.solver().integrator, Integrator::kImplicit);

  TimeSettings time = p.primary.time();
  time.dt = 0.005;
  time.auto_skip = false;
  time.manual_skip = 1;
  p.compare.setTime(time);
  MaterialSettings material = p.primary.material();
  material.stiffness *= 2.0f;
  p.compare.setMaterial(material);
  p.compare.setPaused(true);
  EXPECT_EQ(second.time(), time);
  EXPECT_EQ(second.material(), material);
  EXPECT_TRUE(second.paused());

  // a single step while paused: one solve each, at the new dt and stiffness
  p.compare.requestStep();
  p.compare.advance(1.0 / 60.0);
  EXPECT_EQ(p.primary.solves(), 1);
  EXPECT_EQ(second.solves(), 1);
  EXPECT_DOUBLE_EQ(second.h(), 0.01);
  EXPECT_EQ(second.model().stiffness, p.primary.model().stiffness);

  // reset and a new scene take both along
  p.compare.setPaused(false);
  p.frames(5);
  ASSERT_TRUE(p.compare.reset().isOk());
  EXPECT_EQ(p.primary.solves(), 0);
  EXPECT_EQ(p.compare.second()->solves(), 0);
  ASSERT_TRUE(
      p.compare.load(named("spring1d"), "cpu", p.primary.solver(), p.primary.time()).isOk());
  ASSERT_TRUE(p.compare.active());
  EXPECT_EQ(p.compare.second()->scene().name, "spring1d");
  EXPECT_EQ(p.compare.second()->solver().integrator, Integrator::kNewton);

  p.compare.stop();
  EXPECT_FALSE(p.compare.active());
  p.frames(3);  // the primary alone
  EXPECT_GT(p.primary.solves(), 0);
}

// The second run diverges (explicit Euler on a stiff cloth) while the first (implicit) goes on:
// a revert takes the second back to its last finite state and pauses both; resuming lets it catch
// up with the first in simulated time. With nothing diverged there is nothing to revert.
TEST(CompareSession, RevertTakesTheDivergedRunBackAndPausesBoth) {
  Pair p(named("cloth", 8));
  ASSERT_TRUE(p.compare.start(Integrator::kExplicit).isOk());
  EXPECT_FALSE(p.compare.revertToLastFinite().isOk());
  MaterialSettings stiff = p.primary.material();
  stiff.stiffness = 1e5f;
  p.compare.setMaterial(stiff);
  SimSession& second = *p.compare.second();
  for (int i = 0; i < 600 && !second.divergedAt(); ++i)
    p.frames(1);
  ASSERT_TRUE(second.divergedAt()) << "explicit Euler at k = 1e5, h = " << second.h();
  ASSERT_FALSE(p.primary.divergedAt());
  EXPECT_TRUE(second.paused());  // a divergence pauses its own run
  EXPECT_FALSE(p.primary.paused());
  const int64_t primary_solves = p.primary.solves();

  ASSERT_TRUE(p.compare.revertToLastFinite().isOk());
  EXPECT_FALSE(second.divergedAt());
  EXPECT_TRUE(second.paused());
  EXPECT_TRUE(p.primary.paused());
  EXPECT_EQ(p.primary.solves(), primary_solves);  // the first run is left as it was
  for (const glm::vec3& x : second.state().x)
    ASSERT_TRUE(std::isfinite(x.x) && std::isfinite(x.y) && std::isfinite(x.z));
  const double reverted_at = second.simTime();
  EXPECT_LT(reverted_at, p.primary.simTime());
  EXPECT_FALSE(p.compare.revertToLastFinite().isOk());  // nothing diverged any more

  p.compare.setPaused(false);
  p.frames(6);
  EXPECT_GT(p.primary.solves(), primary_solves);
  EXPECT_GT(second.simTime(), reverted_at);
  // caught up (or diverged again on the way, as explicit Euler at this stiffness will)
  if (!second.divergedAt()) EXPECT_NEAR(second.simTime(), p.primary.simTime(), second.h());
}

}  // namespace
}  // namespace hooke
