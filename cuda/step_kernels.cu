// Kernels of one step (DESIGN.md "Physics"): explicit and symplectic Euler fused into one gather,
// the implicit system's per-spring and per-particle preparation (which also starts CG), the
// commit and the visual lerp. Every per-particle sum gathers over the CSR adjacency in spring
// order; no float atomics. Physics comes only from sim/spring_force.h.
#include "cuda/device_common.cuh"
#include "cuda/kernel_api.h"
#include "sim/spring_force.h"

namespace hooke::cuda {

namespace {

// Explicit and symplectic Euler in one launch, reading (x0, v0) and writing (x1, v1):
//   f_i = m_i g − c_air v_i + e_i + Σ_{s ∋ i} ±f_s,  f_s = k (l − L) n + c ((v_j − v_i)·n) n
//   (+ at the spring's i end, − at its j end)
//   v1 = v0 + h M⁻¹ f;  explicit: x1 = x0 + h v0;  symplectic: x1 = x0 + h v1;  pinned: unchanged
template <bool F4>
__global__ void __launch_bounds__(kHeavyThreads)
    explicitKernel(DeviceModel m, const Vec<F4>* __restrict__ x0, const Vec<F4>* __restrict__ v0,
                   Vec<F4>* __restrict__ x1, Vec<F4>* __restrict__ v1,
                   const float3* __restrict__ external, float h, bool symplectic) {
  for (uint32_t i = firstIndex(); i < m.particles; i += gridStride()) {
    const glm::vec3 xi = loadConst(x0, i), vi = loadConst(v0, i);
    const float mass = __ldg(m.mass + i);
    const bool pinned = __ldg(m.free_mask + i) == 0.0f;
    const glm::vec3 f = addSpringForces(m, x0, v0, i, xi, vi, bodyForce(m, mass, vi, external, i));
    const glm::vec3 vn = vi + (h / mass) * f;
    const glm::vec3 xn = xi + h * (symplectic ? vn : vi);
    // branchless pinned mask (item 7): a select, so a pinned particle's unused mass never matters
    store(x1, i, pinned ? xi : xn);
    store(v1, i, pinned ? vi : vn);
  }
}

// Per spring s = (i, j), linearised at (x0, v0):
//   f_s = k (l − L) n + c ((v_j − v_i)·n) n
//   K = k [n nᵀ + max(0, 1 − L/l)(I − n nᵀ)],  D = c n nᵀ
//   S = h D + h² K = a n nᵀ + b I
//   kv = h² K (v_i − v_j)   (the h² ∂f/∂x v0 term of b, as seen from end i)
// kNewton (a Newton iterate of newton and bdf2, h = β, (x0, v0) = (x_k, v_k)): the offset
//   d = x̂ + β v_k − x_k replaces v0 and kv = β K (d_i − d_j)   (CpuBackend::stepNewton)
template <bool F4, bool kNewton>
__global__ void __launch_bounds__(kHeavyThreads)
    springPrepareKernel(DeviceModel m, const Vec<F4>* __restrict__ x0,
                        const Vec<F4>* __restrict__ v0, DeviceSystem sys, float h,
                        const Vec<F4>* __restrict__ base_x) {
  for (uint32_t s = firstIndex(); s < m.springs; s += gridStride()) {
    const uint2 e = __ldg(m.ends + s);
    const glm::vec3 xi = loadConst(x0, e.x), xj = loadConst(x0, e.y);
    const glm::vec3 vi = loadConst(v0, e.x), vj = loadConst(v0, e.y);
    const float rest = __ldg(m.rest + s), k = __ldg(m.stiffness + s), c = __ldg(m.damping + s);
    const SpringForce sf = springForce(xi, xj, vi, vj, rest, k, c);
    const SpringJacobian J = springJacobian(sf.n, sf.length, rest, k, c);
    const SystemBlock S = systemBlock(J, h);
    glm::vec3 kv;
    if constexpr (kNewton) {
      const glm::vec3 di = loadConst(base_x, e.x) + h * vi - xi;
      const glm::vec3 dj = loadConst(base_x, e.y) + h * vj - xj;
      kv = h * applyStiffness(J, di - dj);
    } else {
      kv = (h * h) * applyStiffness(J, vi - vj);
    }
    sys.spring_force[s] = make_float4(sf.on_i.x, sf.on_i.y, sf.on_i.z, 0.0f);
    sys.spring_kv[s] = make_float4(kv.x, kv.y, kv.z, 0.0f);
    const float4 packed = packBlock(S);
    sys.block[s] = packed;
    if (sys.offset_block != nullptr) sys.offset_block[__ldg(m.spring_slot + s)] = packed;  // 37
  }
}

// Per particle i, gathering its springs in spring order:
//   f0_i = m_i g − c_air v_i + e_i + Σ ±f_s,                     0 when pinned
//   b_i  = h f0_i − Σ_{i end} kv_s + Σ_{j end} kv_s,              0 when pinned
//   A_ii = (m_i + h c_air) I + Σ S_s,   P⁻¹_i = A_ii⁻¹,           0 when pinned
//   (point Jacobi instead: P⁻¹_i = diag(1 / (A_ii)_aa))
// and starts CG from Δv = 0: r = b − A·0 = b, or warm (item 12) from the previous step's Δv, left
// in place: r = b − A Δv with (A Δv)_i = (m_i + h c_air) Δv_i + Σ ±S_s (Δv_{i_s} − Δv_{j_s});
// then z = P⁻¹ r, p = z, and partial sums of b·b, r·z and r·r.
// kNewton (h = β, v0 = v_k): b_i −= m_i (v_k,i − v̂_i) at free particles, the Newton residual's
// inertial term (CpuBackend::stepNewton)
template <bool F4, bool kNewton>
__global__ void __launch_bounds__(kHeavyThreads)
    particlePrepareKernel(DeviceModel m, const Vec<F4>* __restrict__ v0,
                          const float3* __restrict__ external, DeviceSystem sys, CgVectors cg,
                          Reduction reduction, float h, bool block_jacobi, bool warm_start,
                          const Vec<F4>* __restrict__ base_v) {
  double sums[3] = {0.0, 0.0, 0.0};
  const Vec<F4>* guess = static_cast<const Vec<F4>*>(cg.dv);  // read only when warm_start
  for (uint32_t i = firstIndex(); i < m.particles; i += gridStride()) {
    const glm::vec3 vi = loadConst(v0, i);
    const float mass = __ldg(m.mass + i);
    const bool pinned = __ldg(m.free_mask + i) == 0.0f;
    const uint32_t begin = __ldg(m.row_start + i), end = __ldg(m.row_start + i + 1);

    glm::vec3 f = bodyForce(m, mass, vi, external, i);
    for (uint32_t e = begin; e < end; ++e) {
      const Incident s = incident(m.adjacency, e);
      const float4 fs = sys.spring_force[s.spring];
      const glm::vec3 on_i(fs.x, fs.y, fs.z);
      f = s.is_j ? f - on_i : f + on_i;
    }
    f = pinned ? glm::vec3(0.0f) : f;

    glm::vec3 b = h * f;
    const float diagonal = pinned ? 0.0f : mass + h * m.drag;
    glm::mat3 block(diagonal);
    const glm::vec3 dvi = warm_start ? load(guess, i) : glm::vec3(0.0f);
    glm::vec3 a_dv = diagonal * dvi;
    for (uint32_t e = begin; e < end; ++e) {
      const Incident s = incident(m.adjacency, e);
      const float4 kv4 = sys.spring_kv[s.spring];
      const glm::vec3 kv(kv4.x, kv4.y, kv4.z);
      b = s.is_j ? b + kv : b - kv;
      const float4 S = sys.block[s.spring];
      block += packedMatrix(S);
      if (warm_start) {
        const glm::vec3 dvo = load(guess, s.other);
        const glm::vec3 qs = applyPacked(S, s.is_j ? dvo - dvi : dvi - dvo);
        a_dv = s.is_j ? a_dv - qs : a_dv + qs;
      }
    }
    b = pinned ? glm::vec3(0.0f) : b;
    if constexpr (kNewton) {
      const glm::vec3 inertia = mass * (vi - loadConst(base_v, i));
      b = pinned ? b : b - inertia;
    }
    const glm::vec3 r = pinned ? glm::vec3(0.0f) : b - a_dv;
    glm::mat3 inverse(0.0f);
    if (block_jacobi) {
      inverse = glm::inverse(block);
    } else {
      for (int a = 0; a < 3; ++a)
        inverse[a][a] = 1.0f / block[a][a];
    }
    inverse = pinned ? glm::mat3(0.0f) : symmetricPart(inverse);
    sys.diag[i] = diagonal;
    storeSymmetric(sys.inv_diag, i, inverse);

    const glm::vec3 z = inverse * r;
    if (!warm_start) store(static_cast<Vec<F4>*>(cg.dv), i, glm::vec3(0.0f));
    store(static_cast<Vec<F4>*>(cg.r), i, r);
    store(static_cast<Vec<F4>*>(cg.z), i, z);
    store(static_cast<Vec<F4>*>(cg.p), i, z);
    sums[0] += dotDouble(b, b);
    sums[1] += dotDouble(r, z);
    sums[2] += dotDouble(r, r);
  }
  writePartials<3>(sums, reduction);
}

// v1 = v0 + Δv,  x1 = x0 + h v1   (Δv is zero at pinned particles)
template <bool F4>
__global__ void __launch_bounds__(kLightThreads)
    commitKernel(uint32_t particles, const Vec<F4>* __restrict__ x0, const Vec<F4>* __restrict__ v0,
                 const Vec<F4>* __restrict__ dv, Vec<F4>* __restrict__ x1, Vec<F4>* __restrict__ v1,
                 float h) {
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    const glm::vec3 v = loadConst(v0, i) + loadConst(dv, i);
    store(v1, i, v);
    store(x1, i, loadConst(x0, i) + h * v);
  }
}

// out_i = x_prev + α (x_cur − x_prev), rounded per operation (no FMA) like the host formula
template <bool F4>
__global__ void __launch_bounds__(kLightThreads)
    visualKernel(uint32_t particles, const Vec<F4>* __restrict__ previous,
                 const Vec<F4>* __restrict__ current, float3* __restrict__ out, float alpha) {
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    const glm::vec3 a = loadConst(previous, i), b = loadConst(current, i);
    out[i] = make_float3(__fadd_rn(a.x, __fmul_rn(alpha, __fsub_rn(b.x, a.x))),
                         __fadd_rn(a.y, __fmul_rn(alpha, __fsub_rn(b.y, a.y))),
                         __fadd_rn(a.z, __fmul_rn(alpha, __fsub_rn(b.z, a.z))));
  }
}

