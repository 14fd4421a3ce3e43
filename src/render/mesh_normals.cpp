// Area-weighted vertex normals: the unnormalised cross product of each triangle's edges already
// carries twice its area, so summing them weights every face by its size.
#include "render/mesh_normals.h"

#include <algorithm>

namespace hooke {

void computeVertexNormals(std::span<const glm::vec3> positions,
                          std::span<const glm::uvec3> triangles, std::span<glm::vec3> normals) {
  std::fill(normals.begin(), normals.end(), glm::vec3(0.0f));

  // accumulate face normals on their three corners
  for (const glm::uvec3& t : triangles) {
    const glm::vec3 a = positions[t.x];
    const glm::vec3 face = glm::cross(positions[t.y] - a, positions[t.z] - a);
    normals[t.x] += face;
    normals[t.y] += face;
    normals[t.z] += face;
  }

  // normalise, with a fallback for vertices no triangle gave a direction
  for (glm::vec3& n : normals) {
    const float length = glm::length(n);
    n = length > 1e-20f ? n / length : glm::vec3(0.0f, 1.0f, 0.0f);
  }
}

}  // namespace hooke
