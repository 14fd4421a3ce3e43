// Mouse gestures on the scene (pick and pull, orbit, pan, zoom) and the key bindings.
#include "app/gui/input_controller.h"

#include <cmath>

namespace hooke {

KeyCommand commandForKey(Key key) {
  switch (key) {
    case Key::kSpace:
      return KeyCommand::kTogglePause;
    case Key::kS:
      return KeyCommand::kSingleStep;
    case Key::kR:
      return KeyCommand::kReset;
    case Key::k1:
      return KeyCommand::kSceneCloth;
    case Key::k2:
      return KeyCommand::kSceneVolume;
    case Key::k3:
      return KeyCommand::kSceneSpring1d;
    case Key::kF:
      return KeyCommand::kResetView;
    case Key::kH:
      return KeyCommand::kTogglePanels;
    case Key::kF12:
      return KeyCommand::kScreenshot;
    case Key::kOther:
      return KeyCommand::kNone;
  }
  return KeyCommand::kNone;
}

int64_t InputController::pick(const glm::vec2& pixel, const PickTargets& targets,
                              const OrbitCamera& camera, const Viewport& viewport) {
  // the particle nearest the cursor's ray, within reach (spring1d: its mass only)
  const Ray ray = pixelRay(camera, viewport, pixel);
  const float tolerance = kPickTolerancePixels * radiansPerPixel(camera, viewport);
  if (targets.axis_particle >= 0) {
    const size_t i = size_t(targets.axis_particle);
    if (i >= targets.positions.size()) return -1;
    const ParticlePick hit =
        pickParticle(ray, targets.positions.subspan(i, 1), {}, targets.radius, tolerance);
    return hit.particle >= 0 ? targets.axis_particle : -1;
  }
  return pickParticle(ray, targets.positions, targets.pinned, targets.radius, tolerance).particle;
}

bool InputController::press(MouseButton button, const glm::vec2& pixel, const PickTargets& targets,
                            const OrbitCamera& camera, const Viewport& viewport) {
  if (mode_ != Mode::kNone) return false;  // one gesture at a time
  button_ = button;
  last_pixel_ = pixel;
  if (button != MouseButton::kLeft) {
    mode_ = Mode::kPan;
    return false;
  }
  const int64_t particle = pick(pixel, targets, camera, viewport);
  if (particle < 0) {
    mode_ = Mode::kOrbit;
    return false;
  }

  // a pull from the particle towards the cursor, on the vertical or in the camera plane
  mode_ = Mode::kPull;
  grab_point_ = targets.positions[size_t(particle)];
  pull_.particle = particle;
  if (targets.axis_particle >= 0) {
    pull_.constraint = PullConstraint::kAxis;
    pull_.direction = glm::vec3(0.0f, 1.0f, 0.0f);
  } else {
    pull_.constraint = PullConstraint::kPlane;
    pull_.direction = viewDirection(camera);
  }
  pull_.target = grab_point_;
  return true;
}

void InputController::retarget(const OrbitCamera& camera, const Viewport& viewport) {
  const Ray ray = pixelRay(camera, viewport, last_pixel_);
  if (pull_.constraint == PullConstraint::kAxis) {
    pull_.target = closestPointOnLine(ray, grab_point_, pull_.direction);
  } else if (std::optional<glm::vec3> hit = intersectPlane(ray, grab_point_, pull_.direction)) {
    pull_.target = *hit;
  }
}

void InputController::move(const glm::vec2& pixel, OrbitCamera* camera, const Viewport& viewport) {
  const glm::vec2 delta = pixel - last_pixel_;
  last_pixel_ = pixel;
  switch (mode_) {
    case Mode::kNone:
      return;
    case Mode::kPull:
      retarget(*camera, viewport);
      return;
    case Mode::kOrbit:
      // the scene turns with the cursor: right turns it right, down tips its top towards you
      camera->orbit(-kOrbitDegreesPerPixel * delta.x, kOrbitDegreesPerPixel * delta.y);
      return;
    case Mode::kPan:
      // the scene follows the cursor across the view
      camera->pan(-delta.x / viewport.height, delta.y / viewport.height);
      return;
  }
}

void InputController::release(MouseButton button) {
  if (mode_ == Mode::kNone || button != button_) return;
  mode_ = Mode::kNone;
  pull_ = Pull{};
}

void InputController::scroll(float steps, OrbitCamera* camera, const Viewport& viewport) {
  camera->zoom(std::pow(kZoomPerWheelStep, steps));
  if (mode_ == Mode::kPull) retarget(*camera, viewport);
}

void InputController::cancel() {
  mode_ = Mode::kNone;
  pull_ = Pull{};
}

}  // namespace hooke
