// Item 23's lattice tiles: the lattice the stencil offsets imply and the slot → row map (no device
// needed), and the launched q = A p that visits its rows in tiles (needs a device; skipped, never
// passed, where there is none); item 24's words loaded a round ahead (needs a device).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "cuda/lattice_tiles.h"
#include "cuda/stencil_rows.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

std::vector<uint32_t> offsetsOf(const Scene& scene) {
  const Scene sorted = springsSortedByEnds(scene);
  const size_t n = sorted.model.particleCount();
  cuda::StencilRows rows;
  EXPECT_TRUE(cuda::buildStencilRows(adjacencyOf(n, sorted.model.spring_ends).ends, n, &rows));
  return rows.offsets;
}

std::vector<uint32_t> dimsOf(const std::vector<uint32_t>& offsets, size_t particles) {
  uint32_t dims[3];
  if (!cuda::latticeOfOffsets(offsets, particles, dims)) return {};
  return {dims[0], dims[1], dims[2]};
}

// A cloth's offsets (1, 2, W − 1, W, W + 1, 2W) give W × H; a volume's 13 (x fastest, then y,
// then z) give W × H × D; what no lattice explains gives none
TEST(LatticeTiles, OffsetsImplyTheLattice) {
  using Dims = std::vector<uint32_t>;
  EXPECT_EQ(dimsOf(offsetsOf(makeCloth(16, {})), 256), (Dims{16, 16, 1}));
  EXPECT_EQ(dimsOf(offsetsOf(makeCloth(40, {})), 1600), (Dims{40, 40, 1}));
  EXPECT_EQ(dimsOf(offsetsOf(makeVolume(8, {})), 8 * 4 * 4), (Dims{8, 4, 4}));
  EXPECT_EQ(dimsOf(offsetsOf(makeVolume(10, {})), 10 * 5 * 5), (Dims{10, 5, 5}));
  // small widths, where W − 1 is the bend offset 2 or W + 1 the bend offset 2W
  EXPECT_EQ(dimsOf({1, 2, 3, 4, 6}, 9), (Dims{3, 3, 1}));
  EXPECT_EQ(dimsOf({1, 2, 3, 4, 5, 8}, 20), (Dims{4, 5, 1}));
  // the width does not divide the particles; no shear triple; nothing
  EXPECT_TRUE(dimsOf({1, 2, 15, 16, 17, 32}, 250).empty());
  EXPECT_TRUE(dimsOf({1, 2, 16, 32}, 256).empty());
  EXPECT_TRUE(dimsOf({}, 256).empty());
  // a plane that does not divide the particles: a flat lattice of the rows instead
  EXPECT_EQ(dimsOf(offsetsOf(makeVolume(8, {})), 8 * 4 * 4 + 8), (Dims{8, 17, 1}));
}

