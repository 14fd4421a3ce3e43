// Kernels of the Newton iterations of newton and bdf2 (the CPU reference is
// CpuBackend::stepNewton in sim/cpu_backend.cpp): the sums an iterate branches on (the residual
// |g|, the slope g·δ, the convergence scale and the merit Φ, all in double as on the CPU), the line
// search's trial state and BDF2's base point. The linear system of an iterate comes from the
// implicit step's prepare kernels (step_kernels.cu) and is solved by the implicit step's CG paths.
// Forces gather over the CSR adjacency in spring order; no float atomics.
#include "cuda/device_common.cuh"
#include "cuda/kernel_api.h"
#include "sim/spring_force.h"

namespace hooke::cuda {

namespace {

// Per free particle i, with f = f(x, v) gathered as explicitKernel does (external input included):
//   g_i = m_i (v_i − v̂_i) − β f_i                    Σ |g_i|², Σ g_i·δ_i
//   Σ |m_i g_gravity + f_i|²                          (the convergence scale's sum)
//   Φ += ½ m_i |v_i − v̂_i|² − (m_i g_gravity + e_i)·x_i + ½ β c_air |v_i|²
// and per spring s (every spring):
//   Φ += ½ k (l − L)² + ½ β c ((v_j − v_i)·d / l)²    (the damper term only when l > 0)
// all in double, term by term as CpuBackend::merit and CpuBackend::residualNorm.
template <bool F4>
__global__ void __launch_bounds__(kHeavyThreads)
    newtonEvalKernel(DeviceModel m, const Vec<F4>* __restrict__ x, const Vec<F4>* __restrict__ v,
                     const Vec<F4>* __restrict__ base_v, const float3* __restrict__ external,
                     const Vec<F4>* __restrict__ delta, float beta, Reduction reduction) {
  double sums[kNewtonSums] = {0.0, 0.0, 0.0, 0.0};
  const double b = beta;
  const glm::dvec3 gravity(m.gravity);
  for (uint32_t i = firstIndex(); i < m.particles; i += gridStride()) {
    if (__ldg(m.free_mask + i) == 0.0f) continue;  // pinned: no residual, no merit term
    const glm::vec3 xi = loadConst(x, i), vi = loadConst(v, i), bvi = loadConst(base_v, i);
    const float mass = __ldg(m.mass + i);
    const glm::vec3 f = addSpringForces(m, x, v, i, xi, vi, bodyForce(m, mass, vi, external, i));

    const glm::dvec3 g = glm::dvec3(mass * (vi - bvi)) - b * glm::dvec3(f);
    sums[kGradientSquared] += glm::dot(g, g);
    if (delta) sums[kGradientDelta] += glm::dot(g, glm::dvec3(loadConst(delta, i)));
    const glm::dvec3 load = glm::dvec3(mass * m.gravity) + glm::dvec3(f);
    sums[kLoadSquared] += glm::dot(load, load);

    const double md = mass;
    const glm::dvec3 dv = glm::dvec3(vi) - glm::dvec3(bvi);
    glm::dvec3 weight = md * gravity;
    if (external) {
      const float* ei = reinterpret_cast<const float*>(external + i);
      weight += glm::dvec3(__ldg(ei), __ldg(ei + 1), __ldg(ei + 2));
    }
    const glm::dvec3 vd(vi);
    sums[kMerit] += 0.5 * md * glm::dot(dv, dv) - glm::dot(weight, glm::dvec3(xi)) +
                    0.5 * b * double(m.drag) * glm::dot(vd, vd);
  }
  for (uint32_t s = firstIndex(); s < m.springs; s += gridStride()) {
    const uint2 e = __ldg(m.ends + s);
    const glm::dvec3 d = glm::dvec3(loadConst(x, e.y)) - glm::dvec3(loadConst(x, e.x));
    const double l = glm::length(d);
    const double stretch = l - double(__ldg(m.rest + s));
    sums[kMerit] += 0.5 * double(__ldg(m.stiffness + s)) * stretch * stretch;
    if (l > kDegenerateLength) {
      const double rate =
          glm::dot(glm::dvec3(loadConst(v, e.y)) - glm::dvec3(loadConst(v, e.x)), d / l);
      sums[kMerit] += 0.5 * b * double(__ldg(m.damping + s)) * rate * rate;
    }
  }
  writePartials<kNewtonSums>(sums, reduction);
}

// out[k] = Σ_blocks partials of sum k, one block, fixed order
__global__ void __launch_bounds__(kFinishThreads)
    newtonFinishKernel(Reduction reduction, int count, double* out) {
  double sums[kNewtonSums];
  sumPartials<kNewtonSums>(reduction, count, sums);
  if (threadIdx.x == 0) {
    for (int k = 0; k < kNewtonSums; ++k)
      out[k] = sums[k];
  }
}

// v_t = v + α δ,  x_t = x̂ + β v_t   (δ is zero at pinned particles)
template <bool F4>
__global__ void __launch_bounds__(kLightThreads)
    newtonTrialKernel(uint32_t particles, const Vec<F4>* __restrict__ v,
                      const Vec<F4>* __restrict__ delta, const Vec<F4>* __restrict__ base_x,
                      Vec<F4>* __restrict__ x_out, Vec<F4>* __restrict__ v_out, float alpha,
                      float beta) {
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    const glm::vec3 vt = loadConst(v, i) + alpha * loadConst(delta, i);
    store(v_out, i, vt);
    store(x_out, i, loadConst(base_x, i) + beta * vt);
  }
}

// x̂ = (4 x_n − x_{n−1}) / 3,  v̂ = (4 v_n − v_{n−1}) / 3
template <bool F4>
__global__ void __launch_bounds__(kLightThreads)
    bdf2BaseKernel(uint32_t particles, const Vec<F4>* __restrict__ x_n,
                   const Vec<F4>* __restrict__ v_n, const Vec<F4>* __restrict__ x_before,
                   const Vec<F4>* __restrict__ v_before, Vec<F4>* __restrict__ base_x,
                   Vec<F4>* __restrict__ base_v) {
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    store(base_x, i, (4.0f * loadConst(x_n, i) - loadConst(x_before, i)) / 3.0f);
    store(base_v, i, (4.0f * loadConst(v_n, i) - loadConst(v_before, i)) / 3.0f);
  }
}

