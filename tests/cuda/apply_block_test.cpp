// CudaOptions::apply_block: q = A p's threads per block on the launched path, chosen by the
// occupancy query unless given. A given block is the one launched (and sizes item 23's automatic
// tile); it changes which block sums which rows' p·A p, not the rows, so runs follow the CPU and
// the queried block within the tolerance. Needs a device; skipped, never passed, where there is
// none.
#include <gtest/gtest.h>

#include <string>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

CudaOptions launchedWithBlock(int block) {
  CudaOptions o;
  o.cg_path = CgPath::kLaunches;
  o.gather_lanes = 1;
  o.gather_batch = 3;  // the stencil rows (batched loads) at these sizes
  o.apply_block = block;
  return o;
}

// 100 implicit steps of a damped cloth with pinned corners and a volume: blocks of 32, 128 and
// 256 threads launch as asked, take a tile of at most their rows, agree with the CPU and with
// the queried block, and give the same bytes twice
TEST(ApplyBlock, LaunchesTheGivenBlockAndFollowsTheCpu) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(24, convergingMaterial()), volume = makeVolume(10, {});
  const SolverSettings settings = settingsFor(Integrator::kImplicit);
  constexpr int kSteps = 100;
  for (const Scene* scene : {&cloth, &volume}) {
    CpuBackend cpu;
    const Trajectory expected = runSteps(cpu, *scene, settings, kSteps);
    ASSERT_TRUE(expected.ok) << expected.error;
    const double extent = extentOf(scene->state);
    std::string why_not;
    auto queried = createCudaBackend(launchedWithBlock(0), &why_not);
    ASSERT_TRUE(queried) << why_not;
    const Trajectory automatic = runSteps(*queried, *scene, settings, kSteps);
    ASSERT_TRUE(automatic.ok) << automatic.error;
    const int queried_block = cudaApplyBlock(*queried);
    EXPECT_GE(queried_block, 32);
    EXPECT_LE(queried_block, 256);
    EXPECT_EQ(queried_block % 32, 0);
    for (int block : {32, 128, 256}) {
      SCOPED_TRACE(scene->name + ", " + std::to_string(block) + " threads (queried " +
                   std::to_string(queried_block) + ")");
      Trajectory runs[2];
      for (Trajectory& run : runs) {
        auto gpu = createCudaBackend(launchedWithBlock(block), &why_not);
        ASSERT_TRUE(gpu) << why_not;
        run = runSteps(*gpu, *scene, settings, kSteps);
        ASSERT_TRUE(run.ok) << run.error;
        EXPECT_EQ(cudaApplyBlock(*gpu), block);
        EXPECT_TRUE(cudaStencilRows(*gpu));
        int tile[3];
        ASSERT_TRUE(cudaLatticeTiles(*gpu, tile));
        EXPECT_LE(tile[0] * tile[1] * tile[2], block);  // one lane: a row per thread
      }
      EXPECT_TRUE(sameBytes(runs[0].state, runs[1].state));
      EXPECT_LE(relativeDifference(runs[0].state, expected.state, extent), kTolerance);
      EXPECT_LE(relativeDifference(runs[0].state, automatic.state, extent), kTolerance);
      EXPECT_GT(relativeDifference(runs[0].state, scene->state, extent), 1e-3);
    }
  }
}

// Automatic: 256 threads on a flat lattice's tiles (a cloth's), elsewhere the occupancy query's
// block (a volume's, the untiled cloth's); a given block wins everywhere
TEST(ApplyBlock, FlatLatticesTakeBlocksOf256) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  EXPECT_EQ(askLoaded(launchedWithBlock(0), cloth, cudaApplyBlock), 256);
  CudaOptions untiled = launchedWithBlock(0);
  untiled.lattice_tiles = false;
  const int queried = askLoaded(untiled, cloth, cudaApplyBlock);
  EXPECT_GE(queried, 32);
  // (the untiled cloth and the tiled volume run the offset-block kernel untiled and tiled, whose
  // variants the query gives one block on the devices measured: 224 threads on the H200)
  EXPECT_EQ(askLoaded(launchedWithBlock(0), volume, cudaApplyBlock), queried);
  EXPECT_EQ(askLoaded(launchedWithBlock(96), cloth, cudaApplyBlock), 96);
  EXPECT_EQ(askLoaded(launchedWithBlock(96), volume, cudaApplyBlock), 96);
  // the tile follows the block: 256 rows on the cloth at one lane
  std::string why_not;
  auto gpu = createCudaBackend(launchedWithBlock(0), &why_not);
  ASSERT_TRUE(gpu) << why_not;
  ASSERT_TRUE(gpu->load(cloth.model, cloth.state));
  int tile[3];
  ASSERT_TRUE(cudaLatticeTiles(*gpu, tile));
  EXPECT_EQ(tile[0] * tile[1] * tile[2], 256);
}

