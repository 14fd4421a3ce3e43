// hooke-bank-model: how many passes of the shared memory's banks item 27's walk takes a block and
// iteration on the staged grid, for each placement of the backend's staged data: the rows' entries
// in spring order or by direction (item 47), item 31's words in CSR order with the springs
// first-named or by column with the springs coloured (item 46), the halo's outside slots ascending
// or placed by bank (item 51). Builds the scene's halos on the host as the CUDA backend does at
// load (the locality order, one round of rows in blocks of BLOCK threads, LANES to a row) and
// counts, for every warp-wide load the walk issues together, the most distinct addresses in one
// bank (32 banks of 4 bytes; a 16-byte load a quarter-warp at a time): the words and springs of
// the entries past the two each thread holds, and the neighbours' u' (three loads) of every entry.
// Also the 32-byte sectors that the fill's loads of one float4 array touch for the outside slots,
// and the rows whose every neighbour is one of their block's own rows (what a form of CG whose
// q = A m does not wait for the iteration's sums could gather during the grid barrier).
// No device is involved; ncu's counts on the H200 are the measure (docs/PERFORMANCE.md).
//   Usage: hooke-bank-model cloth|volume RES [BLOCK [LANES]]   (BLOCK 512, LANES 1 by default)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "bench/whole_number.h"
#include "cuda/cuda_backend.h"
#include "cuda/staged_halo.h"
#include "sim/locality_order.h"
#include "sim/scenes.h"

namespace {

int usage(const char* why) {
  std::fprintf(stderr,
               "hooke-bank-model: %s (usage: hooke-bank-model cloth|volume RES [BLOCK [LANES]])\n",
               why);
  return 2;
}

struct Placement {
  const char* name;
  bool by_direction, columns, halo_colours;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 5) return usage("expects a scene and a resolution");
  const std::string scene_name = argv[1];
  if (scene_name != "cloth" && scene_name != "volume") return usage("the scene is cloth or volume");
  const bool cloth = scene_name == "cloth";
  int res = 0, block = 512, lanes = 1;
  if (!hooke::bench::parseWholeNumber(argv[2], 2, cloth ? 512 : 128, &res))
    return usage(cloth ? "RES is a whole number from 2 to 512 for cloth"
                       : "RES is a whole number from 2 to 128 for volume");
  if (argc >= 4 && (!hooke::bench::parseWholeNumber(argv[3], 32, 1024, &block) || block % 32 != 0))
    return usage("BLOCK is a multiple of 32 from 32 to 1024");
  if (argc == 5 &&
      (!hooke::bench::parseWholeNumber(argv[4], 1, 32, &lanes) || (lanes & (lanes - 1)) != 0))
    return usage("LANES is 1, 2, 4, 8, 16 or 32");

