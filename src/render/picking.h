// Picking math for the orbit camera: a pixel's ray into the scene, the particle nearest to it, and
// where a ray meets the line or plane a drag moves along. Pure GLM; no GL, no input devices.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include <glm/glm.hpp>

#include "render/orbit_camera.h"

namespace hooke {

// The part of the window the scene is drawn in, in window pixels with y down (as mouse positions
// come), and its size.
struct Viewport {
  float x = 0.0f;
  float y = 0.0f;
  float width = 1.0f;
  float height = 1.0f;

  bool contains(const glm::vec2& pixel) const {
    return pixel.x >= x && pixel.y >= y && pixel.x < x + width && pixel.y < y + height;
  }
  float aspect() const { return width / height; }
};

struct Ray {
  glm::vec3 origin{0.0f};
  glm::vec3 direction{0.0f, 0.0f, -1.0f};  // unit length

  glm::vec3 at(float t) const { return origin + t * direction; }
};

// The ray from the eye through a pixel (its centre at +0.5), for the camera's projection over the
// viewport's aspect.
Ray pixelRay(const OrbitCamera& camera, const Viewport& viewport, const glm::vec2& pixel);

// Where a world point lands in the viewport, in window pixels; nullopt behind the eye.
std::optional<glm::vec2> projectToPixel(const OrbitCamera& camera, const Viewport& viewport,
                                        const glm::vec3& world);

// The angle one pixel spans at the centre of the view, radians.
float radiansPerPixel(const OrbitCamera& camera, const Viewport& viewport);

struct ParticlePick {
  int64_t particle = -1;      // -1: nothing within reach
  float ray_distance = 0.0f;  // from the particle to the ray, m
  float depth = 0.0f;         // along the ray to the particle's foot point, m
};

// The particle nearest to the ray, counted in angle seen from the eye (so near and far particles
// compete fairly): particle i is within reach when its distance to the ray is at most
// radius + depth * tan(tolerance_radians). Among those within reach, the smallest angular
// distance wins; near-ties (within 1 %) go to the nearer particle. Particles behind the eye, and
// those with skip[i] != 0 (pinned ones, say; skip may be empty), are never picked.
ParticlePick pickParticle(const Ray& ray, std::span<const glm::vec3> positions,
                          std::span<const uint8_t> skip, float radius, float tolerance_radians);

// The point of the line (point, unit direction) closest to the ray: where a drag along an axis
// puts its target. Falls back to the projection of the ray's origin when they are parallel.
glm::vec3 closestPointOnLine(const Ray& ray, const glm::vec3& point, const glm::vec3& direction);

// Where the ray meets the plane through `point` with unit `normal`; nullopt when it runs parallel
// to the plane or meets it behind the origin.
std::optional<glm::vec3> intersectPlane(const Ray& ray, const glm::vec3& point,
                                        const glm::vec3& normal);

// The direction the camera looks, from the eye towards the target (unit length).
glm::vec3 viewDirection(const OrbitCamera& camera);

}  // namespace hooke
