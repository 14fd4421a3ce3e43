// Item 46: item 27's walk of item 31's words reads them from shared memory by thread column, and
// the block's springs are placed by a colouring against bank conflicts. The colouring on the host
// (no device needed); the walk's bits and where it runs on a device that launches cooperatively
// (skipped, never passed, where there is no device).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "cuda/staged_halo.h"
#include "cuda/staged_model.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// Passes of the shared memory's banks that a warp's 16-byte loads of the springs take in item 46's
// walk: each quarter-warp (8 threads) takes as many passes as the most distinct 16-byte places
// among its loads that share a column of the banks (place mod 8).
double springPasses(const cuda::StagedHalo& h, const std::vector<uint32_t>& row_start,
                    uint32_t threads, uint32_t lanes) {
  return bankPasses(row_start, h.spring_start.size() - 1, threads, lanes, cuda::kGridHeldEntries, 8,
                    [&](uint32_t e) {
                      const uint32_t place = h.words[e] & 0xffffu;
                      return std::make_pair(place % 8, place);
                    });
}

// Cloth 32 and volume 12 in the locality order in blocks of 128 threads on one lane, and volume 16
// in blocks of 512 on four (item 46's shapes at cloth 256 and volume 41): after the colouring
// every entry's word still gives its spring and slot, each block's springs are all there (holes
// hold its first spring again), and the walk's spring loads take at most 70 % of the passes of
// the first-named order (the model of docs/PERFORMANCE.md, "Items 45, 46 and 47")
TEST(EntryColumns, ColouringKeepsEveryEntryAndCutsTheBanksPasses) {
  const StagedShape shapes[] = {
      {makeCloth(32, {}), 128, 1}, {makeVolume(12, {}), 128, 1}, {makeVolume(16, {}), 512, 4}};
  for (const StagedShape& shape : shapes) {
    const Scene& scene = shape.scene;
    SCOPED_TRACE(scene.name + ", " + std::to_string(shape.lanes) + " lanes");
    const size_t n = scene.model.particleCount();
    const Staged staged = stagedOf(shape);
    const Adjacency& adjacency = staged.adjacency;
    const uint32_t rows = shape.threads / shape.lanes;
    const uint32_t blocks = staged.blocks;
    const cuda::StagedHalo& first_named = staged.halo;
    ASSERT_GT(first_named.spring_slots, 0u);
    cuda::StagedHalo coloured = first_named;
    ASSERT_TRUE(cuda::colourStagedSprings(shape.threads, shape.lanes, adjacency.row_start,
                                          cuda::kGridHeldEntries, &coloured));
    ASSERT_EQ(coloured.words.size(), first_named.words.size());
    ASSERT_EQ(coloured.spring_start.size(), first_named.spring_start.size());
    EXPECT_EQ(coloured.spring_start.back(), coloured.springs.size());
    uint32_t most = 0;
    for (size_t b = 0; b < blocks; ++b) {
      const uint32_t a0 = first_named.spring_start[b], a1 = first_named.spring_start[b + 1];
      const uint32_t c0 = coloured.spring_start[b], c1 = coloured.spring_start[b + 1];
      most = std::max(most, c1 - c0);
      std::set<uint32_t> before(first_named.springs.begin() + a0, first_named.springs.begin() + a1);
      std::set<uint32_t> after(coloured.springs.begin() + c0, coloured.springs.begin() + c1);
      EXPECT_EQ(before, after) << "block " << b;
      for (uint32_t e = adjacency.row_start[b * rows];
           e < adjacency.row_start[std::min<size_t>(n, (b + 1) * rows)]; ++e) {
        const uint32_t was = first_named.words[e], is = coloured.words[e];
        ASSERT_LT(is & 0xffffu, c1 - c0);
        EXPECT_EQ(coloured.springs[c0 + (is & 0xffffu)], first_named.springs[a0 + (was & 0xffffu)])
            << "entry " << e;
        EXPECT_EQ(is >> 16, was >> 16) << "entry " << e;
      }
    }
    EXPECT_EQ(coloured.spring_slots, most);
    EXPECT_LE(coloured.spring_slots, first_named.spring_slots * 11 / 10);  // holes: under 10 %
    const double before =
        springPasses(first_named, adjacency.row_start, shape.threads, shape.lanes);
    const double after = springPasses(coloured, adjacency.row_start, shape.threads, shape.lanes);
    EXPECT_LE(after, 0.7 * before) << "passes " << after << " against " << before;
    std::printf(
        "[ passes   ] %-10s %u lanes: spring loads %.0f passes coloured, %.0f first-named\n",
        scene.name.c_str(), shape.lanes, after, before);
  }
  cuda::StagedHalo none;  // no item 31 lists: nothing to colour
  EXPECT_FALSE(cuda::colourStagedSprings(128, 1, {0, 0}, cuda::kGridHeldEntries, &none));
  cuda::StagedHalo some;  // lanes that do not divide the block
  some.spring_start = {0, 1};
  some.springs = {0};
  some.words = {0};
  EXPECT_FALSE(cuda::colourStagedSprings(128, 3, {0, 1}, cuda::kGridHeldEntries, &some));
}

