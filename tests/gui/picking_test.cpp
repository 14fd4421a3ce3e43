// Tests of render/picking: pixel rays, projection round trips, nearest-particle picks and the
// ray-line and ray-plane meeting points a drag uses. Pure math; no GL.
#include <gtest/gtest.h>

#include <vector>

#include "render/picking.h"

namespace hooke {
namespace {

OrbitCamera testCamera() {
  OrbitCamera camera;
  camera.target = {0.0f, 1.0f, 0.0f};
  camera.yaw_degrees = 30.0f;
  camera.pitch_degrees = 20.0f;
  camera.distance = 5.0f;
  return camera;
}

void expectNear(const glm::vec3& a, const glm::vec3& b, float tolerance) {
  EXPECT_NEAR(a.x, b.x, tolerance);
  EXPECT_NEAR(a.y, b.y, tolerance);
  EXPECT_NEAR(a.z, b.z, tolerance);
}

TEST(Picking, TheViewportCentreLooksAtTheTarget) {
  const OrbitCamera camera = testCamera();
  const Viewport viewport{300.0f, 0.0f, 800.0f, 600.0f};
  const Ray ray = pixelRay(camera, viewport, {700.0f, 300.0f});
  expectNear(ray.origin, camera.eye(), 1e-5f);
  expectNear(ray.direction, viewDirection(camera), 1e-5f);
  EXPECT_NEAR(glm::length(ray.direction), 1.0f, 1e-6f);
}

TEST(Picking, ProjectionAndRayAreInverses) {
  const OrbitCamera camera = testCamera();
  const Viewport viewport{120.0f, 10.0f, 640.0f, 480.0f};
  for (const glm::vec2 pixel : {glm::vec2(130, 20), glm::vec2(500, 250), glm::vec2(750, 480)}) {
    const Ray ray = pixelRay(camera, viewport, pixel);
    const std::optional<glm::vec2> back = projectToPixel(camera, viewport, ray.at(3.0f));
    ASSERT_TRUE(back.has_value());
    EXPECT_NEAR(back->x, pixel.x, 1e-2f);
    EXPECT_NEAR(back->y, pixel.y, 1e-2f);
  }
  // a point behind the eye has no pixel
  const glm::vec3 behind = camera.eye() - 2.0f * viewDirection(camera);
  EXPECT_FALSE(projectToPixel(camera, viewport, behind).has_value());
}

TEST(Picking, PicksTheParticleNearestTheRay) {
  const Ray ray{{0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, -1.0f}};
  const std::vector<glm::vec3> positions = {
      {0.30f, 0.0f, 0.0f},   // 0.3 off the ray
      {0.05f, 0.0f, 1.0f},   // 0.05 off, nearer the eye
      {0.02f, 0.0f, -1.0f},  // 0.02 off, farther
      {5.0f, 0.0f, 0.0f},    // far off
  };
  const float tolerance = 0.05f;  // radians
  ParticlePick pick = pickParticle(ray, positions, {}, 0.0f, tolerance);
  EXPECT_EQ(pick.particle, 2);
  EXPECT_NEAR(pick.ray_distance, 0.02f, 1e-6f);
  EXPECT_NEAR(pick.depth, 6.0f, 1e-5f);

  // skipped (pinned) particles are never picked
  const std::vector<uint8_t> skip = {0, 0, 1, 0};
  EXPECT_EQ(pickParticle(ray, positions, skip, 0.0f, tolerance).particle, 1);

  // nothing within reach
  const std::vector<glm::vec3> far = {{1.0f, 0.0f, 0.0f}};
  EXPECT_EQ(pickParticle(ray, far, {}, 0.0f, tolerance).particle, -1);
  // ...unless the particle is drawn big enough (a ball of radius 0.9)
  EXPECT_EQ(pickParticle(ray, far, {}, 0.9f, tolerance).particle, 0);
  // particles behind the eye are ignored
  const std::vector<glm::vec3> behind = {{0.0f, 0.0f, 6.0f}};
  EXPECT_EQ(pickParticle(ray, behind, {}, 1.0f, tolerance).particle, -1);
}

TEST(Picking, NearTiesGoToTheNearerParticle) {
  const Ray ray{{0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, -1.0f}};
  // both on the ray: equal angle, the front one wins whatever the order
  const std::vector<glm::vec3> a = {{0.0f, 0.0f, -1.0f}, {0.0f, 0.0f, 1.0f}};
  EXPECT_EQ(pickParticle(ray, a, {}, 0.1f, 0.01f).particle, 1);
  const std::vector<glm::vec3> b = {{0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, -1.0f}};
  EXPECT_EQ(pickParticle(ray, b, {}, 0.1f, 0.01f).particle, 0);
}

TEST(Picking, ClosestPointOnAVerticalLine) {
  // a ray along -z at height 1.5 passes the y axis at y = 1.5
  const Ray ray{{0.0f, 1.5f, 4.0f}, {0.0f, 0.0f, -1.0f}};
  expectNear(closestPointOnLine(ray, {0.0f, 0.2f, 0.0f}, {0.0f, 1.0f, 0.0f}), {0.0f, 1.5f, 0.0f},
             1e-5f);
  // a skew ray: the line point closest to it
  const Ray skew{{1.0f, 0.0f, 4.0f}, glm::normalize(glm::vec3(0.0f, 1.0f, -1.0f))};
  expectNear(closestPointOnLine(skew, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}), {0.0f, 4.0f, 0.0f},
             1e-4f);
  // parallel: the foot of the ray's origin
  const Ray parallel{{2.0f, 3.0f, 0.0f}, {0.0f, 1.0f, 0.0f}};
  expectNear(closestPointOnLine(parallel, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}),
             {0.0f, 3.0f, 0.0f}, 1e-5f);
}

TEST(Picking, RayMeetsPlane) {
  const Ray ray{{0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, -1.0f}};
  std::optional<glm::vec3> hit = intersectPlane(ray, {3.0f, 2.0f, 1.0f}, {0.0f, 0.0f, 1.0f});
  ASSERT_TRUE(hit.has_value());
  expectNear(*hit, {0.0f, 0.0f, 1.0f}, 1e-5f);
  EXPECT_FALSE(intersectPlane(ray, {0.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}).has_value());
  EXPECT_FALSE(intersectPlane(ray, {0.0f, 0.0f, 6.0f}, {0.0f, 0.0f, 1.0f}).has_value());
}

}  // namespace
}  // namespace hooke
