// The constant description of a mass–spring system (Model) and its mutable state (State), both as
// flat structure-of-arrays. Knows nothing of rendering, files or devices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace hooke {

struct Model {
  // particles
  std::vector<float> mass;      // (particles) kg; a pinned particle's mass is unused
  std::vector<uint8_t> pinned;  // (particles) 1 = held in place, velocity stays 0

  // springs
  std::vector<glm::uvec2> spring_ends;  // (springs x 2) particle indices i, j; i != j
  std::vector<float> rest_length;       // (springs) m, > 0
  std::vector<float> stiffness;         // (springs) N/m, >= 0
  std::vector<float> damping;           // (springs) N·s/m along the spring axis, >= 0

  // world
  glm::vec3 gravity{0.0f, -9.81f, 0.0f};  // m/s²
  float drag = 0.0f;                      // linear air drag, N·s/m per particle

  size_t particleCount() const { return mass.size(); }
  size_t springCount() const { return spring_ends.size(); }
};

struct State {
  std::vector<glm::vec3> x;  // (particles) position, m
  std::vector<glm::vec3> v;  // (particles) velocity, m/s
};

// A loadable scene: the system, its initial state, and what the renderer and the app need.
struct Scene {
  std::string name;
  Model model;
  State state;
  std::vector<glm::uvec3> triangles;  // (triangles x 3) outward surface for rendering; may be empty
  int64_t driven_particle = -1;       // particle the user drags by default (spring1d's mass)
};

}  // namespace hooke
