// Item 18's halos (host side): which particles each block of the cooperative grid stages in shared
// memory before each gather of item 14's kernel, and where each adjacency entry's other end then
// lies among them. Built once at load from the launch shape, the device order's CSR adjacency and
// the gather lanes.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace hooke::cuda {

// Adjacency entries item 14's grid kernel holds in registers for the launch (item 17), the first of
// each row; item 46's columns start after them.
inline constexpr int kGridHeldEntries = 2;

// The CSR adjacency of n particles joined by springs `ends`: row i's entries are its springs in
// increasing order, each as the pair (spring, other end), the other end as ~other where i is the
// spring's second end. row_start: (n + 1) offsets; pairs: 2 · 2 · ends.size() int32_t, written.
void buildAdjacency(size_t n, const std::vector<glm::uvec2>& ends, std::vector<uint32_t>* row_start,
                    int32_t* pairs);

// Item 47: each CSR row's entries sorted, stably, by the direction from the row's particle to the
// entry's other end (x: positions by device slot; pairs: row_start.back() pairs (spring, other end
// or ~other end), as the backend uploads them): by the offset's (z, y, x) in units of the shortest
// spring, rounded. Any order gives the same system; this one makes a warp's rows of a lattice read
// the same neighbour direction at the same entry. False, with the pairs unchanged, where no spring
// has a positive finite length.
bool sortRowsByDirection(const std::vector<glm::vec3>& x, const std::vector<uint32_t>& row_start,
                         int32_t* pairs);

struct StagedHalo {
  std::vector<uint32_t> start;  // (blocks + 1) each block's first slot in halo
  std::vector<uint32_t> halo;   // per block: its own rows in gather order, then the other ends of
                                // their entries that are not its own rows, ascending (item 51:
                                // placed by bank)
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

// Item 46: reorders each block's springs (item 31's lists, one round of rows: block b's threads
// `threads`, `lanes` to a row, thread t gathering entries t % lanes, t % lanes + lanes, ... of the
// block's row t / lanes) for the walk that reads the j-th entry (j >= walked_from) of a warp's 32
// threads together, a quarter-warp (8 threads) per shared-memory pass of a 16-byte load: each
// spring's place mod 8 (its colour: which 16 bytes of a 128-byte row of banks it takes) differs,
// where a greedy colouring finds one free, from the other springs its quarter-warps read at the
// same j. The first-named order gives ~2.5 times the passes a warp needs on one lane (ncu on the
// H200: 10 where 4 would do). Places are 8 k + colour, visited in the walk's order (j, then
// thread); a hole left by the colouring holds the block's first spring again (copied, never
// read). The words are rewritten to the new places; every entry keeps its spring and slot. False,
// with `h` unchanged, where it has no item 31 lists, the lanes do not divide the threads, or a
// block's places would pass 65535.
bool colourStagedSprings(uint32_t threads, uint32_t lanes, const std::vector<uint32_t>& row_start,
                         uint32_t walked_from, StagedHalo* h);

// Item 51: places each block's outside slots (the halo past its own rows, which keep theirs) so
// that the u' loads item 14's gather issues together mostly fall in different banks. One round of
// rows (block b's threads `threads`, `lanes` to a row, thread t gathering entries t % lanes,
// t % lanes + lanes, ... of the block's row t / lanes): a warp's 32 threads read their j-th
// entries' slots together, each slot's u' as three floats at float 3 · slot, so slot s takes bank
// 3 s mod 32 and its colour is s mod 32. Greedy, the slots named by the most groups (warp, j)
// first: each takes a free place of the colour that raises fewest of its groups' passes (the most
// distinct slots of one bank), then the one that shares fewest of its groups' banks, then the one
// with the most free places. Within a colour the two particles of a 32-byte sector of the float4
// vectors take places in one window of the fill's warps where they can (32 consecutive slots from
// the outside slots' first where the fill leaves out the own rows, item 45's one lane:
// `own_rows_unfilled`; else from slot 0), so the fill's loads touch about as many sectors as
// ascending slots do. A permutation of each block's outside slots: `halo` and every entry's
// slot (entries, and item 31's words) rewritten, every entry's other end the same particle, so
// the same sums. False, with `h` unchanged, for several rounds of rows, lanes that do not divide
// the threads, or halos built for another shape (block b's own rows not its first slots).
bool colourStagedHalo(uint32_t threads, uint32_t lanes, const std::vector<uint32_t>& row_start,
                      bool own_rows_unfilled, StagedHalo* h);

// A model of the shared memory's banks for the loads of item 27's walk in one round of rows (the
// passes each load instruction of a warp takes: the most distinct addresses in one bank; 32 banks
// of 4 bytes, a 16-byte load served a quarter-warp of 8 threads at a time), summed over the blocks
// and the entries j each thread gathers (thread t: entries t % lanes + lanes j of the block's row
// t / lanes). Each j is counted as one load instruction of the warp (where a warp's threads walk
// different counts, the kernel's paired walk and its tail split a j in two: slightly more there).
// For bench/bank_model and the tests; the device is not involved.
struct StagedWalkPasses {
  double groups = 0.0;   // (warp, j) with an entry: the warp-wide load instructions of each kind
  double words = 0.0;    // item 31's 4-byte words, j >= walked_from (item 46's columns, else CSR)
  double springs = 0.0;  // their springs' 16-byte blocks, j >= walked_from
  double slots = 0.0;    // the neighbours' u' (three 4-byte loads at float 3 · slot), every j
  double slots_bound = 0.0;  // the least `slots` any placement of the outside slots could take
};
StagedWalkPasses stagedWalkPasses(uint32_t threads, uint32_t lanes,
                                  const std::vector<uint32_t>& row_start, uint32_t walked_from,
                                  bool columns, const StagedHalo& h);

// 32-byte sectors that the fill's loads of one float4 array (r', w' or s') touch, 32 consecutive
// slots a warp, summed over the blocks: the outside slots where the fill leaves out the own rows
// (item 45: `own_rows_unfilled`), else every slot from 0.
double stagedFillSectors(uint32_t threads, uint32_t lanes, const std::vector<uint32_t>& row_start,
                         bool own_rows_unfilled, const StagedHalo& h);

}  // namespace hooke::cuda