// Every row is exactly one slot's, slots past the lattice are idle, and within a tile the slots
// run x fastest
TEST(LatticeTiles, EveryRowIsOneSlots) {
  struct Case {
    uint32_t dims[3], tile[3];
  };
  const Case cases[] = {{{16, 16, 1}, {16, 8, 1}},  {{40, 40, 1}, {16, 8, 1}},
                        {{40, 40, 1}, {32, 16, 1}}, {{10, 5, 5}, {8, 2, 4}},
                        {{13, 7, 5}, {4, 2, 2}},    {{1, 1, 1}, {1, 1, 1}},
                        {{3, 1, 1}, {8, 4, 1}},     {{162, 81, 81}, {8, 2, 4}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.dims[0]) + "x" + std::to_string(c.dims[1]) + "x" +
                 std::to_string(c.dims[2]) + " in " + std::to_string(c.tile[0]) + "x" +
                 std::to_string(c.tile[1]) + "x" + std::to_string(c.tile[2]));
    cuda::LatticeTiles t;
    ASSERT_TRUE(cuda::makeLatticeTiles(c.dims, c.tile, &t));
    const size_t n = size_t(c.dims[0]) * c.dims[1] * c.dims[2];
    const size_t tile_size = size_t(c.tile[0]) * c.tile[1] * c.tile[2];
    EXPECT_EQ(t.slots % tile_size, 0u);
    EXPECT_GE(t.slots, n);
    std::vector<int> seen(n, 0);
    size_t idle = 0;
    for (uint32_t k = 0; k < t.slots; ++k) {
      const uint32_t i = cuda::latticeSlotRow(t, k);
      if (i == cuda::kNoParticle) {
        ++idle;
        continue;
      }
      ASSERT_LT(i, n) << "slot " << k;
      ++seen[i];
      const uint32_t next = k + 1 < t.slots ? cuda::latticeSlotRow(t, k + 1) : cuda::kNoParticle;
      if ((k + 1) % c.tile[0] != 0 && next != cuda::kNoParticle) {
        EXPECT_EQ(next, i + 1) << "slot " << k;
      }
    }
    EXPECT_EQ(idle, t.slots - n);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(seen[i], 1) << "row " << i;
  }
  // by hand: 40 × 40 in 16 × 8 tiles, three tiles along x
  cuda::LatticeTiles t;
  const uint32_t dims[3] = {40, 40, 1}, tile[3] = {16, 8, 1};
  ASSERT_TRUE(cuda::makeLatticeTiles(dims, tile, &t));
  EXPECT_EQ(t.slots, 3u * 5u * 128u);
  EXPECT_EQ(cuda::latticeSlotRow(t, 16), 40u);                         // tile 0, row 1
  EXPECT_EQ(cuda::latticeSlotRow(t, 128), 16u);                        // tile 1
  EXPECT_EQ(cuda::latticeSlotRow(t, 2 * 128 + 7), 39u);                // tile 2, x 39
  EXPECT_EQ(cuda::latticeSlotRow(t, 2 * 128 + 8), cuda::kNoParticle);  // x 40
  EXPECT_EQ(cuda::latticeSlotRow(t, 3 * 128 + 17), 8u * 40u + 41u);    // tile row 1: y 9, x 1
}

TEST(LatticeTiles, RefusesTilesThatAreNotPowersOfTwo) {
  cuda::LatticeTiles t;
  const uint32_t dims[3] = {16, 16, 1};
  const uint32_t three[3] = {3, 8, 1}, zero[3] = {16, 0, 1};
  EXPECT_FALSE(cuda::makeLatticeTiles(dims, three, &t));
  EXPECT_EQ(t.slots, 0u);
  EXPECT_FALSE(cuda::makeLatticeTiles(dims, zero, &t));
  const uint32_t none[3] = {16, 0, 1}, tile[3] = {16, 8, 1};
  EXPECT_FALSE(cuda::makeLatticeTiles(none, tile, &t));
}

TEST(LatticeTiles, AcceptsZerosOrPowersOfTwo) {
  auto ok = [](int x, int y, int z) {
    const int tile[3] = {x, y, z};
    return cuda::acceptableLatticeTile(tile);
  };
  EXPECT_TRUE(ok(0, 0, 0));
  EXPECT_TRUE(ok(32, 8, 1));
  EXPECT_TRUE(ok(1, 1, 1));
  EXPECT_TRUE(ok(1024, 64, 1));
  EXPECT_FALSE(ok(0, 8, 1));  // automatic or not: all three
  EXPECT_FALSE(ok(16, 0, 1));
  EXPECT_FALSE(ok(12, 8, 1));  // not a power of two
  EXPECT_FALSE(ok(-16, 8, 1));
  EXPECT_FALSE(ok(2048, 1, 1));    // past 1024
  EXPECT_FALSE(ok(1024, 128, 1));  // past 65536 in all
}

// A warp's rows along x and the block's warps along y (flat); at most 8 along x and the rest
// split between y and z (deep)
TEST(LatticeTiles, AutomaticTileFollowsTheBlock) {
  using Tile = std::vector<uint32_t>;
  auto automatic = [](uint32_t w, uint32_t h, uint32_t d, uint32_t rows, uint32_t lanes) {
    const uint32_t dims[3] = {w, h, d};
    uint32_t tile[3];
    cuda::automaticTile(dims, rows, lanes, tile);
    return Tile{tile[0], tile[1], tile[2]};
  };
  EXPECT_EQ(automatic(1024, 1024, 1, 128, 2), (Tile{16, 8, 1}));
  EXPECT_EQ(automatic(1024, 1024, 1, 256, 1), (Tile{32, 8, 1}));
  EXPECT_EQ(automatic(162, 81, 81, 64, 4), (Tile{8, 2, 4}));
  EXPECT_EQ(automatic(162, 81, 81, 128, 2), (Tile{8, 4, 4}));
  EXPECT_EQ(automatic(162, 81, 81, 256, 1), (Tile{8, 4, 8}));
  EXPECT_EQ(automatic(162, 81, 81, 32, 8), (Tile{4, 2, 4}));
  EXPECT_EQ(automatic(5, 100, 1, 256, 1), (Tile{8, 32, 1}));    // no wider than the lattice
  EXPECT_EQ(automatic(1024, 1024, 1, 96, 2), (Tile{0, 0, 0}));  // not a power of two
}

