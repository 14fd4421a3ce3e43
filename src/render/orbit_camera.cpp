// The orbit camera's math: spherical coordinates around the target and the reset-view fit. No GL.
#include "render/orbit_camera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace hooke {

namespace {

constexpr float kMaxPitchDegrees = 89.0f;
constexpr float kMinDistance = 1e-3f;

// unit vector from the target towards the eye
glm::vec3 backward(float yaw_degrees, float pitch_degrees) {
  const float yaw = glm::radians(yaw_degrees), pitch = glm::radians(pitch_degrees);
  return {std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw)};
}

}  // namespace

glm::vec3 OrbitCamera::eye() const {
  return target + distance * backward(yaw_degrees, pitch_degrees);
}

glm::mat4 OrbitCamera::view() const {
  return glm::lookAt(eye(), target, glm::vec3(0, 1, 0));
}

glm::mat4 OrbitCamera::projection(float aspect) const {
  // near and far scale with the distance so depth precision holds at any zoom
  const float near = std::max(1e-4f, 0.02f * distance);
  const float far = std::max(100.0f, 200.0f * distance);
  return glm::perspective(glm::radians(fov_y_degrees), aspect, near, far);
}

void OrbitCamera::orbit(float yaw_delta_degrees, float pitch_delta_degrees) {
  yaw_degrees = std::fmod(yaw_degrees + yaw_delta_degrees, 360.0f);
  pitch_degrees =
      std::clamp(pitch_degrees + pitch_delta_degrees, -kMaxPitchDegrees, kMaxPitchDegrees);
}

void OrbitCamera::zoom(float factor) {
  if (std::isfinite(factor) && factor > 0.0f) distance = std::max(kMinDistance, distance * factor);
}

void OrbitCamera::pan(float right_fraction, float up_fraction) {
  const glm::vec3 back = backward(yaw_degrees, pitch_degrees);
  const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0, 1, 0), back));
  const glm::vec3 up = glm::cross(back, right);
  const float height = 2.0f * distance * std::tan(0.5f * glm::radians(fov_y_degrees));
  target += height * (right_fraction * right + up_fraction * up);
}

void OrbitCamera::frame(const Bounds& bounds, float aspect, float fill) {
  if (bounds.empty()) return;
  target = bounds.center();
  const glm::vec3 back = backward(yaw_degrees, pitch_degrees);
  const glm::vec3 right = glm::normalize(glm::cross(glm::vec3(0, 1, 0), back));
  const glm::vec3 up = glm::cross(back, right);
  const float tan_y = std::tan(0.5f * glm::radians(fov_y_degrees)) * fill;
  const float tan_x = tan_y * aspect;

  // a corner at (x, y, z) in view axes (z towards the eye) is inside the view when
  // |x| <= tan_x (d - z) and |y| <= tan_y (d - z), so d >= z + max(|x| / tan_x, |y| / tan_y)
  float needed = kMinDistance;
  for (int corner = 0; corner < 8; ++corner) {
    const glm::vec3 p(corner & 1 ? bounds.max.x : bounds.min.x,
                      corner & 2 ? bounds.max.y : bounds.min.y,
                      corner & 4 ? bounds.max.z : bounds.min.z);
    const glm::vec3 d = p - target;
    const float x = glm::dot(d, right), y = glm::dot(d, up), z = glm::dot(d, back);
    needed = std::max(needed, z + std::max(std::abs(x) / tan_x, std::abs(y) / tan_y));
  }
  distance = needed;
}

}  // namespace hooke
