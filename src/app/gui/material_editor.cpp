// Reference materials of scenes and the per-spring rescaling the Material panel applies.
#include "app/gui/material_editor.h"

#include <algorithm>
#include <vector>

#include "sim/scenes.h"

namespace hooke {

namespace {

float median(std::vector<float> values) {
  if (values.empty()) return 0.0f;
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

}  // namespace

MaterialSettings referenceMaterial(const Scene& scene, const SceneOptions& options) {
  const Model& model = scene.model;
  MaterialSettings m;
  m.gravity = glm::length(model.gravity);
  m.drag = model.drag;
  if (std::optional<SceneDefaults> defaults = builtinDefaults(options.scene)) {
    m.stiffness = float(options.stiffness.value_or(defaults->stiffness));
    m.damping = float(options.damping.value_or(defaults->damping));
    m.mass = float(options.mass.value_or(defaults->mass));
    return m;
  }
  m.stiffness = median(model.stiffness);
  m.damping = median(model.damping);
  double free_mass = 0.0;
  for (size_t i = 0; i < model.particleCount(); ++i) {
    if (!model.pinned[i]) free_mass += model.mass[i];
  }
  m.mass = float(free_mass);
  return m;
}

Model applyMaterial(const Model& base, const MaterialSettings& reference,
                    const MaterialSettings& wanted) {
  // the scene's own material is the base model, bit for bit
  if (wanted == reference) return base;
  Model model = base;

  // springs: keep each spring's ratio to the base value
  for (size_t s = 0; s < model.springCount(); ++s) {
    const float k_ratio =
        reference.stiffness > 0.0f ? base.stiffness[s] / reference.stiffness : 1.0f;
    model.stiffness[s] = k_ratio * wanted.stiffness;
    model.damping[s] = reference.damping > 0.0f
                           ? base.damping[s] / reference.damping * wanted.damping
                           : k_ratio * wanted.damping;
  }

  // particles: one factor for every mass keeps the distribution (lumped tet masses included)
  if (reference.mass > 0.0f) {
    const float factor = wanted.mass / reference.mass;
    for (float& m : model.mass)
      m *= factor;
  }

  // world
  const float g = glm::length(base.gravity);
  const glm::vec3 down = g > 0.0f ? base.gravity / g : glm::vec3(0.0f, -1.0f, 0.0f);
  model.gravity = down * wanted.gravity;
  model.drag = wanted.drag;
  return model;
}

}  // namespace hooke
