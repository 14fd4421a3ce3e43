// The mouse's pull on the body: a spring from the particle under the cursor to a target point,
// with its own stiffness and damping, acting along an axis (spring1d) or within the camera plane,
// and spread by mass over a small patch around that particle (a hand grabs a handful of cloth, not
// one thread). Pure math; the input controller moves the target, the session applies the forces.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace hooke {

// Stiffness and damping of the pull.
struct PullSettings {
  float stiffness = 100.0f;  // N/m
  float damping = 2.0f;      // N·s/m, on the held particle's velocity
};

enum class PullConstraint {
  kAxis,   // the force acts along `direction` only (spring1d: the vertical)
  kPlane,  // the force acts within the plane whose normal is `direction` (the camera plane)
};

struct Pull {
  int64_t particle = -1;  // the particle held; -1 when nothing is held
  PullConstraint constraint = PullConstraint::kPlane;
  glm::vec3 direction{0.0f, 1.0f, 0.0f};  // the axis, or the plane's normal (unit length)
  glm::vec3 target{0.0f};                 // where the cursor's ray meets the axis or plane, m

  bool active() const { return particle >= 0; }
};

// The pull's force from the held particle's position and velocity:
//   f = k (target − x) − c v, restricted to the constraint:
//   axis:  f ← (f·a) a        plane:  f ← f − (f·n) n
glm::vec3 pullForce(const Pull& pull, const PullSettings& settings, const glm::vec3& x,
                    const glm::vec3& v);

// Who carries the pull: each free particle within `radius` of the held one, with weight
// w_i = exp(−d_i² / (2 σ²)), σ = radius / 2 (w = 1 for the held particle), gets the share
// m_i w_i / Σ m_j w_j of the force. Every particle of the patch then accelerates as
// a_i = f w_i / M, with M = Σ m_j w_j: the held one as a body of mass M, the rest less, so the
// patch moves together instead of one particle tearing out of the sheet.
struct PatchShare {
  uint32_t particle;
  float share;
};
struct PullPatch {
  std::vector<PatchShare> shares;  // sums to 1; the held particle first
  float mass = 0.0f;               // M = Σ m_j w_j, kg
};
PullPatch pullPatch(std::span<const glm::vec3> x, std::span<const float> mass,
                    std::span<const uint8_t> pinned, uint32_t held, float radius);

// What the pull's defaults depend on.
struct PullScale {
  float patch_mass = 1.0f;   // kg, M of a typical patch (pullPatch)
  float stiffness = 100.0f;  // N/m, the body's base spring stiffness
  bool sheet = false;        // a flat sheet (cloth): it swings and folds with no spring resisting
  double h = 0.03;           // s, the solve interval
};

// The pull's defaults. The force is explicit (a constant within a step), as in symplectic Euler
// for the pull's own spring on the patch's mass M: stable for ω h < 2, ω² = k_pull / M. Springs
// add resistance k_eff (k for solids; 0 for sheets, whose linearised springs have no stiffness
// across the sheet at rest). Aiming at ω h ≈ 0.7 and a damping ratio ζ = 0.5:
//   k_pull = M / (2 h²) + k_eff / 4,   c_pull = 2 ζ √(k_pull M)
// spring1d (1 kg, 100 N/m, h = 0.03 s): 581 N/m, 85 % of the way to the cursor.
PullSettings defaultPull(const PullScale& scale);

}  // namespace hooke