template <bool F4>
cudaError_t queryAll(bool prefer_l1, KernelShape out[kStepKernelCount]) {
  cudaError_t e;
  if ((e = queryShape(explicitKernel<F4>, kHeavyThreads, prefer_l1, &out[kExplicitKernel])))
    return e;
  if ((e = queryShape(springPrepareKernel<F4, false>, kHeavyThreads, prefer_l1,
                      &out[kSpringPrepareKernel])))
    return e;
  if ((e = queryShape(particlePrepareKernel<F4, false>, kHeavyThreads, prefer_l1,
                      &out[kParticlePrepareKernel])))
    return e;
  if ((e = queryShape(springPrepareKernel<F4, true>, kHeavyThreads, prefer_l1,
                      &out[kSpringPrepareNewtonKernel])))
    return e;
  if ((e = queryShape(particlePrepareKernel<F4, true>, kHeavyThreads, prefer_l1,
                      &out[kParticlePrepareNewtonKernel])))
    return e;
  if ((e = queryShape(commitKernel<F4>, kLightThreads, prefer_l1, &out[kCommitKernel]))) return e;
  return queryShape(visualKernel<F4>, kLightThreads, prefer_l1, &out[kVisualKernel]);
}

}  // namespace

cudaError_t queryStepKernels(bool float4_layout, bool prefer_l1,
                             KernelShape out[kStepKernelCount]) {
  return float4_layout ? queryAll<true>(prefer_l1, out) : queryAll<false>(prefer_l1, out);
}

