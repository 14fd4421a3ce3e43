// Live material changes: the Material panel's five numbers and how they turn the scene's model,
// as built, into the model the backend gets (Backend::updateModel), keeping every spring's ratio
// to the base value (cloth bending springs stay at 0.1 k). Pure functions; no UI, no backend.
#pragma once

#include "app/cli_options.h"
#include "sim/model.h"

namespace hooke {

struct MaterialSettings {
  float stiffness = 0.0f;  // N/m, the base spring stiffness
  float damping = 0.0f;    // N·s/m, the base spring damping
  float mass = 0.0f;       // kg, the body's total (spring1d: the hanging mass)
  float gravity = 9.81f;   // m/s², the magnitude of gravity (its direction is the scene's)
  float drag = 0.0f;       // N·s/m per particle, linear air drag

  bool operator==(const MaterialSettings&) const = default;
};

// The scene's own material, which the model as built carries: for built-in scenes the defaults
// with the command line's overrides; for scene files the median spring k and c and the summed
// mass of the free particles. Gravity and drag come from the model.
MaterialSettings referenceMaterial(const Scene& scene, const SceneOptions& options);

// The base model with `wanted` in place of `reference`:
//   k_s = k_s,base · k / k_ref      c_s = c_s,base · c / c_ref
//   m_i = m_i,base · m / m_ref      gravity = ĝ_base · g        drag = wanted drag
// When the reference damping is 0 (no ratio to keep), c_s = c · k_s,base / k_ref, so springs
// softer than the base stay proportionally less damped. Topology and rest lengths are unchanged.
Model applyMaterial(const Model& base, const MaterialSettings& reference,
                    const MaterialSettings& wanted);

}  // namespace hooke