CudaOptions launched(int lanes, bool tiles) {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.gather_lanes = lanes;
  o.gather_batch = 3;
  o.lattice_tiles = tiles;
  return o;
}

// Tiles change which thread gathers which row, not the rows: on lattices with edge tiles (cloth
// 24 in 16- and 32-wide tiles, volume 10 × 5 × 5), for one lane and several, a tiled run follows
// the CPU within the tolerance over 100 implicit steps (pinned particles included), stays within
// it of the untiled run, and two tiled runs give the same bytes
TEST(LatticeTiles, TiledRunsFollowTheCpuAndRepeat) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  struct Case {
    Scene scene;
    int lanes;
    int tile[3];  // zeros: automatic
  };
  // damped enough that rounding does not steer the trajectory (cuda_test_support.h): the default
  // cloth of 24 drifts from the CPU by 2–6e-4 of its extent over 100 steps, tiled or not
  const Scene cloth = makeCloth(24, convergingMaterial()), volume = makeVolume(10, {});
  const Case cases[] = {{cloth, 1, {0, 0, 0}},  {cloth, 2, {0, 0, 0}},  {cloth, 4, {0, 0, 0}},
                        {cloth, 2, {32, 4, 1}}, {volume, 1, {0, 0, 0}}, {volume, 4, {0, 0, 0}},
                        {volume, 4, {4, 4, 4}}, {volume, 32, {0, 0, 0}}};
  const SolverSettings settings = settingsFor(Integrator::kImplicit);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.scene.name + ", " + std::to_string(c.lanes) + " lanes, tile " +
                 std::to_string(c.tile[0]) + "x" + std::to_string(c.tile[1]) + "x" +
                 std::to_string(c.tile[2]));
    CpuBackend cpu;
    const Trajectory expected = runSteps(cpu, c.scene, settings, kSteps);
    ASSERT_TRUE(expected.ok) << expected.error;
    const double extent = extentOf(c.scene.state);
    CudaOptions o = launched(c.lanes, true);
    for (int a = 0; a < 3; ++a)
      o.lattice_tile[a] = c.tile[a];
    Trajectory runs[2];
    for (Trajectory& run : runs) {
      std::string why_not;
      auto gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      run = runSteps(*gpu, c.scene, settings, kSteps);
      ASSERT_TRUE(run.ok) << run.error;
      int tile[3];
      ASSERT_TRUE(cudaLatticeTiles(*gpu, tile));
      if (c.tile[0] > 0) {
        EXPECT_EQ(tile[0], c.tile[0]);
        EXPECT_EQ(tile[1], c.tile[1]);
        EXPECT_EQ(tile[2], c.tile[2]);
      }
    }
    EXPECT_TRUE(sameBytes(runs[0].state, runs[1].state));
    EXPECT_LE(relativeDifference(runs[0].state, expected.state, extent), kTolerance);
    EXPECT_GT(relativeDifference(runs[0].state, c.scene.state, extent), 1e-3);
    // and the untiled run of the same options agrees with the tiled one to the same tolerance
    std::string why_not;
    auto untiled = createCudaBackend(launched(c.lanes, false), &why_not);
    ASSERT_TRUE(untiled) << why_not;
    const Trajectory plain = runSteps(*untiled, c.scene, settings, kSteps);
    ASSERT_TRUE(plain.ok) << plain.error;
    EXPECT_FALSE(cudaLatticeTiles(*untiled));
    EXPECT_LE(relativeDifference(runs[0].state, plain.state, extent), kTolerance);
  }
}