cudaError_t launchExplicit(Launch launch, cudaStream_t stream, bool float4_layout,
                           const DeviceModel& model, const void* x0, const void* v0, void* x1,
                           void* v1, const float3* external, float h, bool symplectic) {
  if (float4_layout) {
    explicitKernel<true><<<launch.grid, launch.block, 0, stream>>>(
        model, static_cast<const float4*>(x0), static_cast<const float4*>(v0),
        static_cast<float4*>(x1), static_cast<float4*>(v1), external, h, symplectic);
  } else {
    explicitKernel<false><<<launch.grid, launch.block, 0, stream>>>(
        model, static_cast<const float3*>(x0), static_cast<const float3*>(v0),
        static_cast<float3*>(x1), static_cast<float3*>(v1), external, h, symplectic);
  }
  return cudaGetLastError();
}

namespace {

template <bool F4>
void springPrepare(Launch launch, cudaStream_t stream, const DeviceModel& model, const void* x0,
                   const void* v0, const DeviceSystem& system, float h, const void* base_x) {
  using V = Vec<F4>;
  const V* x = static_cast<const V*>(x0);
  const V* v = static_cast<const V*>(v0);
  if (base_x) {
    springPrepareKernel<F4, true><<<launch.grid, launch.block, 0, stream>>>(
        model, x, v, system, h, static_cast<const V*>(base_x));
  } else {
    springPrepareKernel<F4, false>
        <<<launch.grid, launch.block, 0, stream>>>(model, x, v, system, h, nullptr);
  }
}

template <bool F4>
void particlePrepare(Launch launch, cudaStream_t stream, const DeviceModel& model, const void* v0,
                     const float3* external, const DeviceSystem& system, const CgVectors& cg,
                     Reduction reduction, float h, bool block_jacobi, bool warm_start,
                     const void* base_v) {
  using V = Vec<F4>;
  const V* v = static_cast<const V*>(v0);
  if (base_v) {
    particlePrepareKernel<F4, true><<<launch.grid, launch.block, 0, stream>>>(
        model, v, external, system, cg, reduction, h, block_jacobi, warm_start,
        static_cast<const V*>(base_v));
  } else {
    particlePrepareKernel<F4, false><<<launch.grid, launch.block, 0, stream>>>(
        model, v, external, system, cg, reduction, h, block_jacobi, warm_start, nullptr);
  }
}

}  // namespace

