// Builders for the built-in scenes: cloth, volume (a lattice soft body) and spring1d. Pure
// functions of their parameters; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/model.h"
#include "sim/status.h"

namespace hooke {

// The user-facing material of a built-in scene. Unset fields take the scene's default.
//   stiffness: k of structural, shear, edge and diagonal springs, N/m (cloth bending springs get
//              kBendingRatio × k)
//   damping:   c of those springs, N·s/m (cloth bending springs get kBendingRatio × c)
//   mass:      the body's total mass, kg (spring1d: the hanging mass); spread evenly over particles
//   drag:      linear air drag per particle, N·s/m
struct Material {
  std::optional<float> stiffness;
  std::optional<float> damping;
  std::optional<float> mass;
  std::optional<float> drag;
};

inline constexpr float kBendingRatio = 0.1f;

struct SceneDefaults {
  int res;
  float stiffness;
  float damping;
  float mass;
};

// The defaults of a built-in scene name ("cloth", "volume", "spring1d"); nullopt otherwise.
std::optional<SceneDefaults> builtinDefaults(std::string_view name);

// cloth: res × res particles on a 1 m square sheet lying horizontally at y = 2 m; structural
// (grid neighbours), shear (cell diagonals) and bending (two apart) springs; the two corners of
// the z = 0 edge pinned.
Scene makeCloth(int res, const Material& material);

// volume: a lattice beam, res particles along x (1 m), max(2, res / 2) along y and z at the same
// spacing; springs on the edges, face diagonals and body diagonals of every cell; the x = 0 face
// pinned, so the beam hangs as a cantilever.
Scene makeVolume(int res, const Material& material);

// spring1d: an anchor pinned at (0, 2, 0) and one mass hanging below it by one spring of rest
// length 1 m, released from rest at the spring's rest length. Motion stays on the y axis.
Scene makeSpring1d(const Material& material);

// Builds a built-in scene by name; res <= 0 means the scene's default resolution.
Status makeBuiltinScene(std::string_view name, int res, const Material& material, Scene* out);

// Largest res accepted for a built-in scene (keeps the particle count under ~17 million).
int maxBuiltinRes(std::string_view name);

// Appends a spring between i and j whose rest length is their current distance.
void addSpring(Scene& scene, uint32_t i, uint32_t j, float stiffness, float damping);

}  // namespace hooke
