// Item 51: each block's outside halo slots placed by a colouring of the banks its u' loads take.
// The placement on the host (no device needed); the bits and where it runs on a device that
// launches cooperatively (skipped, never passed, where there is no device).
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

// Passes of the shared memory's banks that a warp's u' loads take in item 14's gather, from its
// first entry: as many as the most distinct slots among its loads in one bank (slot s's x at float
// 3 s: bank 3 s mod 32; one of the three loads of a u', which the other two repeat a bank over)
double slotPasses(const cuda::StagedHalo& h, const std::vector<uint32_t>& row_start,
                  uint32_t threads, uint32_t lanes) {
  return bankPasses(row_start, h.start.size() - 1, threads, lanes, 0, 32, [&](uint32_t e) {
    const uint32_t slot = h.entries[2 * size_t(e) + 1];
    return std::make_pair((3 * slot) % 32, slot);
  });
}

// Cloth 32 and volume 12 in blocks of 128 threads on one lane, each also with its rows by direction
// (item 47, as one lane runs by default), volume 16 in blocks of 512 on four (the shapes item 46's
// test takes): the own rows keep their slots, each block's outside slots
// are the same particles in other places, every entry's slot (and item 31's word, its spring's
// place unchanged) names its other end, the u' loads take at most 92 % of the passes of
// ascending slots (87 % and 90 %, 78 % and 79 %, 81 % here), and the fill's loads of the outside
// slots at most 115 % of their 32-byte sectors
TEST(HaloColours, PlacesTheOutsideSlotsAndCutsTheBanksPasses) {
  const StagedShape shapes[] = {{makeCloth(32, {}), 128, 1},
                                {makeCloth(32, {}), 128, 1, true},
                                {makeVolume(12, {}), 128, 1},
                                {makeVolume(12, {}), 128, 1, true},
                                {makeVolume(16, {}), 512, 4}};
  for (const StagedShape& shape : shapes) {
    SCOPED_TRACE(shape.scene.name + ", " + std::to_string(shape.lanes) + " lanes" +
                 (shape.by_direction ? ", by direction" : ""));
    const Staged staged = stagedOf(shape);
    const cuda::StagedHalo& ascending = staged.halo;
    const std::vector<uint32_t>& row_start = staged.adjacency.row_start;
    ASSERT_GT(ascending.entry_slots, 0u);
    ASSERT_FALSE(ascending.words.empty());
    cuda::StagedHalo coloured = ascending;
    ASSERT_TRUE(
        cuda::colourStagedHalo(shape.threads, shape.lanes, row_start, shape.lanes == 1, &coloured));
    ASSERT_EQ(coloured.start, ascending.start);
    ASSERT_EQ(coloured.halo.size(), ascending.halo.size());
    const size_t n = row_start.size() - 1, rows = shape.threads / shape.lanes;
    size_t moved = 0;
    for (size_t b = 0; b < staged.blocks; ++b) {
      const size_t first = std::min(n, b * rows), end = std::min(n, first + rows);
      const uint32_t begin = ascending.start[b], finish = ascending.start[b + 1];
      const size_t own = end - first;
      for (size_t k = begin; k < begin + own; ++k)
        ASSERT_EQ(coloured.halo[k], ascending.halo[k]) << "block " << b << " own slot " << k;
      const std::multiset<uint32_t> before(ascending.halo.begin() + begin + own,
                                           ascending.halo.begin() + finish);
      const std::multiset<uint32_t> after(coloured.halo.begin() + begin + own,
                                          coloured.halo.begin() + finish);
      EXPECT_EQ(before, after) << "block " << b;
      for (size_t k = begin + own; k < finish; ++k)
        moved += coloured.halo[k] != ascending.halo[k];
      for (uint32_t e = row_start[first]; e < row_start[end]; ++e) {
        const int32_t other = staged.adjacency.pairs[2 * size_t(e) + 1];
        const uint32_t o = static_cast<uint32_t>(other < 0 ? ~other : other);
        const uint32_t slot = coloured.entries[2 * size_t(e) + 1];
        ASSERT_LT(slot, finish - begin);
        ASSERT_EQ(coloured.halo[begin + slot], o) << "entry " << e;
        EXPECT_EQ(coloured.entries[2 * size_t(e)], ascending.entries[2 * size_t(e)]);
        EXPECT_EQ(coloured.words[e] >> 16, slot) << "entry " << e;
        EXPECT_EQ(coloured.words[e] & 0xffffu, ascending.words[e] & 0xffffu) << "entry " << e;
      }
    }
    EXPECT_GT(moved, 0u);
    const double before = slotPasses(ascending, row_start, shape.threads, shape.lanes);
    const double after = slotPasses(coloured, row_start, shape.threads, shape.lanes);
    EXPECT_LE(after, 0.92 * before) << "passes " << after << " against " << before;
    // and the fill's loads of the outside slots touch about as many 32-byte sectors as ascending
    const double sectors_before =
        cuda::stagedFillSectors(shape.threads, shape.lanes, row_start, shape.lanes == 1, ascending);
    const double sectors_after =
        cuda::stagedFillSectors(shape.threads, shape.lanes, row_start, shape.lanes == 1, coloured);
    EXPECT_LE(sectors_after, 1.15 * sectors_before)
        << "sectors " << sectors_after << " against " << sectors_before;
    std::printf("[ passes   ] %-10s %u lanes%s: u' loads %.0f passes coloured, %.0f ascending\n",
                shape.scene.name.c_str(), shape.lanes, shape.by_direction ? " by direction" : "",
                after, before);
  }
}

