// Reliability tests of cuda/: the fault-injection hook (CudaOptions::fault_at_step and
// HOOKE_CUDA_FAULT_AT_STEP) and the device-memory estimate load() checks before allocating. The
// fault tests skip (never pass) where there is no device; the estimate is host arithmetic and
// runs everywhere.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_test_support.h"
#include "sim/cpu_backend.h"
#include "sim/scenes.h"

namespace hooke {
namespace {

using namespace cuda_test;

// Sets an environment variable for one scope and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

bool namesTheInjectedError(const std::string& message) {
  // the runtime refuses the oversized block before anything runs; CUDA 13 on the H200 names it
  // cudaErrorInvalidValue, earlier runtimes cudaErrorInvalidConfiguration
  return (message.find("cudaErrorInvalidConfiguration") != std::string::npos ||
          message.find("cudaErrorInvalidValue") != std::string::npos) &&
         message.find("fault_at_step") != std::string::npos &&
         message.find('\n') == std::string::npos;
}

// ---- fault injection ----

TEST(CudaFaultInjection, TheChosenStepFailsWithItsCudaErrorAndLeavesTheStateAlone) {
  CudaOptions options;
  options.fault_at_step = 3;
  HOOKE_CUDA_OR_SKIP(gpu, options);
  HOOKE_CUDA_OR_SKIP(reference, CudaOptions{});
  const Scene scene = makeCloth(16, convergingMaterial());
  for (Integrator integrator : {Integrator::kImplicit, Integrator::kNewton, Integrator::kBdf2}) {
    SCOPED_TRACE(std::string(integratorName(integrator)));
    // every load() starts the count again
    ASSERT_TRUE(gpu->load(scene.model, scene.state).isOk());
    gpu->setSettings(settingsFor(integrator));
    ASSERT_TRUE(gpu->step(kH, {}, nullptr).isOk());
    ASSERT_TRUE(gpu->step(kH, {}, nullptr).isOk());
    State before;
    gpu->readState(&before);

    Status failed = gpu->step(kH, {}, nullptr);
    ASSERT_FALSE(failed.isOk());
    EXPECT_TRUE(namesTheInjectedError(failed.message())) << failed.message();
    State after;
    gpu->readState(&after);
    EXPECT_TRUE(sameBytes(before, after));

    // the error is not sticky: later steps run, and the failed one changed nothing, so 2 + 8
    // steps end where 10 steps without a fault do, bit for bit
    for (int k = 0; k < 8; ++k) {
      Status stepped = gpu->step(kH, {}, nullptr);
      ASSERT_TRUE(stepped.isOk()) << stepped.message();
    }
    gpu->readState(&after);
    Trajectory clean = runSteps(*reference, scene, settingsFor(integrator), 10);
    ASSERT_TRUE(clean.ok) << clean.error;
    EXPECT_TRUE(sameBytes(after, clean.state));
  }
  // destroyed after a fault without aborting (reaching the end of the test is the check)
  gpu.reset();
}

TEST(CudaFaultInjection, EnvironmentChoosesTheStepWhenTheOptionIsZero) {
  HOOKE_CUDA_OR_SKIP(probe, CudaOptions{});
  const Scene scene = makeCloth(8, {});
  auto stepsUntilFailure = [&](Backend& backend, int limit, std::string* message) {
    if (!backend.load(scene.model, scene.state)) return -1;
    backend.setSettings(settingsFor(Integrator::kImplicit));
    for (int k = 1; k <= limit; ++k) {
      Status stepped = backend.step(kH, {}, nullptr);
      if (!stepped) {
        *message = stepped.message();
        return k;
      }
    }
    return 0;  // no failure
  };
  std::string why_not, message;
  {
    ScopedEnv env("HOOKE_CUDA_FAULT_AT_STEP", "2");
    auto from_env = createCudaBackend(CudaOptions{}, &why_not);
    ASSERT_TRUE(from_env) << why_not;
    EXPECT_EQ(stepsUntilFailure(*from_env, 6, &message), 2);
    EXPECT_TRUE(namesTheInjectedError(message)) << message;
    // an explicit option wins over the environment
    CudaOptions options;
    options.fault_at_step = 4;
    auto from_option = createCudaBackend(options, &why_not);
    ASSERT_TRUE(from_option) << why_not;
    EXPECT_EQ(stepsUntilFailure(*from_option, 6, &message), 4);
  }
  {
    ScopedEnv env("HOOKE_CUDA_FAULT_AT_STEP", "0");
    auto off = createCudaBackend(CudaOptions{}, &why_not);
    ASSERT_TRUE(off) << why_not;
    EXPECT_EQ(stepsUntilFailure(*off, 6, &message), 0) << message;
  }
  for (const char* bad : {"soon", "-1", "3x"}) {
    ScopedEnv env("HOOKE_CUDA_FAULT_AT_STEP", bad);
    why_not.clear();
    EXPECT_EQ(createCudaBackend(CudaOptions{}, &why_not), nullptr) << bad;
    EXPECT_NE(why_not.find("HOOKE_CUDA_FAULT_AT_STEP"), std::string::npos) << why_not;
  }
  CudaOptions negative;
  negative.fault_at_step = -1;
  why_not.clear();
  EXPECT_EQ(createCudaBackend(negative, &why_not), nullptr);
  EXPECT_NE(why_not.find("fault_at_step"), std::string::npos) << why_not;
}

// ---- the device-memory estimate ----

TEST(CudaMemoryPlan, BytesPerParticleAndPerSpringFollowTheBufferList) {
  // per particle, float4 layout: CSR row start 4, A's diagonal 4, P⁻¹ (symmetric, six floats) 24,
  // free mask 4, mass 4, the locality order's slot 4; x and v, current and previous, 4 × 16; CG's
  // Δv, r, r', z, p, p', q, w' 8 × 16; bdf2's x̂, v̂ and the line search's spare pair 4 × 16;
  // external forces and the visual positions (packed float3) 2 × 12
  const size_t per_particle4 = 4 + 4 + 24 + 4 + 4 + 4 + 4 * 16 + 8 * 16 + 4 * 16 + 2 * 12;
  // packed float3: 12-byte vectors
  const size_t per_particle3 = 4 + 4 + 24 + 4 + 4 + 4 + 4 * 12 + 8 * 12 + 4 * 12 + 2 * 12;
  // per spring: two adjacency entries 2 × 8, the packed system block (√a n, b) 16, the ends 8,
  // L, k, c 3 × 4, the spring force 16 and h² K (v_i − v_j) 16
  const size_t per_spring = 2 * 8 + 16 + 8 + 3 * 4 + 16 + 16;
  // per reduction block: 2 × 3 CG sums (single reduction alternates two sets) and 4 Newton sums,
  // in double
  const size_t per_block = (6 + 4) * sizeof(double);
  // 36 buffers, each starting on a 256-byte boundary: < 256 bytes of padding each
  const double padding = 37 * 256;

  const size_t n = 1000000, s = 3000000, blocks = 1000;
  auto bytes = [](size_t particles, size_t springs, bool float4, size_t reduction_blocks) {
    return double(cudaModelBytes(particles, springs, float4, reduction_blocks));
  };
  EXPECT_NEAR(bytes(2 * n, s, true, blocks) - bytes(n, s, true, blocks), double(n * per_particle4),
              padding);
  EXPECT_NEAR(bytes(2 * n, s, false, blocks) - bytes(n, s, false, blocks),
              double(n * per_particle3), padding);
  EXPECT_NEAR(bytes(n, 2 * s, true, blocks) - bytes(n, s, true, blocks), double(s * per_spring),
              padding);
  EXPECT_NEAR(bytes(n, s, true, 2 * blocks) - bytes(n, s, true, blocks), double(blocks * per_block),
              padding);

  // a known model: cloth 16, 256 particles; the CG scalars and Newton totals add < 1 KiB
  const Scene cloth = makeCloth(16, {});
  const size_t particles = cloth.model.particleCount(), springs = cloth.model.springCount();
  const double total = bytes(particles, springs, true, 64);
  EXPECT_NEAR(total, double(particles * per_particle4 + springs * per_spring + 64 * per_block),
              padding + 1024);
  EXPECT_EQ(cudaModelBytes(particles, springs, true, 64) % 256, 0u);
  std::printf("[ memory   ] cloth 16 (%zu particles, %zu springs): %.0f bytes on the device\n",
              particles, springs, total);
}

}  // namespace
}  // namespace hooke
