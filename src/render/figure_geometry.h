// Meshes for scenes drawn as figures rather than surfaces (spring1d, small JSON systems): a unit
// sphere, a unit box and a coil spring swept along an axis. Pure CPU geometry; no GL.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace hooke {

struct LitVertex {
  glm::vec3 position;
  glm::vec3 normal;
};

struct LitMesh {
  std::vector<LitVertex> vertices;
  std::vector<uint32_t> indices;  // (triangles x 3), counter-clockwise seen from outside
};

// A sphere of radius 1 at the origin: `slices` around y, `stacks` from pole to pole.
LitMesh makeUnitSphere(int slices, int stacks);

// A box from (-1, -1, -1) to (1, 1, 1) with flat faces (four vertices per face).
LitMesh makeUnitBox();

// The shape of a drawn coil spring.
struct CoilShape {
  float coil_radius = 0.06f;  // m, axis to wire centre
  float wire_radius = 0.01f;  // m
  int turns = 10;
  float lead_fraction = 0.06f;  // straight wire at each end, as a fraction of the length
  int segments_per_turn = 36;
  int wire_sides = 10;
};

// Appends a coil spring from `from` to `to` (a tube swept along a helix whose radius eases in from
// the straight leads) to `out`. The turns stretch with the length, as a real coil's do.
void appendCoil(const glm::vec3& from, const glm::vec3& to, const CoilShape& shape, LitMesh* out);

}  // namespace hooke