// One backend loading a cloth, a volume and the cloth again takes each one's block: nothing of
// the last load's choice stays
TEST(ApplyBlock, EachLoadChoosesAgain) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  const int volume_block = askLoaded(launchedWithBlock(0), volume, cudaApplyBlock);
  std::string why_not;
  auto gpu = createCudaBackend(launchedWithBlock(0), &why_not);
  ASSERT_TRUE(gpu) << why_not;
  for (const Scene* scene : {&cloth, &volume, &cloth}) {
    SCOPED_TRACE(scene->name);
    ASSERT_TRUE(gpu->load(scene->model, scene->state));
    EXPECT_EQ(cudaApplyBlock(*gpu), scene == &cloth ? 256 : volume_block);
    int tile[3];
    ASSERT_TRUE(cudaLatticeTiles(*gpu, tile));
    EXPECT_LE(tile[0] * tile[1] * tile[2], cudaApplyBlock(*gpu));
  }
}

// Only the launched path has q = A p's block: the grid reports none
TEST(ApplyBlock, NoneOffTheLaunchedPath) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {});
  CudaOptions grid = launchedWithBlock(128);
  grid.cg_path = CgPath::kGrid;
  EXPECT_EQ(askLoaded(grid, cloth, cudaApplyBlock), 0);
  EXPECT_EQ(askLoaded(launchedWithBlock(128), cloth, cudaApplyBlock), 128);
}

// The launched q = A p's kernel resources as cudaApplyKernel reports them: the offset-block kernel
// (item 40's table) keeps its static shared memory within 512 bytes, so that under item 9's
// carve-out (8 KB a multiprocessor, 1 KB reserved per block) its shared memory does not hold it
// under 5 blocks a multiprocessor (PERFORMANCE.md, "Item 40 again"); the spring runs' kernel, which
// has no table, uses less. The grid path reports nothing. (Registers and blocks depend on the
// compiler and the device: only their ranges are checked.)
TEST(ApplyBlock, KernelResourcesKeepSharedMemoryWithin512Bytes) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene cloth = makeCloth(16, {}), volume = makeVolume(10, {});
  std::string why_not;
  for (const Scene* scene : {&cloth, &volume}) {
    SCOPED_TRACE(scene->name);
    CudaApplyKernel with_table, runs;
    for (bool offset_blocks : {true, false}) {
      CudaOptions o = launchedWithBlock(256);
      o.offset_blocks = offset_blocks;
      auto gpu = createCudaBackend(o, &why_not);
      ASSERT_TRUE(gpu) << why_not;
      ASSERT_TRUE(gpu->load(scene->model, scene->state));
      ASSERT_EQ(cudaOffsetBlocks(*gpu), offset_blocks);
      CudaApplyKernel& k = offset_blocks ? with_table : runs;
      ASSERT_TRUE(cudaApplyKernel(*gpu, &k));
      EXPECT_GT(k.registers, 0);
      EXPECT_LE(k.registers, 255);
      EXPECT_GE(k.blocks_per_sm, 1);
      EXPECT_LE(k.static_shared_bytes, 512);
    }
    // item 40's table: 35 (other end, place) pairs of 8 bytes where the runs' kernel keeps 16
    // offsets of 4 (the two may differ in their fused tails too)
    EXPECT_GT(with_table.static_shared_bytes, runs.static_shared_bytes);
  }
  CudaOptions grid = launchedWithBlock(0);
  grid.cg_path = CgPath::kGrid;
  auto gpu = createCudaBackend(grid, &why_not);
  ASSERT_TRUE(gpu) << why_not;
  ASSERT_TRUE(gpu->load(cloth.model, cloth.state));
  CudaApplyKernel none{1, 1, 1};
  EXPECT_FALSE(cudaApplyKernel(*gpu, &none));
  EXPECT_EQ(none.registers + none.static_shared_bytes + none.blocks_per_sm, 0);
}

// A block the kernels cannot take is refused with a reason that names the option
TEST(ApplyBlock, RefusesABadBlockWithAReason) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  for (int block : {-32, 16, 48, 288, 512}) {
    SCOPED_TRACE(block);
    std::string why_not;
    EXPECT_EQ(createCudaBackend(launchedWithBlock(block), &why_not), nullptr);
    EXPECT_NE(why_not.find("apply_block"), std::string::npos) << why_not;
  }
  std::string why_not;
  EXPECT_NE(createCudaBackend(launchedWithBlock(64), &why_not), nullptr) << why_not;
}

}  // namespace
}  // namespace hooke
