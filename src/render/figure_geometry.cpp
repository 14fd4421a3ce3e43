// Sphere, box and coil meshes for figure scenes. The coil is a tube swept along its centre curve
// with a parallel-transport frame, so the wire does not twist.
#include "render/figure_geometry.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/constants.hpp>

namespace hooke {

namespace {

// any unit vector perpendicular to n
glm::vec3 perpendicular(const glm::vec3& n) {
  const glm::vec3 helper = std::abs(n.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  return glm::normalize(glm::cross(n, helper));
}

}  // namespace

LitMesh makeUnitSphere(int slices, int stacks) {
  LitMesh mesh;
  const float pi = glm::pi<float>();

  // rings of vertices from the north pole (stack 0) to the south pole (stack `stacks`)
  for (int stack = 0; stack <= stacks; ++stack) {
    const float polar = pi * float(stack) / float(stacks);
    for (int slice = 0; slice <= slices; ++slice) {
      const float azimuth = 2.0f * pi * float(slice) / float(slices);
      const glm::vec3 p(std::sin(polar) * std::sin(azimuth), std::cos(polar),
                        std::sin(polar) * std::cos(azimuth));
      mesh.vertices.push_back({p, p});
    }
  }

  // two triangles per quad between neighbouring rings
  const uint32_t row = uint32_t(slices + 1);
  for (int stack = 0; stack < stacks; ++stack) {
    for (int slice = 0; slice < slices; ++slice) {
      const uint32_t a = uint32_t(stack) * row + uint32_t(slice), b = a + row;
      mesh.indices.insert(mesh.indices.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  }
  return mesh;
}

LitMesh makeUnitBox() {
  LitMesh mesh;
  // each face: its normal and two in-plane axes with cross(u, v) = normal
  const glm::vec3 normals[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  for (const glm::vec3& n : normals) {
    const glm::vec3 u = perpendicular(n), v = glm::cross(n, u);
    const uint32_t base = uint32_t(mesh.vertices.size());
    for (const glm::vec2& c :
         {glm::vec2(-1, -1), glm::vec2(1, -1), glm::vec2(1, 1), glm::vec2(-1, 1)}) {
      mesh.vertices.push_back({n + c.x * u + c.y * v, n});
    }
    mesh.indices.insert(mesh.indices.end(), {base, base + 1, base + 2, base, base + 2, base + 3});
  }
  return mesh;
}

void appendCoil(const glm::vec3& from, const glm::vec3& to, const CoilShape& shape, LitMesh* out) {
  const glm::vec3 axis_vector = to - from;
  const float length = glm::length(axis_vector);
  if (!(length > 1e-6f) || !std::isfinite(length)) return;
  const glm::vec3 axis = axis_vector / length;
  const glm::vec3 u = perpendicular(axis), v = glm::cross(axis, u);
  const float pi = glm::pi<float>();

  // the centre curve: straight leads at both ends, a helix between them whose radius eases in
  // over the first and last quarter turn
  const int samples = std::max(2, shape.turns * shape.segments_per_turn) + 1;
  const float lead = std::clamp(shape.lead_fraction, 0.0f, 0.45f);
  std::vector<glm::vec3> curve;
  curve.push_back(from);
  for (int i = 0; i < samples; ++i) {
    const float s = float(i) / float(samples - 1);  // 0..1 along the coiled part
    const float along = lead + (1.0f - 2.0f * lead) * s;
    const float turns = s * float(shape.turns);
    const float ease_in = std::clamp(turns * 4.0f, 0.0f, 1.0f);
    const float ease_out = std::clamp((float(shape.turns) - turns) * 4.0f, 0.0f, 1.0f);
    const float r = shape.coil_radius * glm::smoothstep(0.0f, 1.0f, std::min(ease_in, ease_out));
    const float angle = 2.0f * pi * turns;
    curve.push_back(from + along * length * axis + r * (std::cos(angle) * u + std::sin(angle) * v));
  }
  curve.push_back(to);

  // sweep a circle along the curve with a parallel-transport frame
  const uint32_t base = uint32_t(out->vertices.size());
  const int sides = std::max(3, shape.wire_sides);
  glm::vec3 normal = u;
  for (size_t i = 0; i < curve.size(); ++i) {
    const glm::vec3 ahead = curve[std::min(i + 1, curve.size() - 1)];
    const glm::vec3 behind = curve[i > 0 ? i - 1 : 0];
    glm::vec3 tangent = ahead - behind;
    tangent = glm::length(tangent) > 0.0f ? glm::normalize(tangent) : axis;
    normal = normal - glm::dot(normal, tangent) * tangent;
    normal = glm::length(normal) > 1e-6f ? glm::normalize(normal) : perpendicular(tangent);
    const glm::vec3 binormal = glm::cross(tangent, normal);
    for (int side = 0; side <= sides; ++side) {
      const float a = 2.0f * pi * float(side) / float(sides);
      const glm::vec3 n = std::cos(a) * normal + std::sin(a) * binormal;
      out->vertices.push_back({curve[i] + shape.wire_radius * n, n});
    }
  }
  const uint32_t ring = uint32_t(sides + 1);
  for (uint32_t i = 0; i + 1 < curve.size(); ++i) {
    for (uint32_t side = 0; side < uint32_t(sides); ++side) {
      const uint32_t a = base + i * ring + side, b = a + ring;
      out->indices.insert(out->indices.end(), {a, a + 1, b, a + 1, b + 1, b});
    }
  }
}

}  // namespace hooke
