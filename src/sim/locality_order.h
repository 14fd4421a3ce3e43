// An order of a model's particles and springs for memory locality: particles along a Morton
// (Z-order) curve of their positions, springs by their ends in that order. A backend that stores
// its arrays in this order finds a particle's neighbours, and their springs, close to it in
// memory, so a gather over a block of consecutive particles mostly reads what the block has
// already loaded (the CUDA backend's q = A p: docs/CUDA_NOTES.md, docs/PERFORMANCE.md item 15).
// Results change only by the order of floating-point sums. Standard library and GLM only.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "sim/model.h"

namespace hooke {

struct LocalityOrder {
  std::vector<uint32_t> particle;  // (particles) position in the order -> model particle
  std::vector<uint32_t> slot;      // (particles) model particle -> its position in the order
  std::vector<uint32_t> spring;    // (springs) position in the order -> model spring
  bool identity() const;           // true when nothing moves
  bool particlesMove() const;      // some particle's position differs from its index
  bool springsMove() const;        // likewise for a spring
};

// The Morton key of p inside the box [lo, lo + extent]³: 21 bits per axis, interleaved (x in the
// lowest bit). Points outside the box or not finite are clamped to it (NaN to its lower corner).
uint64_t mortonKey(glm::vec3 p, glm::vec3 lo, float extent);

// Particles sorted by the Morton key of x (ties by index, so the order is deterministic), springs
// by (lower, higher) slot of their two ends, then by index. x must hold one position per particle.
// Every spring keeps its orientation: only positions move.
LocalityOrder localityOrder(const Model& model, std::span<const glm::vec3> x);

// The model's own particle order with the springs sorted as localityOrder sorts them, by (lower,
// higher) particle, then by index: for a backend whose particles must keep the model's indices
// (the CUDA backend's offset-stencil rows, cuda/stencil_rows.h).
LocalityOrder springsByEnds(const Model& model);

}  // namespace hooke