// The library's model (stagedWalkPasses, which bench/bank_model prints) against this file's and
// item 46's: the same u' and spring passes, with and without item 46's and item 51's placements;
// the words by column one pass each, in CSR order more
TEST(HaloColours, TheLibrarysBankModelAgrees) {
  for (const StagedShape& shape :
       {StagedShape{makeVolume(12, {}), 128, 1, true}, StagedShape{makeVolume(16, {}), 512, 4}}) {
    SCOPED_TRACE(shape.scene.name);
    const Staged staged = stagedOf(shape);
    const std::vector<uint32_t>& row_start = staged.adjacency.row_start;
    cuda::StagedHalo placed = staged.halo;
    ASSERT_TRUE(cuda::colourStagedSprings(shape.threads, shape.lanes, row_start,
                                          cuda::kGridHeldEntries, &placed));
    ASSERT_TRUE(
        cuda::colourStagedHalo(shape.threads, shape.lanes, row_start, shape.lanes == 1, &placed));
    const cuda::StagedHalo* forms[] = {&staged.halo, &placed};
    for (const cuda::StagedHalo* h : forms) {
      const cuda::StagedWalkPasses columns = cuda::stagedWalkPasses(
          shape.threads, shape.lanes, row_start, cuda::kGridHeldEntries, true, *h);
      const cuda::StagedWalkPasses rows = cuda::stagedWalkPasses(
          shape.threads, shape.lanes, row_start, cuda::kGridHeldEntries, false, *h);
      EXPECT_EQ(columns.slots, 3.0 * slotPasses(*h, row_start, shape.threads, shape.lanes));
      const double springs = bankPasses(row_start, staged.blocks, shape.threads, shape.lanes,
                                        cuda::kGridHeldEntries, 8, [&](uint32_t e) {
                                          const uint32_t place = h->words[e] & 0xffffu;
                                          return std::make_pair(place % 8, place);
                                        });
      EXPECT_EQ(columns.springs, springs);
      EXPECT_EQ(rows.springs, springs);
      EXPECT_LE(columns.slots_bound, columns.slots);
      EXPECT_GT(columns.words, 0.0);
      EXPECT_GT(rows.words, columns.words);
      const double groups = bankPasses(row_start, staged.blocks, shape.threads, shape.lanes, 0, 32,
                                       [](uint32_t) { return std::make_pair(0u, 0u); });
      EXPECT_EQ(columns.groups, groups);
    }
  }
}