  const hooke::Scene scene = cloth ? hooke::makeCloth(res, {}) : hooke::makeVolume(res, {});
  const size_t n = scene.model.particleCount();
  // the device order: the locality order's slots, each row's springs as the backend lists them
  const hooke::LocalityOrder order = hooke::localityOrder(scene.model, scene.state.x);
  std::vector<glm::uvec2> ends(scene.model.springCount());
  for (size_t s = 0; s < ends.size(); ++s) {
    const glm::uvec2 e = scene.model.spring_ends[order.spring[s]];
    ends[s] = glm::uvec2(order.slot[e.x], order.slot[e.y]);
  }
  std::vector<uint32_t> row_start;
  std::vector<int32_t> by_spring(4 * ends.size());
  hooke::cuda::buildAdjacency(n, ends, &row_start, by_spring.data());
  const uint32_t threads = uint32_t(block), lane_count = uint32_t(lanes);
  const uint32_t rows = threads / lane_count;
  const uint32_t blocks = uint32_t((n + rows - 1) / rows);
  const uint32_t walked_from = uint32_t(hooke::cuda::kGridHeldEntries);
  // the backend's defaults at this shape: item 47 on one lane only; item 46 where a thread walks
  // kColumnsMinWalked entries or more past the ones it holds; item 45 (the fill leaves out the own
  // rows) on one lane
  uint32_t longest = 0;
  for (size_t i = 0; i < n; ++i)
    longest = std::max(longest, (row_start[i + 1] - row_start[i] + lane_count - 1) / lane_count);
  const bool columns = longest >= walked_from + uint32_t(hooke::kColumnsMinWalked);
  const bool direction = lanes == 1, own_rows_unfilled = lanes == 1;
  std::vector<int32_t> by_direction;  // item 47's order, on one lane
  if (direction) {
    by_direction = by_spring;
    std::vector<glm::vec3> x(n);
    for (size_t d = 0; d < n; ++d)
      x[d] = scene.state.x[order.particle[d]];
    if (!hooke::cuda::sortRowsByDirection(x, row_start, by_direction.data()))
      return usage("the scene has no spring of positive length");
  }
  std::vector<Placement> placements;
  if (direction) {
    placements.push_back({"spring order, words by row, springs first-named (items 46, 47 off)",
                          false, false, false});
    placements.push_back(
        {"by direction (47), words by row, springs first-named", true, false, false});
    placements.push_back(
        {"by direction, words by column, springs coloured (46, 47)", true, true, false});
  } else {
    placements.push_back({"words by row, springs first-named (item 46 off)", false, false, false});
    placements.push_back({"words by column, springs coloured (46)", false, true, false});
  }
  // (item 47 on one lane whatever item 46 does)
  const Placement defaults = placements[(direction ? 1 : 0) + (columns ? 1 : 0)];
  const char* with_51 = direction
                            ? (columns ? "46, 47 and the outside slots placed by bank (51)"
                                       : "47, item 46 off, the outside slots placed by bank (51)")
                            : (columns ? "46 and the outside slots placed by bank (51)"
                                       : "item 46 off, the outside slots placed by bank (51)");
  placements.push_back({with_51, defaults.by_direction, defaults.columns, true});
  std::printf(
      "%s %d: %zu particles, %zu springs; blocks of %u threads, %u to a row: %u blocks%s\n"
      "the default here: %s (a thread walks up to %u entries past the %u it holds)\n"
      "per block and iteration: passes of the shared memory's banks (u' counts its three loads),\n"
      "and the 32-byte sectors of one float4 array the fill loads (%s)\n",
      scene_name.c_str(), res, n, ends.size(), threads, lane_count, blocks,
      lanes > 1 ? " (spring order: item 47 runs on one lane only)" : "", defaults.name,
      longest > walked_from ? longest - walked_from : 0u, walked_from,
      own_rows_unfilled ? "the outside slots: item 45 keeps the own rows" : "every slot");
  std::printf("| placement | words | springs | u' | walk | u' a load | fill sectors |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  double bound = 0.0;
  for (const Placement& p : placements) {
    hooke::cuda::StagedHalo h;
    const std::vector<int32_t>& pairs = p.by_direction ? by_direction : by_spring;
    if (!hooke::cuda::buildStagedHalo(blocks, threads, lane_count, row_start, pairs.data(), 65536,
                                      &h) ||
        h.words.empty()) {
      return usage("a block's halo or springs pass 16 bits at that shape");
    }
    if (p.columns &&
        !hooke::cuda::colourStagedSprings(threads, lane_count, row_start, walked_from, &h)) {
      return usage("the springs cannot be coloured at that shape");
    }
    if (p.halo_colours &&
        !hooke::cuda::colourStagedHalo(threads, lane_count, row_start, own_rows_unfilled, &h)) {
      return usage("the halo cannot be placed at that shape");
    }
    const hooke::cuda::StagedWalkPasses w =
        hooke::cuda::stagedWalkPasses(threads, lane_count, row_start, walked_from, p.columns, h);
    const double sectors =
        hooke::cuda::stagedFillSectors(threads, lane_count, row_start, own_rows_unfilled, h);
    const double per = 1.0 / blocks;
    std::printf("| %s | %.0f | %.0f | %.0f | %.0f | %.3f | %.0f |\n", p.name, w.words * per,
                w.springs * per, w.slots * per, (w.words + w.springs + w.slots) * per,
                w.groups > 0.0 ? w.slots / (3.0 * w.groups) : 0.0, sectors * per);
    bound = w.slots_bound * per;  // the last row's entry order
  }
  std::printf(
      "u' in the last row's entry order with the own slots where they are (slot t: the "
      "block's row t), whatever the outside slots' places: at least %.0f\n",
      bound);
  // The rows a block could gather before the grid barrier releases it, in a form of CG whose
  // product does not need the iteration's sums (pipelined CG; item 14's needs α first): those whose
  // every neighbour is one of the block's own rows, and the whole warps of them (a walk split
  // around the barrier's wait is worth only whole warps).
  size_t interior_rows = 0, interior_entries = 0, interior_warps = 0, warps = 0, first_warps = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    const size_t first = size_t(b) * rows, last = std::min(n, first + rows);
    size_t warp_interior = 0, warp_rows = 0, block_interior = 0;
    for (size_t i = first; i < last; ++i) {
      bool inside = true;
      for (uint32_t e = row_start[i]; e < row_start[i + 1]; ++e) {
        const int32_t other = by_spring[2 * size_t(e) + 1];
        const size_t o = size_t(other < 0 ? ~other : other);
        inside = inside && o >= first && o < last;
      }
      interior_rows += inside;
      block_interior += inside;
      interior_entries += inside ? row_start[i + 1] - row_start[i] : 0;
      warp_interior += inside;
      if (++warp_rows * lane_count == 32 || i + 1 == last) {
        warps += 1;
        interior_warps += warp_interior == warp_rows;
        warp_interior = warp_rows = 0;
      }
    }
    // (a block's last warp may be part-full: it counts where it holds only such rows)
    first_warps += block_interior == last - first ? (block_interior * lane_count + 31) / 32
                                                  : block_interior * lane_count / 32;
  }
  std::printf(
      "rows with every neighbour in their own block: %zu of %zu (%.1f %%), %.1f %% of the "
      "entries; warps of such rows alone: %zu of %zu (%zu with them first in their block)\n",
      interior_rows, n, 100.0 * double(interior_rows) / double(n),
      100.0 * double(interior_entries) / double(row_start[n]), interior_warps, warps, first_warps);
  return 0;
}
