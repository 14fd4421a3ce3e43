// An orbit camera: yaw and pitch around a target at a distance, with a reset that frames a box.
// Pure math on GLM; knows nothing of GL or input devices (the app maps mouse and wheel onto it).
#pragma once

#include <glm/glm.hpp>

namespace hooke {

// An axis-aligned box in world space; empty() until a point is added.
struct Bounds {
  glm::vec3 min{1e30f};
  glm::vec3 max{-1e30f};

  bool empty() const { return min.x > max.x; }
  void add(const glm::vec3& p) {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
  void add(const glm::vec3& p, float radius) {
    add(p - glm::vec3(radius));
    add(p + glm::vec3(radius));
  }
  glm::vec3 center() const { return 0.5f * (min + max); }
  glm::vec3 size() const { return max - min; }
};

class OrbitCamera {
 public:
  // the view a reset returns to: a three-quarter view from slightly above
  static constexpr float kDefaultYawDegrees = 35.0f;
  static constexpr float kDefaultPitchDegrees = 18.0f;

  glm::vec3 target{0.0f, 1.0f, 0.0f};          // the point orbited and looked at, m
  float yaw_degrees = kDefaultYawDegrees;      // around +y; 0 looks from +z towards -z
  float pitch_degrees = kDefaultPitchDegrees;  // above the target's horizon, in (-89, 89)
  float distance = 4.0f;                       // eye to target, m
  float fov_y_degrees = 40.0f;                 // vertical field of view

  glm::vec3 eye() const;
  glm::mat4 view() const;
  glm::mat4 projection(float aspect) const;  // near and far planes follow the distance

  // Turns the view by a drag: degrees of yaw and pitch (pitch is clamped short of the poles).
  void orbit(float yaw_delta_degrees, float pitch_delta_degrees);
  // Moves the eye towards the target (factor < 1) or away (factor > 1), never through it.
  void zoom(float factor);
  // Shifts the target in the view plane by fractions of the visible height at the target.
  void pan(float right_fraction, float up_fraction);

  // Reset view: keeps yaw and pitch, aims at the box's centre and picks the distance at which
  // every corner of the box lies inside `fill` (0..1] of the half-extent of the view in both
  // directions, for the given aspect (width / height).
  void frame(const Bounds& bounds, float aspect, float fill = 0.8f);
};

}  // namespace hooke