__global__ void faultKernel() {}

template <bool F4>
cudaError_t queryAll(bool prefer_l1, KernelShape out[kNewtonKernelCount]) {
  cudaError_t e;
  if ((e = queryShape(newtonEvalKernel<F4>, kHeavyThreads, prefer_l1, &out[kNewtonEvalKernel])))
    return e;
  if ((e = queryShape(newtonTrialKernel<F4>, kLightThreads, prefer_l1, &out[kNewtonTrialKernel])))
    return e;
  if ((e = queryShape(bdf2BaseKernel<F4>, kLightThreads, prefer_l1, &out[kBdf2BaseKernel])))
    return e;
  // a single block of at most kFinishThreads
  KernelShape finish;
  if ((e = queryShape(newtonFinishKernel, kFinishThreads, prefer_l1, &finish))) return e;
  out[kNewtonFinishKernel] = KernelShape{finish.block, 1};
  return cudaSuccess;
}

}  // namespace

cudaError_t queryNewtonKernels(bool float4_layout, bool prefer_l1,
                               KernelShape out[kNewtonKernelCount]) {
  return float4_layout ? queryAll<true>(prefer_l1, out) : queryAll<false>(prefer_l1, out);
}

cudaError_t launchNewtonEval(Launch launch, cudaStream_t stream, bool float4_layout,
                             const DeviceModel& model, const void* x, const void* v,
                             const void* base_v, const float3* external, const void* delta,
                             float beta, Reduction reduction) {
  if (float4_layout) {
    using V = Vec<true>;
    newtonEvalKernel<true><<<launch.grid, launch.block, 0, stream>>>(
        model, static_cast<const V*>(x), static_cast<const V*>(v), static_cast<const V*>(base_v),
        external, static_cast<const V*>(delta), beta, reduction);
  } else {
    using V = Vec<false>;
    newtonEvalKernel<false><<<launch.grid, launch.block, 0, stream>>>(
        model, static_cast<const V*>(x), static_cast<const V*>(v), static_cast<const V*>(base_v),
        external, static_cast<const V*>(delta), beta, reduction);
  }
  return cudaGetLastError();
}

cudaError_t launchNewtonFinish(int threads, cudaStream_t stream, Reduction reduction, int count,
                               double* out) {
  newtonFinishKernel<<<1, threads, 0, stream>>>(reduction, count, out);
  return cudaGetLastError();
}

cudaError_t launchNewtonTrial(Launch launch, cudaStream_t stream, bool float4_layout,
                              uint32_t particles, const void* v, const void* delta,
                              const void* base_x, void* x_out, void* v_out, float alpha,
                              float beta) {
  if (float4_layout) {
    using V = Vec<true>;
    newtonTrialKernel<true><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const V*>(v), static_cast<const V*>(delta),
        static_cast<const V*>(base_x), static_cast<V*>(x_out), static_cast<V*>(v_out), alpha, beta);
  } else {
    using V = Vec<false>;
    newtonTrialKernel<false><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const V*>(v), static_cast<const V*>(delta),
        static_cast<const V*>(base_x), static_cast<V*>(x_out), static_cast<V*>(v_out), alpha, beta);
  }
  return cudaGetLastError();
}

cudaError_t launchBdf2Base(Launch launch, cudaStream_t stream, bool float4_layout,
                           uint32_t particles, const void* x_n, const void* v_n,
                           const void* x_before, const void* v_before, void* base_x, void* base_v) {
  if (float4_layout) {
    using V = Vec<true>;
    bdf2BaseKernel<true><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const V*>(x_n), static_cast<const V*>(v_n),
        static_cast<const V*>(x_before), static_cast<const V*>(v_before), static_cast<V*>(base_x),
        static_cast<V*>(base_v));
  } else {
    using V = Vec<false>;
    bdf2BaseKernel<false><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const V*>(x_n), static_cast<const V*>(v_n),
        static_cast<const V*>(x_before), static_cast<const V*>(v_before), static_cast<V*>(base_x),
        static_cast<V*>(base_v));
  }
  return cudaGetLastError();
}

cudaError_t launchInvalidConfiguration(cudaStream_t stream) {
  // 2048 threads per block: more than any CUDA device allows (1024), so the launch is refused
  // before anything runs and the error is not sticky
  faultKernel<<<1, 2048, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace hooke::cuda
