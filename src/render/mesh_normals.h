// Per-vertex normals of a triangle mesh, recomputed from the deformed positions each frame. Pure
// CPU math; the CUDA interop writer computes the same thing on the device.
#pragma once

#include <span>

#include <glm/glm.hpp>

namespace hooke {

// normals[v] = normalised sum over the triangles around v of their area-weighted face normals
// (cross(b - a, c - a), so counter-clockwise triangles face their viewer). Vertices on no triangle,
// or on degenerate ones only, get (0, 1, 0). normals.size() must equal positions.size().
void computeVertexNormals(std::span<const glm::vec3> positions,
                          std::span<const glm::uvec3> triangles, std::span<glm::vec3> normals);

}  // namespace hooke
