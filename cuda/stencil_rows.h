// Item 22's offset-stencil rows (host side) for the launched q = A p. Lattice scenes (a cloth, a
// volume) join each particle to the ones at a few fixed index offsets: i + 1, i + W, i + W + 1...
// With the particles in the model's order and the springs sorted by (lower, higher) end
// (sim/locality_order.h, springsByEnds), a row's springs then follow from one bit per offset and
// direction: no adjacency entry is read at all. A particle's springs towards higher indices are
// the run own_start, own_start + 1, ... in offset order; a spring from a lower particle j at
// offset o is at own_start[j] plus the number of j's own springs at smaller offsets.
//
// Each particle's row is one 32-bit mask over 2D positions (D offsets, at most 16), ordered as the
// backend's CSR adjacency orders the row (by spring index): positions 0 .. D−1 the springs from
// lower particles, largest offset first (position b: offset D − 1 − b), positions D .. 2D − 1 the
// particle's own springs, smallest offset first (position D + d: offset d). The k-th set position
// is the row's k-th adjacency entry, so a gather over the mask sums the same terms in the same
// order as one over the entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace hooke::cuda {

inline constexpr int kStencilMaxOffsets = 16;

struct StencilRows {
  std::vector<uint32_t> offsets;  // (D) the distinct higher − lower of the springs, ascending
  // (2 particles) per particle: its first own spring, then its row mask
  std::vector<uint32_t> meta;
};

// The stencil rows of springs with these ends over `particles` particles. False, with `out` left
// empty, when the springs are not sorted by (lower, higher) end, two springs join the same pair,
// a spring joins a particle to itself or to one out of range, or they use more than
// kStencilMaxOffsets distinct offsets: then a row needs its adjacency entries.
bool buildStencilRows(const std::vector<glm::uvec2>& ends, size_t particles, StencilRows* out);

// Item 37: each spring's place in the offset blocks, d · particles + lower for the spring from its
// lower end at the offsets' d-th offset (rows' offsets, as buildStencilRows found them). Every
// spring gets its own place (no pair twice); the places of absent springs hold zero blocks. False,
// with `slots` left empty, when a spring's offset is not one of `offsets` or the places and one
// more (item 40's zero place, D · particles) would pass 2^32.
bool offsetBlockSlots(const std::vector<glm::uvec2>& ends, size_t particles,
                      const std::vector<uint32_t>& offsets, std::vector<uint32_t>* slots);

}  // namespace hooke::cuda
