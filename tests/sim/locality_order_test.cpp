// Tests of sim/locality_order: the Morton key, that the orders are permutations with springs
// sorted by their ends, and that the order puts a cloth's and a volume's springs inside blocks of
// consecutive particles far more often than the scenes' own row-major order does.
#include "sim/locality_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <vector>

#include "sim/scenes.h"

namespace hooke {
namespace {

TEST(MortonKey, InterleavesXYZFromTheLowestBit) {
  const glm::vec3 lo(0.0f);
  const float extent = float((1u << 21) - 1);  // one unit per cell
  EXPECT_EQ(mortonKey({0.0f, 0.0f, 0.0f}, lo, extent), 0u);
  EXPECT_EQ(mortonKey({1.0f, 0.0f, 0.0f}, lo, extent), 1u);
  EXPECT_EQ(mortonKey({0.0f, 1.0f, 0.0f}, lo, extent), 2u);
  EXPECT_EQ(mortonKey({0.0f, 0.0f, 1.0f}, lo, extent), 4u);
  EXPECT_EQ(mortonKey({2.0f, 0.0f, 0.0f}, lo, extent), 8u);
  EXPECT_EQ(mortonKey({3.0f, 3.0f, 0.0f}, lo, extent), 0b011011u);
  // the far corner sets all 63 bits; beyond it and NaN are clamped
  EXPECT_EQ(mortonKey({extent, extent, extent}, lo, extent), (uint64_t(1) << 63) - 1);
  EXPECT_EQ(mortonKey({2 * extent, -5.0f, 0.0f}, lo, extent),
            mortonKey({extent, 0.0f, 0.0f}, lo, extent));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(mortonKey({nan, 1.0f, 0.0f}, lo, extent), 2u);
}

void expectValidOrder(const Model& model, const LocalityOrder& order) {
  const size_t n = model.particleCount(), springs = model.springCount();
  ASSERT_EQ(order.particle.size(), n);
  ASSERT_EQ(order.slot.size(), n);
  ASSERT_EQ(order.spring.size(), springs);
  std::vector<int> seen(n, 0);
  for (size_t k = 0; k < n; ++k) {
    ASSERT_LT(order.particle[k], n);
    ++seen[order.particle[k]];
    EXPECT_EQ(order.slot[order.particle[k]], k);
  }
  for (int count : seen)
    ASSERT_EQ(count, 1);
  std::vector<int> seen_springs(springs, 0);
  uint64_t previous = 0;
  for (size_t k = 0; k < springs; ++k) {
    ASSERT_LT(order.spring[k], springs);
    ++seen_springs[order.spring[k]];
    const glm::uvec2 e = model.spring_ends[order.spring[k]];
    const uint64_t a = order.slot[e.x], b = order.slot[e.y];
    const uint64_t key = std::min(a, b) << 32 | std::max(a, b);
    EXPECT_LE(previous, key) << "spring " << k;
    previous = key;
  }
  for (int count : seen_springs)
    ASSERT_EQ(count, 1);
}

// springs whose two ends fall in the same aligned block of `block` consecutive slots
double sameBlockFraction(const Model& model, const std::vector<uint32_t>& slot, uint32_t block) {
  size_t inside = 0;
  for (const glm::uvec2& e : model.spring_ends)
    inside += slot[e.x] / block == slot[e.y] / block;
  return double(inside) / double(model.springCount());
}

struct Fractions {
  double morton, row_major;  // springs inside blocks of 64 slots: in the order, in model order
};

// The order of `scene` checked, and the share of its springs inside blocks of 64 particles (the
// rows a 256-thread block gathers with 4 lanes each) with it and without it.
Fractions blockFractions(const Scene& scene) {
  const LocalityOrder order = localityOrder(scene.model, scene.state.x);
  expectValidOrder(scene.model, order);
  EXPECT_FALSE(order.identity());
  std::vector<uint32_t> rows(scene.model.particleCount());
  std::iota(rows.begin(), rows.end(), 0u);
  const Fractions f{sameBlockFraction(scene.model, order.slot, 64),
                    sameBlockFraction(scene.model, rows, 64)};
  std::printf("[ locality ] %s, blocks of 64: %.3f of the springs inside (model order %.3f)\n",
              scene.name.c_str(), f.morton, f.row_major);
  return f;
}

TEST(LocalityOrder, KeepsAClothsSpringsInsideBlocksOfParticles) {
  const Fractions f = blockFractions(makeCloth(64, {}));
  // an 8 × 8 tile holds about 80 % of its particles' springs; a row of 64 only the row's
  EXPECT_GT(f.morton, 0.7);
  EXPECT_LT(f.row_major, 0.4);
}

TEST(LocalityOrder, KeepsAVolumesSpringsInsideBlocksOfParticles) {
  const Fractions f = blockFractions(makeVolume(16, {}));
  EXPECT_GT(f.morton, 1.5 * f.row_major);
}

TEST(LocalityOrder, IsDeterministicAndSurvivesDegeneratePositions) {
  const Scene cloth = makeCloth(8, {});
  // every particle at one point: all keys tie, so the order is the model's own
  std::vector<glm::vec3> same(cloth.model.particleCount(), glm::vec3(1.0f, 2.0f, 3.0f));
  const LocalityOrder flat = localityOrder(cloth.model, same);
  expectValidOrder(cloth.model, flat);
  for (size_t k = 0; k < flat.particle.size(); ++k)
    EXPECT_EQ(flat.particle[k], k);
  // NaN and infinite positions still give a valid order, the same one twice
  std::vector<glm::vec3> broken = cloth.state.x;
  broken[3] = glm::vec3(std::numeric_limits<float>::quiet_NaN());
  broken[5].y = std::numeric_limits<float>::infinity();
  const LocalityOrder a = localityOrder(cloth.model, broken),
                      b = localityOrder(cloth.model, broken);
  expectValidOrder(cloth.model, a);
  EXPECT_EQ(a.particle, b.particle);
  EXPECT_EQ(a.spring, b.spring);
}

TEST(SpringsByEnds, KeepsTheParticlesAndSortsTheSpringsByTheirEnds) {
  for (const Scene& scene : {makeCloth(8, {}), makeVolume(6, {})}) {
    SCOPED_TRACE(scene.name);
    const LocalityOrder order = springsByEnds(scene.model);
    expectValidOrder(scene.model, order);
    for (size_t k = 0; k < order.particle.size(); ++k)
      ASSERT_EQ(order.particle[k], k);
    EXPECT_FALSE(order.identity());  // the scenes list their springs by kind, then by position
    EXPECT_FALSE(order.particlesMove());
    EXPECT_TRUE(order.springsMove());
    // by (lower, higher) particle, ties by index: a plain sort of the keys gives the same order
    std::vector<uint32_t> expected(scene.model.springCount());
    std::iota(expected.begin(), expected.end(), 0u);
    auto key = [&](uint32_t s) {
      const glm::uvec2 e = scene.model.spring_ends[s];
      return std::make_tuple(std::min(e.x, e.y), std::max(e.x, e.y), s);
    };
    std::sort(expected.begin(), expected.end(),
              [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    EXPECT_EQ(order.spring, expected);
  }
}

}  // namespace
}  // namespace hooke
