// What the mouse and keys do to the scene: orbit, pan and zoom the camera, or pick a particle and
// pull it (spring1d: along the vertical; others: in the camera plane), and which command a key
// runs. Plain events in, camera and pull out; no GLFW or ImGui types, so tests script it.
#pragma once

#include <cstdint>
#include <span>

#include <glm/glm.hpp>

#include "app/gui/drag_force.h"
#include "render/orbit_camera.h"
#include "render/picking.h"

namespace hooke {

enum class MouseButton { kLeft, kRight, kMiddle };

// The keys hooke binds (the window layer translates its key codes into these).
enum class Key { kSpace, kS, kR, k1, k2, k3, kF, kH, kF12, kOther };

enum class KeyCommand {
  kNone,
  kTogglePause,    // Space
  kSingleStep,     // S
  kReset,          // R
  kSceneCloth,     // 1
  kSceneVolume,    // 2
  kSceneSpring1d,  // 3
  kResetView,      // F
  kTogglePanels,   // H
  kScreenshot,     // F12
};

KeyCommand commandForKey(Key key);

// What picking needs to know about the scene as drawn.
struct PickTargets {
  std::span<const glm::vec3> positions;  // (particles) as drawn now
  std::span<const uint8_t> pinned;       // (particles) never picked
  float radius = 0.0f;                   // m, drawn size of a particle (spring1d's ball)
  // spring1d: only this particle is picked, and it is pulled along the vertical; -1: any
  // particle, pulled in the camera plane
  int64_t axis_particle = -1;
};

class InputController {
 public:
  // how far from a particle, in pixels, a press still picks it
  static constexpr float kPickTolerancePixels = 12.0f;
  static constexpr float kOrbitDegreesPerPixel = 0.3f;
  static constexpr float kZoomPerWheelStep = 0.85f;

  // The particle a left press at `pixel` would take hold of, -1 for none (also for hover hints).
  static int64_t pick(const glm::vec2& pixel, const PickTargets& targets, const OrbitCamera& camera,
                      const Viewport& viewport);

  // A press inside the viewport: the left button picks and pulls a particle, or orbits when it
  // misses; the right and middle buttons pan. Returns true when a particle was picked.
  bool press(MouseButton button, const glm::vec2& pixel, const PickTargets& targets,
             const OrbitCamera& camera, const Viewport& viewport);
  // Moves the pull's target under the cursor, or turns and pans the camera.
  void move(const glm::vec2& pixel, OrbitCamera* camera, const Viewport& viewport);
  // Ends what the button started (a pull is released: the particle moves freely again).
  void release(MouseButton button);
  // Wheel steps (positive: towards the scene); a held pull follows the cursor's new ray.
  void scroll(float steps, OrbitCamera* camera, const Viewport& viewport);
  // Drops any drag, pull included (a scene reload).
  void cancel();

  const Pull& pull() const { return pull_; }
  bool pulling() const { return pull_.active(); }
  bool busy() const { return mode_ != Mode::kNone; }  // a drag of any kind is in progress

 private:
  enum class Mode { kNone, kPull, kOrbit, kPan };
  void retarget(const OrbitCamera& camera, const Viewport& viewport);

  Mode mode_ = Mode::kNone;
  MouseButton button_ = MouseButton::kLeft;
  glm::vec2 last_pixel_{0.0f};
  Pull pull_;
  glm::vec3 grab_point_{0.0f};  // the particle where it was picked: the axis or plane passes here
};

}  // namespace hooke
