// Tests of app/gui/input_controller: a press on a particle starts a pull (vertical for spring1d,
// camera plane otherwise), a miss orbits, the right button pans, the wheel zooms, and the keys map
// to their commands. A scripted drag runs through these handlers against a headless session.
#include <gtest/gtest.h>

#include <vector>

#include "app/gui/input_controller.h"
#include "app/gui/sim_session.h"

namespace hooke {
namespace {

struct Fixture {
  OrbitCamera camera;
  Viewport viewport{300.0f, 0.0f, 800.0f, 600.0f};
  std::vector<glm::vec3> positions;
  std::vector<uint8_t> pinned;

  Fixture() {
    camera.target = {0.0f, 1.0f, 0.0f};
    camera.distance = 4.0f;
  }
  glm::vec2 pixelOf(size_t i) const { return *projectToPixel(camera, viewport, positions[i]); }
  PickTargets targets(int64_t axis_particle = -1, float radius = 0.0f) const {
    return PickTargets{positions, pinned, radius, axis_particle};
  }
};

TEST(InputController, APressOnAParticlePullsItInTheCameraPlane) {
  Fixture f;
  f.positions = {{0.0f, 1.0f, 0.0f}, {0.5f, 1.2f, 0.0f}, {-0.5f, 0.8f, 0.2f}};
  f.pinned = {1, 0, 0};
  InputController input;
  ASSERT_TRUE(input.press(MouseButton::kLeft, f.pixelOf(1), f.targets(), f.camera, f.viewport));
  EXPECT_TRUE(input.pulling());
  EXPECT_EQ(input.pull().particle, 1);
  EXPECT_EQ(input.pull().constraint, PullConstraint::kPlane);
  EXPECT_NEAR(glm::length(input.pull().target - f.positions[1]), 0.0f, 1e-5f);

  // the target follows the cursor within the plane through the particle
  input.move(f.pixelOf(1) + glm::vec2(0.0f, -50.0f), &f.camera, f.viewport);
  const glm::vec3 moved = input.pull().target - f.positions[1];
  EXPECT_GT(moved.y, 0.05f);  // up on screen is up in the world here
  EXPECT_NEAR(glm::dot(moved, input.pull().direction), 0.0f, 1e-5f);

  input.release(MouseButton::kLeft);
  EXPECT_FALSE(input.pulling());
  EXPECT_FALSE(input.busy());

  // pinned particles cannot be picked: a press on one orbits instead
  EXPECT_FALSE(input.press(MouseButton::kLeft, f.pixelOf(0), f.targets(), f.camera, f.viewport));
  EXPECT_TRUE(input.busy());
  input.release(MouseButton::kLeft);
}

TEST(InputController, Spring1dPullsAlongTheVerticalOnly) {
  Fixture f;
  f.positions = {{0.0f, 2.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
  f.pinned = {1, 0};
  InputController input;
  // a press a little beside the ball's centre still hits the ball (radius 0.12 m)
  const glm::vec2 at = f.pixelOf(1) + glm::vec2(15.0f, 0.0f);
  ASSERT_TRUE(input.press(MouseButton::kLeft, at, f.targets(1, 0.12f), f.camera, f.viewport));
  EXPECT_EQ(input.pull().constraint, PullConstraint::kAxis);
  input.move(at + glm::vec2(60.0f, -80.0f), &f.camera, f.viewport);
  const glm::vec3 target = input.pull().target;
  EXPECT_FLOAT_EQ(target.x, 0.0f);
  EXPECT_FLOAT_EQ(target.z, 0.0f);
  EXPECT_GT(target.y, 1.1f);
}

TEST(InputController, MissesOrbitRightButtonPansWheelZooms) {
  Fixture f;
  f.positions = {{0.0f, 1.0f, 0.0f}};
  f.pinned = {0};
  InputController input;
  const OrbitCamera before = f.camera;
  EXPECT_FALSE(input.press(MouseButton::kLeft, {350.0f, 50.0f}, f.targets(), f.camera, f.viewport));
  input.move({400.0f, 70.0f}, &f.camera, f.viewport);
  EXPECT_NEAR(f.camera.yaw_degrees, before.yaw_degrees - 50.0f * 0.3f, 1e-3f);
  EXPECT_NEAR(f.camera.pitch_degrees, before.pitch_degrees + 20.0f * 0.3f, 1e-3f);
  input.release(MouseButton::kLeft);

  const glm::vec3 target = f.camera.target;
  input.press(MouseButton::kRight, {500.0f, 300.0f}, f.targets(), f.camera, f.viewport);
  input.move({560.0f, 300.0f}, &f.camera, f.viewport);
  EXPECT_GT(glm::length(f.camera.target - target), 0.01f);
  input.release(MouseButton::kRight);

  const float distance = f.camera.distance;
  input.scroll(2.0f, &f.camera, f.viewport);
  EXPECT_NEAR(f.camera.distance, distance * 0.85f * 0.85f, 1e-4f);
  input.scroll(-2.0f, &f.camera, f.viewport);
  EXPECT_NEAR(f.camera.distance, distance, 1e-4f);
}

TEST(InputController, KeysMapToCommands) {
  EXPECT_EQ(commandForKey(Key::kSpace), KeyCommand::kTogglePause);
  EXPECT_EQ(commandForKey(Key::kS), KeyCommand::kSingleStep);
  EXPECT_EQ(commandForKey(Key::kR), KeyCommand::kReset);
  EXPECT_EQ(commandForKey(Key::k1), KeyCommand::kSceneCloth);
  EXPECT_EQ(commandForKey(Key::k2), KeyCommand::kSceneVolume);
  EXPECT_EQ(commandForKey(Key::k3), KeyCommand::kSceneSpring1d);
  EXPECT_EQ(commandForKey(Key::kF), KeyCommand::kResetView);
  EXPECT_EQ(commandForKey(Key::kF12), KeyCommand::kScreenshot);
  EXPECT_EQ(commandForKey(Key::kOther), KeyCommand::kNone);
}

// the scripted drag: press on the spring1d mass, drag up, hold, release
TEST(InputController, ScriptedDragOnSpring1dMovesTheMassThenItOscillates) {
  SimSession session;
  SceneOptions scene;
  scene.scene = "spring1d";
  ASSERT_TRUE(session.load(scene, "cpu", SolverSettings{}, TimeSettings{}).isOk());
  Fixture f;
  f.camera.target = {0.0f, 1.4f, 0.0f};
  std::vector<glm::vec3> drawn(2);
  session.writeVisual(drawn);
  f.positions = drawn;
  f.pinned = session.model().pinned;
  const PullSettings pull = defaultPull(PullScale{1.0f, 100.0f, false, 0.03});

  InputController input;
  const glm::vec2 ball = f.pixelOf(1);
  ASSERT_TRUE(input.press(MouseButton::kLeft, ball, f.targets(session.drivenParticle(), 0.12f),
                          f.camera, f.viewport));
  input.move(ball + glm::vec2(0.0f, -100.0f), &f.camera, f.viewport);
  const float target = input.pull().target.y;
  ASSERT_GT(target, drawn[1].y + 0.2f);
  for (int frame = 0; frame < 90; ++frame) {
    session.setPull(input.pull(), pull);
    (void)session.advance(1.0 / 60.0);
  }
  const float held = session.state().x[1].y;
  EXPECT_GT(held, drawn[1].y + 0.5f * (target - drawn[1].y));  // toward the cursor

  input.release(MouseButton::kLeft);
  session.setPull(input.pull(), pull);
  std::vector<float> heights;
  for (int frame = 0; frame < 120; ++frame) {
    (void)session.advance(1.0 / 60.0);
    // the solved state changes at solves only (h = 0.03 s, two frames)
    if (heights.empty() || heights.back() != session.state().x[1].y) {
      heights.push_back(session.state().x[1].y);
    }
  }
  // it oscillates: the velocity changes sign more than once
  int turns = 0;
  for (size_t i = 2; i < heights.size(); ++i) {
    if ((heights[i] - heights[i - 1]) * (heights[i - 1] - heights[i - 2]) < 0.0f) ++turns;
  }
  EXPECT_GE(turns, 2);
  EXPECT_LT(*std::min_element(heights.begin(), heights.end()), held - 0.1f);
}

}  // namespace
}  // namespace hooke
