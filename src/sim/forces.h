// Total force on every particle: gravity, springs with their axial dampers, linear air drag and
// external input (DESIGN.md "Physics"). Pinned particles receive zero force.
#pragma once

#include <span>

#include <glm/glm.hpp>

#include "sim/model.h"

namespace hooke {

// f = m g − c_air v + Σ spring forces + external; f_i = 0 for pinned i. external may be empty.
void computeForces(const Model& model, std::span<const glm::vec3> x, std::span<const glm::vec3> v,
                   std::span<const glm::vec3> external, std::span<glm::vec3> f);

}  // namespace hooke
