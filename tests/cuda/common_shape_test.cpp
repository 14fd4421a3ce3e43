// The launch shape several variants of one kernel share (item 4): host logic, runs without a
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cuda/common_shape.h"

namespace hooke::cuda {
namespace {

// Residency of a kernel limited by registers and warps as on sm_86/sm_90: registers allocated per
// warp in units of 256, 65536 per multiprocessor, 64 warps, 32 blocks
int residentByRegisters(int registers_per_thread, int block) {
  const int per_warp = (registers_per_thread * 32 + 255) / 256 * 256;
  const int warps = (block + 31) / 32;
  const int by_registers = 65536 / (per_warp * warps);
  return std::min({by_registers, 64 / warps, 32});
}

// q = A p's batched variants on the H200: 55 registers (plain: best alone at 192 threads, 6 blocks,
// 1152 threads) and 57 (fused: best at 256, 4 blocks). At 192 the fused one holds 5 (960 threads),
// at 256 both hold 4 (1024): 256 × 4, not the 192 × 4 = 768 threads of the smaller block of one
// with the smaller residency of the other
TEST(CommonShape, KeepsTheMostThreadsOfTheLeastResidentVariant) {
  const int registers[] = {55, 57};
  auto resident = [&](int variant, int block) {
    return residentByRegisters(registers[variant], block);
  };
  ASSERT_EQ(resident(0, 192), 6);
  ASSERT_EQ(resident(1, 192), 5);
  ASSERT_EQ(resident(0, 256), 4);
  ASSERT_EQ(resident(1, 256), 4);
  const KernelShape shape = commonShape({192, 256}, 2, resident);
  EXPECT_EQ(shape.block, 256);
  EXPECT_EQ(shape.blocks_per_sm, 4);
  // the candidates' order does not matter
  const KernelShape reversed = commonShape({256, 192}, 2, resident);
  EXPECT_EQ(reversed.block, 256);
  EXPECT_EQ(reversed.blocks_per_sm, 4);
}

// One variant keeps its own shape; equal thread counts go to the larger block; a block no variant
// can hold still gets one block per multiprocessor (the launch then reports the error)
TEST(CommonShape, OneVariantTiesAndEmptyResidency) {
  auto thirty_two = [](int, int block) { return residentByRegisters(32, block); };
  const KernelShape one = commonShape({512}, 1, thirty_two);
  EXPECT_EQ(one.block, 512);
  EXPECT_EQ(one.blocks_per_sm, 4);
  const KernelShape tie = commonShape({256, 512, 128}, 1, thirty_two);  // 2048 threads each
  EXPECT_EQ(tie.block, 512);
  EXPECT_EQ(tie.blocks_per_sm, 4);
  const KernelShape none = commonShape({1024}, 2, [](int, int) { return 0; });
  EXPECT_EQ(none.block, 1024);
  EXPECT_EQ(none.blocks_per_sm, 1);
}

}  // namespace
}  // namespace hooke::cuda