// With item 31's springs, item 46 on and off give the same bytes and CG iterations: on one lane
// (item 45) cloth 16 in blocks of 64, cloth 32 in blocks of 128, volume 10 in blocks of 256 (rows
// of 5 to 12 and 7 to 26 entries), launches of 3 iterations, float3; volume 10 on 2 and 4 lanes
// (each thread's share of its row by column; on 4, item 35's lane sums, and threads whose share of
// a corner's 7 entries is shorter than the two they hold), cloth 16 with item 45 off on one lane;
// and the automatic cloth 256, volume 41 and volume 64
TEST(EntryColumns, GiveTheRowsBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), cloth32 = makeCloth(32, {});
  const Scene volume10 = makeVolume(10, {});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  SolverSettings capped = implicit;
  capped.max_iterations = 60;
  auto springs = [](int lanes, int block) {
    CudaOptions o = gridOptions(lanes, block);
    o.stage_springs = 1;
    return o;
  };
  std::vector<SwitchCase> cases = {
      {"cloth16 blocks of 64", &cloth16, springs(1, 64), implicit, 20},
      {"cloth32 blocks of 128", &cloth32, springs(1, 128), implicit, 10},
      {"volume10 blocks of 256", &volume10, springs(1, 256), implicit, 10},
      {"volume10 2 lanes", &volume10, springs(2, 512), implicit, 10},
      {"volume10 4 lanes", &volume10, springs(4, 512), implicit, 10}};
  CudaOptions o = springs(1, 64);
  o.whole_cg_interval = 3;
  cases.push_back({"cloth16 launches of 3", &cloth16, o, implicit, 20});
  o = springs(1, 64);
  o.float4_layout = false;
  cases.push_back({"cloth16 float3", &cloth16, o, implicit, 20});
  o = springs(1, 64);
  o.rows_in_registers = false;
  cases.push_back({"cloth16 item 45 off", &cloth16, o, implicit, 20});
  const Scene cloth256 = makeCloth(256, {}), volume41 = makeVolume(41, {});
  const Scene volume64 = makeVolume(64, {});
  cases.push_back({"cloth256 auto", &cloth256, CudaOptions{}, capped, 3});
  cases.push_back({"volume41 auto", &volume41, CudaOptions{}, capped, 3});
  cases.push_back({"volume64 auto", &volume64, CudaOptions{}, capped, 3});
  for (const SwitchCase& c : cases) {
    SCOPED_TRACE(c.name);
    Trajectory runs[2];
    for (bool columns : {false, true}) {
      CudaOptions with = c.options;
      with.entry_columns = columns;
      std::string why_not;
      std::unique_ptr<Backend> gpu = createCudaBackend(with, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      runs[columns] = runSteps(*gpu, *c.scene, c.settings, c.steps);
      ASSERT_TRUE(runs[columns].ok) << runs[columns].error;
      EXPECT_TRUE(stagedRowsRun(*gpu));
      EXPECT_TRUE(cudaStagedSprings(*gpu));
      EXPECT_EQ(cudaEntryColumns(*gpu), columns);
    }
    expectSameBitsAndIterations(runs[0], runs[1]);
    EXPECT_GT(relativeDifference(runs[1].state, c.scene->state, extentOf(c.scene->state)), 1e-4);
  }
}

// Short solves (a cap of 6) of volume 10 on four lanes and on one: item 46's columns from the
// first iteration of each launch (small enough for compute-sanitizer's racecheck)
TEST(EntryColumns, ShortSolvesOnOneAndFourLanes) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  for (int lanes : {1, 4}) {
    SCOPED_TRACE(std::to_string(lanes) + " lanes");
    CudaOptions off = gridOptions(lanes, lanes == 1 ? 256 : 512);
    off.stage_springs = 1;
    off.entry_columns = false;
    CudaOptions on = off;
    on.entry_columns = true;
    expectShortSolvesKeepBits(off, on, makeVolume(10, {}), cudaEntryColumns);
  }
}

// Only with item 27 and item 31's springs where a thread walks at least kColumnsMinWalked entries
// past its two held ones: by default at cloth 256 (one lane, item 45: 10), volume 41 (4 lanes: 5)
// and volume 64 (24), also with item 45 off; not at cloth 128 (4 lanes: 1), volume 26 (8 lanes:
// 2) or cloth 32 (16 lanes: none); not with the 20-byte entries (stage_springs -1), item 30's
// paired walk off, item 27 off or on the launched path
TEST(EntryColumns, OnlyWithItems27And31) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth256 = makeCloth(256, {});
  EXPECT_EQ(askLoaded(CudaOptions{}, cloth256, cudaEntryColumns), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(41, {}), cudaEntryColumns), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(64, {}), cudaEntryColumns), 1);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(128, {}), cudaEntryColumns), 0);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeVolume(26, {}), cudaEntryColumns), 0);
  EXPECT_EQ(askLoaded(CudaOptions{}, makeCloth(32, {}), cudaEntryColumns), 0);
  CudaOptions o;
  o.rows_in_registers = false;
  EXPECT_EQ(askLoaded(o, cloth256, cudaEntryColumns), 1);
  o = CudaOptions{};
  o.stage_springs = -1;
  EXPECT_EQ(askLoaded(o, cloth256, cudaEntryColumns), 0);
  EXPECT_EQ(askLoaded(o, cloth256, cudaRowsInRegisters), 1);
  o = CudaOptions{};
  o.paired_walk = false;
  EXPECT_EQ(askLoaded(o, cloth256, cudaEntryColumns), 0);
  o = CudaOptions{};
  o.stage_rows = false;
  EXPECT_EQ(askLoaded(o, cloth256, cudaEntryColumns), 0);
  o = CudaOptions{};
  o.cg_path = CgPath::kLaunches;
  EXPECT_EQ(askLoaded(o, cloth256, cudaEntryColumns), 0);
  o = CudaOptions{};
  o.entry_columns = false;
  EXPECT_EQ(askLoaded(o, cloth256, cudaEntryColumns), 0);
}

}  // namespace
}  // namespace hooke
