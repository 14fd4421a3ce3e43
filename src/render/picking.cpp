// Ray construction and nearest-particle search for mouse picking. Pure math on the camera's
// matrices; knows nothing of windows or events.
#include "render/picking.h"

#include <cmath>
#include <limits>

namespace hooke {

Ray pixelRay(const OrbitCamera& camera, const Viewport& viewport, const glm::vec2& pixel) {
  // pixel -> normalised device coordinates (y up), then unproject the near and far points
  const float ndc_x = 2.0f * (pixel.x - viewport.x) / viewport.width - 1.0f;
  const float ndc_y = 1.0f - 2.0f * (pixel.y - viewport.y) / viewport.height;
  const glm::mat4 inverse = glm::inverse(camera.projection(viewport.aspect()) * camera.view());
  glm::vec4 near_point = inverse * glm::vec4(ndc_x, ndc_y, -1.0f, 1.0f);
  glm::vec4 far_point = inverse * glm::vec4(ndc_x, ndc_y, 1.0f, 1.0f);
  near_point /= near_point.w;
  far_point /= far_point.w;
  Ray ray;
  ray.origin = camera.eye();
  ray.direction = glm::normalize(glm::vec3(far_point) - glm::vec3(near_point));
  return ray;
}

std::optional<glm::vec2> projectToPixel(const OrbitCamera& camera, const Viewport& viewport,
                                        const glm::vec3& world) {
  const glm::vec4 clip =
      camera.projection(viewport.aspect()) * camera.view() * glm::vec4(world, 1.0f);
  if (clip.w <= 0.0f) return std::nullopt;
  const glm::vec2 ndc = glm::vec2(clip) / clip.w;
  return glm::vec2(viewport.x + 0.5f * (ndc.x + 1.0f) * viewport.width,
                   viewport.y + 0.5f * (1.0f - ndc.y) * viewport.height);
}

float radiansPerPixel(const OrbitCamera& camera, const Viewport& viewport) {
  // the view spans fov_y over the viewport's height
  return glm::radians(camera.fov_y_degrees) / std::max(1.0f, viewport.height);
}

ParticlePick pickParticle(const Ray& ray, std::span<const glm::vec3> positions,
                          std::span<const uint8_t> skip, float radius, float tolerance_radians) {
  const float tolerance = std::tan(tolerance_radians);
  ParticlePick best;
  float best_angle = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i < skip.size() && skip[i]) continue;
    // foot point of the particle on the ray: depth t, distance d
    const glm::vec3 to = positions[i] - ray.origin;
    const float depth = glm::dot(to, ray.direction);
    if (!(depth > 0.0f)) continue;
    const float distance = glm::length(to - depth * ray.direction);
    if (!(distance <= radius + depth * tolerance)) continue;
    // angular distance beyond the particle's own radius, as seen from the eye
    const float angle = std::max(0.0f, distance - radius) / depth;
    const bool clearly_better = angle < best_angle * 0.99f - 1e-7f;
    const bool tie_but_nearer = angle <= best_angle * 1.01f + 1e-7f && depth < best.depth;
    if (best.particle < 0 || clearly_better || tie_but_nearer) {
      best = {int64_t(i), distance, depth};
      best_angle = std::min(best_angle, angle);
    }
  }
  return best;
}

glm::vec3 closestPointOnLine(const Ray& ray, const glm::vec3& point, const glm::vec3& direction) {
  // minimise |ray(t) - line(s)|: the standard two-line closest-point solution for s
  const glm::vec3 w = point - ray.origin;
  const float a = glm::dot(direction, direction);
  const float b = glm::dot(direction, ray.direction);
  const float c = glm::dot(ray.direction, ray.direction);
  const float d = glm::dot(direction, w);
  const float e = glm::dot(ray.direction, w);
  const float denominator = a * c - b * b;
  float s = 0.0f;
  if (std::abs(denominator) > 1e-8f * a * c) {
    s = (b * e - c * d) / denominator;
  } else {
    s = -d / a;  // parallel: the line point nearest the ray's origin
  }
  return point + s * direction;
}

std::optional<glm::vec3> intersectPlane(const Ray& ray, const glm::vec3& point,
                                        const glm::vec3& normal) {
  const float facing = glm::dot(ray.direction, normal);
  if (std::abs(facing) < 1e-6f) return std::nullopt;
  const float t = glm::dot(point - ray.origin, normal) / facing;
  if (t < 0.0f) return std::nullopt;
  return ray.at(t);
}

glm::vec3 viewDirection(const OrbitCamera& camera) {
  return glm::normalize(camera.target - camera.eye());
}

}  // namespace hooke