cudaError_t launchSpringPrepare(Launch launch, cudaStream_t stream, bool float4_layout,
                                const DeviceModel& model, const void* x0, const void* v0,
                                const DeviceSystem& system, float h, const void* base_x) {
  if (float4_layout) {
    springPrepare<true>(launch, stream, model, x0, v0, system, h, base_x);
  } else {
    springPrepare<false>(launch, stream, model, x0, v0, system, h, base_x);
  }
  return cudaGetLastError();
}

cudaError_t launchParticlePrepare(Launch launch, cudaStream_t stream, bool float4_layout,
                                  const DeviceModel& model, const void* v0, const float3* external,
                                  const DeviceSystem& system, const CgVectors& cg,
                                  Reduction reduction, float h, bool block_jacobi, bool warm_start,
                                  const void* base_v) {
  if (float4_layout) {
    particlePrepare<true>(launch, stream, model, v0, external, system, cg, reduction, h,
                          block_jacobi, warm_start, base_v);
  } else {
    particlePrepare<false>(launch, stream, model, v0, external, system, cg, reduction, h,
                           block_jacobi, warm_start, base_v);
  }
  return cudaGetLastError();
}

cudaError_t launchCommit(Launch launch, cudaStream_t stream, bool float4_layout, uint32_t particles,
                         const void* x0, const void* v0, const void* dv, void* x1, void* v1,
                         float h) {
  if (float4_layout) {
    commitKernel<true><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const float4*>(x0), static_cast<const float4*>(v0),
        static_cast<const float4*>(dv), static_cast<float4*>(x1), static_cast<float4*>(v1), h);
  } else {
    commitKernel<false><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const float3*>(x0), static_cast<const float3*>(v0),
        static_cast<const float3*>(dv), static_cast<float3*>(x1), static_cast<float3*>(v1), h);
  }
  return cudaGetLastError();
}

cudaError_t launchVisual(Launch launch, cudaStream_t stream, bool float4_layout, uint32_t particles,
                         const void* previous, const void* current, float3* out, float alpha) {
  if (float4_layout) {
    visualKernel<true>
        <<<launch.grid, launch.block, 0, stream>>>(particles, static_cast<const float4*>(previous),
                                                   static_cast<const float4*>(current), out, alpha);
  } else {
    visualKernel<false>
        <<<launch.grid, launch.block, 0, stream>>>(particles, static_cast<const float3*>(previous),
                                                   static_cast<const float3*>(current), out, alpha);
  }
  return cudaGetLastError();
}

}  // namespace hooke::cuda
