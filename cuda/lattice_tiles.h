// Item 23: the launched q = A p's rows visited in lattice tiles. Item 22's stencil rows serve
// springs at a few fixed index offsets, which a cloth (i + 1, i + W, i + W ± 1, ...) or a volume
// (also i + P, P = W·H, ...) have because their particles are numbered x fastest, then y, then z.
// In that order a block of consecutive rows is a strip of one lattice row, and the neighbours at
// W and more away belong to rows other blocks gather, on other multiprocessors: every such
// neighbour's direction value and every spring block between two strips crosses L2 twice (once
// per end). Dealing each block a box of the lattice instead (tile_x × tile_y × tile_z, a warp
// along x) keeps most of those neighbours inside the block, where its L1 serves the second read.
//
// A tiling only changes which thread gathers which row, never the row's sum: q = A p is the same
// bits either way (the block partial sums of p·q, and so α, group the rows differently).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define HOOKE_HOST_DEVICE __host__ __device__
#else
#define HOOKE_HOST_DEVICE
#endif

namespace hooke::cuda {

inline constexpr uint32_t kNoParticle = 0xffffffffu;

// The slots of a tiled gather. Slot k of the grid-stride loop is row latticeSlotRow(t, k); slots
// == 0: no tiling, slot k is row k.
struct LatticeTiles {
  uint32_t slots = 0;  // tiles × tile size: every row once, slots past the lattice's edges idle
  uint32_t width = 0, height = 0, depth = 0;       // the lattice: W × H × D particles
  uint32_t tiles_x = 0, tiles_y = 0;               // tiles along x and y (along z: the rest)
  uint32_t shift_x = 0, shift_y = 0, shift_z = 0;  // log2 of a tile's extent along x, y, z
};

// The particle (row) of slot k < t.slots, or kNoParticle for a slot of an edge tile that falls
// outside the lattice. Slots run x fastest within a tile, then y, then z, then tile by tile (x,
// then y, then z).
HOOKE_HOST_DEVICE inline uint32_t latticeSlotRow(const LatticeTiles& t, uint32_t k) {
  const uint32_t sxy = t.shift_x + t.shift_y;
  const uint32_t tile = k >> (sxy + t.shift_z);
  const uint32_t rest = tile / t.tiles_x;
  const uint32_t x = ((tile - rest * t.tiles_x) << t.shift_x) | (k & ((1u << t.shift_x) - 1u));
  const uint32_t tile_z = rest / t.tiles_y;
  const uint32_t y =
      ((rest - tile_z * t.tiles_y) << t.shift_y) | ((k >> t.shift_x) & ((1u << t.shift_y) - 1u));
  const uint32_t z = (tile_z << t.shift_z) | ((k >> sxy) & ((1u << t.shift_z) - 1u));
  if (x >= t.width || y >= t.height || z >= t.depth) return kNoParticle;
  return (z * t.height + y) * t.width + x;
}

// The lattice W × H × D that item 22's stencil offsets (ascending) imply over `particles`
// particles: W the smallest offset of at least 3 whose neighbours W − 1 and W + 1 are offsets too
// (a cloth's shear springs, a volume's) and which divides the particles into whole rows; P = W·H
// the smallest larger such offset c with c − W and c + W such offsets as well (a volume's), if
// it divides them into whole planes; D = particles / P, or 1 without P. False where no W is
// found: then no tiling. The result only steers the tiling, which is correct for any lattice; a
// wrong guess only costs speed.
bool latticeOfOffsets(const std::vector<uint32_t>& offsets, size_t particles, uint32_t dims[3]);

// Whether CudaOptions::lattice_tile is one the backend accepts: all 0 (automatic), or three
// powers of two from 1 to 1024 whose product is at most 65536.
bool acceptableLatticeTile(const int tile[3]);

// Tiles of tile_x × tile_y × tile_z (each a power of two, tile_z 1 on a flat lattice) over the
// lattice dims; false (out left empty) when an extent is not a power of two or the slots would
// pass 2^31.
bool makeLatticeTiles(const uint32_t dims[3], const uint32_t tile[3], LatticeTiles* out);

// The automatic tile of a launched q = A p that gathers `rows_per_block` rows per block and round
// (its block over its lanes; a power of two) with `lanes` threads per row. On a flat lattice a
// warp's rows along x (32 / lanes) and the block's warps along y; on a deep one at most
// kDeepTileX along x and the rest split between y and z (z the larger), since 9 of a volume's 13
// offsets move along y or z: on the H200 8 × 4 × 4 was 2–3 % faster than 16 × 2 × 4 at 265k and
// 1M volume particles on 2 lanes (bench/results/gpu-h200-2026-12-02-tiles.json, "tiles"). Never
// wider than the lattice along x. Zero extents where the block holds fewer rows than a warp.
inline constexpr uint32_t kDeepTileX = 8;
void automaticTile(const uint32_t dims[3], uint32_t rows_per_block, uint32_t lanes,
                   uint32_t tile[3]);

}  // namespace hooke::cuda
