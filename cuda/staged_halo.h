// Item 18's halos (host side): which particles each block of the cooperative grid stages in shared
// memory before each gather of item 14's kernel, and where each adjacency entry's other end then
// lies among them. Built once at load from the launch shape, the device order's CSR adjacency and
// the gather lanes.
#pragma once

#include <cstdint>
#include <vector>

namespace hooke::cuda {

struct StagedHalo {
  std::vector<uint32_t> start;  // (blocks + 1) each block's first slot in halo
  std::vector<uint32_t> halo;   // per block: its own rows in gather order, then the other ends of
                                // their entries that are not its own rows, ascending
  // per adjacency entry: (spring, the other end's slot in the halo of the block that gathers the
  // entry's row), uploaded as the kernel's uint2
  std::vector<uint32_t> entries;
  uint32_t slots = 0;  // the largest halo
  // one round of rows (every block's rows one range of the CSR): the most entries a block's
  // rows have, for staging them too; 0 with several rounds
  uint32_t entry_slots = 0;
  // Item 31, one round of rows: each block's springs once. spring_start (blocks + 1): block b's
  // springs are springs[spring_start[b] .. spring_start[b + 1]), in the order its entries first
  // name them; words (per adjacency entry): the entry's spring among its block's | its slot << 16.
  // spring_slots: the most springs a block has. Empty (0) with several rounds, or where a block
  // would name more than 65535 springs.
  std::vector<uint32_t> spring_start;
  std::vector<uint32_t> springs;
  std::vector<uint32_t> words;
  uint32_t spring_slots = 0;
};

// The halos of a grid of `blocks` blocks of `threads` threads, `lanes` threads per row (a power of
// two dividing 32 and `threads`), gathering rows as gatherRows does: block b's rows in round k are
// b R + k blocks R + [0, R) with R = threads / lanes. adjacency: row_start.back() pairs (spring,
// other end or ~other end), as the backend uploads them (int2). False, with `out` left empty,
// when a halo would have more than max_slots particles.
bool buildStagedHalo(uint32_t blocks, uint32_t threads, uint32_t lanes,
                     const std::vector<uint32_t>& row_start, const int32_t* adjacency,
                     uint32_t max_slots, StagedHalo* out);

}  // namespace hooke::cuda