// Several rounds of rows (no staged entries), lanes that do not divide the block, or halos built
// for another block: refused, nothing changed
TEST(HaloColours, RefusesWhatItCannotPlace) {
  Staged staged = stagedOf({makeCloth(32, {}), 128, 1});
  const std::vector<uint32_t>& row_start = staged.adjacency.row_start;
  cuda::StagedHalo rounds = staged.halo;
  rounds.entry_slots = 0;
  EXPECT_FALSE(cuda::colourStagedHalo(128, 1, row_start, true, &rounds));
  EXPECT_EQ(rounds.halo, staged.halo.halo);
  EXPECT_EQ(rounds.entries, staged.halo.entries);
  cuda::StagedHalo odd = staged.halo;
  EXPECT_FALSE(cuda::colourStagedHalo(128, 3, row_start, true, &odd));
  EXPECT_EQ(odd.halo, staged.halo.halo);
  EXPECT_EQ(odd.words, staged.halo.words);
  cuda::StagedHalo other = staged.halo;  // built for blocks of 128 rows, asked for 64
  EXPECT_FALSE(cuda::colourStagedHalo(64, 1, row_start, true, &other));
  EXPECT_EQ(other.halo, staged.halo.halo);
  // volume 8 (256 particles) in blocks of 128 rows, asked for 32: block 0's own rows come first
  // either way, but the halos are two, not eight
  Staged volume = stagedOf({makeVolume(8, {}), 128, 1});
  cuda::StagedHalo smaller = volume.halo;
  EXPECT_FALSE(cuda::colourStagedHalo(32, 1, volume.adjacency.row_start, true, &smaller));
  EXPECT_EQ(smaller.halo, volume.halo.halo);
  cuda::StagedHalo none;
  EXPECT_FALSE(cuda::colourStagedHalo(128, 1, {0}, true, &none));
}

// On and off, the same bytes and CG iterations: item 27's kernel on one lane (cloth 16 in blocks
// of 64, volume 10 in blocks of 64) and on four (volume 10 in blocks of 512), item 18's halos
// without item 27 (volume 10), launches of 3, warm-started, float3, Newton, BDF2, a cap of 2; and
// the automatic cloth 256 and volume 64. Each run checked to place the slots or not. (Every grid
// here has two blocks or more: one block has no outside slots.)
TEST(HaloColours, GiveTheSameBitsAndIterations) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth16 = makeCloth(16, {}), volume10 = makeVolume(10, {});
  const SolverSettings implicit = settingsFor(Integrator::kImplicit);
  SolverSettings capped = implicit;
  capped.max_iterations = 60;
  std::vector<SwitchCase> cases = {
      {"cloth16 blocks of 64", &cloth16, gridOptions(1, 64), implicit, 20},
      {"volume10 blocks of 64", &volume10, gridOptions(1, 64), implicit, 10},
      {"volume10 4 lanes", &volume10, gridOptions(4, 512), implicit, 10}};
  CudaOptions o = gridOptions(4, 512);
  o.stage_rows = false;
  o.stage_halo = 1;
  cases.push_back({"volume10 halos only", &volume10, o, implicit, 10});
  appendSolverVariants(&cases, cloth16, gridOptions(1, 64), volume10, gridOptions(1, 64));
  const Scene cloth256 = makeCloth(256, {}), volume64 = makeVolume(64, {});
  cases.push_back({"cloth256 auto", &cloth256, CudaOptions{}, capped, 3});
  cases.push_back({"volume64 auto", &volume64, CudaOptions{}, capped, 3});
  for (const SwitchCase& c : cases) {
    SCOPED_TRACE(c.name);
    Trajectory runs[2];
    for (bool colours : {false, true}) {
      CudaOptions with = c.options;
      with.halo_colours = colours;
      std::string why_not;
      std::unique_ptr<Backend> gpu = createCudaBackend(with, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      runs[colours] = runSteps(*gpu, *c.scene, c.settings, c.steps);
      ASSERT_TRUE(runs[colours].ok) << runs[colours].error;
      EXPECT_TRUE(cudaStagedHalo(*gpu, nullptr, nullptr));
      EXPECT_EQ(cudaHaloColours(*gpu), colours);
    }
    expectSameBitsAndIterations(runs[0], runs[1]);
    EXPECT_GT(relativeDifference(runs[1].state, c.scene->state, extentOf(c.scene->state)), 1e-4);
  }
}

// Short solves (a cap of 6) of volume 10 on one lane and on four, the slots placed from the first
// iteration of each launch (small enough for compute-sanitizer's racecheck)
TEST(HaloColours, ShortSolvesOnOneAndFourLanes) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  for (int lanes : {1, 4}) {
    SCOPED_TRACE(std::to_string(lanes) + " lanes");
    CudaOptions off = gridOptions(lanes, lanes == 1 ? 64 : 512);  // 4 blocks, 2 blocks
    CudaOptions on = off;
    on.halo_colours = true;
    expectShortSolvesKeepBits(off, on, makeVolume(10, {}), cudaHaloColours);
  }
}

}  // namespace
}  // namespace hooke
