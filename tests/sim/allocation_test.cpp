// Checks that a step allocates nothing on the heap once a backend is loaded (sim/ promises O(n)
// memory set up at load and none inside a step).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "sim/cpu_backend.h"
#include "sim/scenes.h"
#include "sim/simulation.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace hooke {
namespace {

TEST(Allocation, CounterSeesAllocations) {
  g_allocations = 0;
  g_counting = true;
  auto probe = std::make_unique<std::vector<int>>(16);
  g_counting = false;
  EXPECT_GE(g_allocations.load(), 2);
}

TEST(Allocation, StepsAllocateNothingAfterLoad) {
  for (Integrator integrator :
       {Integrator::kExplicit, Integrator::kSymplectic, Integrator::kImplicit}) {
    SCOPED_TRACE(std::string(integratorName(integrator)));
    Scene scene = makeCloth(12, {});
    auto backend = std::make_unique<CpuBackend>();
    ASSERT_TRUE(backend->load(scene.model, scene.state).isOk());
    SolverSettings settings;
    settings.integrator = integrator;
    backend->setSettings(settings);
    Simulation sim(std::move(backend), scene.model, scene.state, 1e-4, 1);
    std::vector<glm::vec3> external(scene.model.particleCount(), glm::vec3(0.0f, 0.1f, 0.0f));
    std::vector<glm::vec3> visual(scene.model.particleCount());
    sim.tick(external);  // the first solve may size the state copy

    g_allocations = 0;
    g_counting = true;
    for (int i = 0; i < 20; ++i) {
      sim.tick(external);
      sim.backend().writeVisual(sim.alpha(), visual);
    }
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0);
    EXPECT_EQ(sim.totals().solves, 11);
  }
}

}  // namespace
}  // namespace hooke