// Item 24 changes when a row's word is loaded, not what is summed: with it and without, tiled
// and untiled, for one lane and several and both layouts, the same bytes after 20 implicit steps
// (on the spring runs: with item 37's offset blocks the words are not loaded ahead)
TEST(StencilAhead, GivesTheBitsOfTheRowsOwnLoad) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(24, {}), volume = makeVolume(10, {});
  const SolverSettings settings = settingsFor(Integrator::kImplicit);
  for (const Scene* scene : {&cloth, &volume}) {
    for (int lanes : {1, 2, 4, 32}) {
      for (bool tiles : {false, true}) {
        for (bool float4 : {true, false}) {
          if (!float4 && lanes != 2) continue;
          SCOPED_TRACE(scene->name + ", " + std::to_string(lanes) + " lanes" +
                       (tiles ? ", tiled" : "") + (float4 ? "" : ", float3"));
          State ends[2];
          for (bool ahead : {false, true}) {
            CudaOptions o = launched(lanes, tiles);
            o.offset_blocks = false;
            o.stencil_ahead = ahead;
            o.float4_layout = float4;
            std::string why_not;
            auto gpu = createCudaBackend(o, &why_not);
            ASSERT_TRUE(gpu) << why_not;
            const Trajectory run = runSteps(*gpu, *scene, settings, 20);
            ASSERT_TRUE(run.ok) << run.error;
            ASSERT_EQ(cudaStencilAhead(*gpu), ahead);
            ASSERT_EQ(cudaLatticeTiles(*gpu), tiles);
            ends[ahead] = run.state;
          }
          EXPECT_TRUE(sameBytes(ends[0], ends[1]));
        }
      }
    }
  }
}

// A box the backend cannot use is refused with a reason that names the option, not run untiled
TEST(LatticeTiles, RefusesABadTileWithAReason) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  CudaOptions o;
  o.lattice_tile[0] = 12;
  o.lattice_tile[1] = 8;
  o.lattice_tile[2] = 1;
  std::string why_not;
  EXPECT_EQ(createCudaBackend(o, &why_not), nullptr);
  EXPECT_NE(why_not.find("lattice_tile"), std::string::npos) << why_not;
  o.lattice_tile[0] = 16;
  EXPECT_NE(createCudaBackend(o, &why_not), nullptr) << why_not;
}

// On by default with the stencil rows; off with them off, on the grid path and where the offsets
// imply no lattice (a cloth with extra springs keeps stencil rows but loses its shear triple)
TEST(LatticeTiles, OnWithTheStencilRowsOfALattice) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto tiledFor = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) { return cudaLatticeTiles(b); });
  };
  const Scene cloth = makeCloth(16, {});
  EXPECT_EQ(tiledFor(launched(0, true), cloth), 1);
  EXPECT_EQ(tiledFor(launched(0, false), cloth), 0);
  CudaOptions no_stencil = launched(0, true);
  no_stencil.stencil_rows = false;
  EXPECT_EQ(tiledFor(no_stencil, cloth), 0);
  CudaOptions grid = launched(0, true);
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(tiledFor(grid, cloth), 0);
  // springs at offset 16 only (a cloth's vertical structural springs): stencil rows, no lattice
  Scene strips = cloth;
  strips.model.spring_ends.clear();
  strips.model.rest_length.clear();
  strips.model.stiffness.clear();
  strips.model.damping.clear();
  for (uint32_t i = 0; i + 16 < 256; ++i)
    addSpring(strips, i, i + 16, 10.0f, 0.1f);
  EXPECT_EQ(
      askLoaded(launched(0, true), strips, [](const Backend& b) { return cudaStencilRows(b); }), 1);
  EXPECT_EQ(tiledFor(launched(0, true), strips), 0);
  // the automatic path at a size the launched path takes, and its variants whose fewer registers
  // may give the kernel a block that is not a power of two (then the tile is the largest power of
  // two of rows within it)
  const Scene large = makeCloth(512, {});
  EXPECT_EQ(tiledFor(CudaOptions{}, large), 1);
  CudaOptions behind, float3, spring_runs;
  behind.stencil_ahead = false;
  float3.float4_layout = false;
  spring_runs.offset_blocks = false;
  for (const CudaOptions& o : {behind, float3, spring_runs})
    EXPECT_EQ(tiledFor(o, large), 1);
}

}  // namespace
}  // namespace hooke
