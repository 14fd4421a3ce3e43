// Item 22's offset-stencil rows: the host builder (no device needed) and the launched q = A p that
// reads them (needs a device; skipped, never passed, where there is none).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "cuda/stencil_rows.h"
#include "sim/cpu_backend.h"
#include "sim/locality_order.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// Decodes position b of particle i's row as the kernel does: (spring, other end)
struct Decoded {
  uint32_t spring, other;
};

Decoded decode(const cuda::StencilRows& r, uint32_t i, uint32_t b) {
  const uint32_t count = static_cast<uint32_t>(r.offsets.size());
  auto rank = [&](uint32_t particle, uint32_t d) {
    return r.meta[2 * particle] + static_cast<uint32_t>(__builtin_popcount(
                                      (r.meta[2 * particle + 1] >> count) & ((1u << d) - 1u)));
  };
  if (b >= count) {
    const uint32_t d = b - count;
    return {rank(i, d), i + r.offsets[d]};
  }
  const uint32_t d = count - 1 - b, lower = i - r.offsets[d];
  return {rank(lower, d), lower};
}

// The k-th set position of each row names the row's k-th adjacency entry (its spring and other
// end), so a gather over the mask sums what a gather over the entries sums, in the same order;
// the cloth's springs use 6 offsets (1, 2, W − 1, W, W + 1, 2W), the volume's 13
TEST(StencilRows, EachRowPositionNamesItsAdjacencyEntry) {
  struct Case {
    Scene scene;
    std::vector<uint32_t> offsets;
  };
  const Case cases[] = {{springsSortedByEnds(makeCloth(16, {})), {1, 2, 15, 16, 17, 32}},
                        {springsSortedByEnds(makeVolume(8, {})), {}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.scene.name);
    const size_t n = c.scene.model.particleCount();
    const Adjacency a = adjacencyOf(n, c.scene.model.spring_ends);
    cuda::StencilRows r;
    ASSERT_TRUE(cuda::buildStencilRows(a.ends, n, &r));
    if (!c.offsets.empty()) {
      EXPECT_EQ(r.offsets, c.offsets);
    } else {
      EXPECT_EQ(r.offsets.size(), 13u);
    }
    ASSERT_EQ(r.meta.size(), 2 * n);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t mask = r.meta[2 * i + 1];
      ASSERT_EQ(uint32_t(__builtin_popcount(mask)), a.row_start[i + 1] - a.row_start[i])
          << "particle " << i;
      uint32_t e = a.row_start[i];
      for (uint32_t bits = mask; bits != 0; bits &= bits - 1, ++e) {
        const Decoded d = decode(r, i, uint32_t(__builtin_ctz(bits)));
        const int32_t y = a.pairs[2 * e + 1];
        ASSERT_EQ(d.other, uint32_t(y < 0 ? ~y : y)) << "particle " << i << ", entry " << e;
        ASSERT_EQ(d.spring, uint32_t(a.pairs[2 * e])) << "particle " << i << ", entry " << e;
      }
    }
  }
}

// Springs out of (lower, higher) order, two springs on one pair, a spring on one particle or to
// one out of range, or more than 16 offsets: refused, nothing built
TEST(StencilRows, RefusesWhatAMaskCannotHold) {
  cuda::StencilRows r;
  auto refused = [&](const std::vector<glm::uvec2>& ends, size_t n) {
    const bool built = cuda::buildStencilRows(ends, n, &r);
    return !built && r.meta.empty() && r.offsets.empty();
  };
  EXPECT_TRUE(cuda::buildStencilRows({{0, 1}, {2, 1}}, 3, &r));  // lower ends 0, 1
  EXPECT_EQ(r.offsets, (std::vector<uint32_t>{1}));
  EXPECT_TRUE(refused({{1, 2}, {0, 1}}, 3));  // lower ends out of order
  EXPECT_TRUE(refused({{0, 2}, {0, 1}}, 3));  // higher ends out of order
  EXPECT_TRUE(refused({{0, 1}, {1, 0}}, 2));  // the same pair twice
  EXPECT_TRUE(refused({{0, 0}}, 1));
  EXPECT_TRUE(refused({{0, 3}}, 3));
  EXPECT_TRUE(refused({{0, 1}}, 0));
  // the unsorted cloth (springs by kind, then by row)
  const Scene cloth = makeCloth(16, {});
  EXPECT_TRUE(refused(cloth.model.spring_ends, cloth.model.particleCount()));
  auto star = [](uint32_t arms) {  // particle 0 joined to every other: one offset per arm
    std::vector<glm::uvec2> ends;
    for (uint32_t k = 1; k <= arms; ++k)
      ends.push_back({0u, k});
    return ends;
  };
  constexpr uint32_t kMax = cuda::kStencilMaxOffsets;
  EXPECT_TRUE(cuda::buildStencilRows(star(kMax), kMax + 1, &r));
  EXPECT_EQ(r.meta[1], 0xffffu << kMax);  // particle 0: 16 own springs
  EXPECT_EQ(r.meta[2 * kMax + 1], 1u);    // particle 16: one from the largest offset
  EXPECT_TRUE(refused(star(kMax + 1), kMax + 2));
}

CudaOptions launched(int lanes, int batch, bool stencil) {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.gather_lanes = lanes;
  o.gather_batch = batch;
  o.stencil_rows = stencil;
  o.locality_order = false;  // without item 22: the model's own order, as item 22 keeps it
  o.lattice_tiles = false;   // item 23 regroups p·A p's block partials
  return o;
}

// Item 22 changes how the launched q = A p finds a row's springs, not what it sums: on a model
// whose springs are already in item 22's order, the stencil rows give the entries' bytes, for
// batches of 3 and 4, one lane and several (up to 32, most of them without a spring), and packed
// float3
TEST(StencilRows, LaunchedApplyGivesTheEntriesBits) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = springsSortedByEnds(makeCloth(16, {}));
  const Scene volume = springsSortedByEnds(makeVolume(10, {}));
  for (const Scene* scene : {&cloth, &volume}) {
    for (int lanes : {1, 2, 4, 32}) {
      for (int batch : {3, 4}) {
        for (bool float4 : {true, false}) {
          if (!float4 && lanes != 2) continue;
          SCOPED_TRACE(scene->name + ", " + std::to_string(lanes) + " lanes, batches of " +
                       std::to_string(batch) + (float4 ? "" : ", float3"));
          State ends[2];
          for (bool stencil : {false, true}) {
            CudaOptions o = launched(lanes, batch, stencil);
            o.float4_layout = float4;
            std::string why_not;
            auto gpu = createCudaBackend(o, &why_not);
            ASSERT_TRUE(gpu) << why_not;
            Trajectory run = runSteps(*gpu, *scene, settingsFor(Integrator::kImplicit), 20);
            ASSERT_TRUE(run.ok) << run.error;
            ASSERT_EQ(cudaStencilRows(*gpu), stencil);
            ASSERT_EQ(cudaGatherBatch(*gpu), batch);
            ends[stencil] = run.state;
          }
          EXPECT_TRUE(sameBytes(ends[0], ends[1]));
        }
      }
    }
  }
}

// On the scenes' own (unsorted) springs, where item 22 reorders them: within the tolerance of
// the CPU reference over 100 implicit steps, with pinned particles (the cloth's top corners)
TEST(StencilRows, ReorderedSpringsFollowTheCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  for (const Scene& scene : {makeCloth(16, {}), makeVolume(8, {})}) {
    SCOPED_TRACE(scene.name);
    const SolverSettings settings = settingsFor(Integrator::kImplicit);
    CpuBackend cpu;
    const Trajectory expected = runSteps(cpu, scene, settings, kSteps);
    ASSERT_TRUE(expected.ok) << expected.error;
    CudaOptions o;
    o.cg_path = CgPath::kLaunches;
    o.gather_batch = 3;
    std::string why_not;
    auto gpu = createCudaBackend(o, &why_not);
    ASSERT_TRUE(gpu) << why_not;
    const Trajectory actual = runSteps(*gpu, scene, settings, kSteps);
    ASSERT_TRUE(actual.ok) << actual.error;
    ASSERT_TRUE(cudaStencilRows(*gpu));
    EXPECT_LE(relativeDifference(actual.state, expected.state, extentOf(scene.state)), kTolerance);
    EXPECT_GT(relativeDifference(actual.state, scene.state, extentOf(scene.state)), 1e-3);
  }
}

// On by default where it applies: the launched path with batched loads on springs of at most 16
// index offsets; not with one entry at a time, not on the grid path, not on a cloth with extra
// springs of 20 more offsets (item 20's entries then, in the locality order)
TEST(StencilRows, OnWhereTheLaunchedPathBatchesALattice) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  auto stencilFor = [](const CudaOptions& o, const Scene& scene) {
    return askLoaded(o, scene, [](const Backend& b) { return cudaStencilRows(b); });
  };
  const Scene cloth = makeCloth(16, {});
  CudaOptions batched;
  batched.cg_path = CgPath::kLaunches;
  batched.gather_batch = 3;
  EXPECT_EQ(stencilFor(batched, cloth), 1);
  CudaOptions unbatched = batched;
  unbatched.gather_batch = 1;
  EXPECT_EQ(stencilFor(unbatched, cloth), 0);
  CudaOptions off = batched;
  off.stencil_rows = false;
  EXPECT_EQ(stencilFor(off, cloth), 0);
  CudaOptions grid = batched;
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(stencilFor(grid, cloth), 0);
  Scene irregular = cloth;
  for (uint32_t k = 0; k < 20; ++k)
    addSpring(irregular, k, k + 40 + 3 * k, 10.0f, 0.1f);
  EXPECT_EQ(stencilFor(batched, irregular), 0);
  EXPECT_EQ(askLoaded(batched, irregular, [](const Backend& b) { return cudaCompactEntries(b); }),
            1);
  // the automatic path and batch at a size the launched path takes
  EXPECT_EQ(stencilFor(CudaOptions{}, makeCloth(512, {})), 1);
}

}  // namespace
}  // namespace hooke
