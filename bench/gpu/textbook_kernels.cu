// Kernels of the textbook GPU baseline: assembles the implicit-Euler system as a scalar CSR matrix
// every step (one thread per block row, gathering its springs) and commits the step. Physics from
// sim/spring_force.h only; it must not share any code path with cuda/'s matrix-free solver.
#include <cuda_runtime.h>

#include "bench/gpu/textbook_kernels.h"
#include "sim/spring_force.h"

namespace hooke::bench {

namespace {

__device__ glm::vec3 loadPacked(const float* a, uint32_t i) {
  return glm::vec3(a[3 * i], a[3 * i + 1], a[3 * i + 2]);
}

// Block row i of A and b_i:
//   f_i   = m_i g − c_air v_i + Σ_{s ∋ i} ±f_s                  (+ at the spring's i end)
//   A_ii  = (m_i + h c_air) I + Σ S_s,   A_ij = −S_s (j free),   S = h D + h² K = a n nᵀ + b I
//   b_i   = h f_i − Σ_{i end} h² K_s (v_i − v_j) + Σ_{j end} h² K_s (v_i − v_j)
// pinned i: identity row, b_i = 0
__global__ void assembleKernel(TextbookDevice d, const float* __restrict__ x0,
                               const float* __restrict__ v0, float h) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= d.particles) return;
  const int base = d.row_offset[3 * i];
  const int width = d.row_offset[3 * i + 1] - base;  // 3 × block columns
  float* rows = d.values + base;
  for (int k = 0; k < 3 * width; ++k)
    rows[k] = 0.0f;
  const bool pinned = d.free_mask[i] == 0.0f;
  const uint32_t self = d.self_slot[i];
  auto entry = [&](int row, uint32_t slot, int col) -> float& {
    return rows[row * width + 3 * int(slot) + col];
  };
  if (pinned) {
    for (int a = 0; a < 3; ++a) {
      entry(a, self, a) = 1.0f;
      d.rhs[3 * i + a] = 0.0f;
      d.inv_diag[3 * i + a] = 1.0f;
    }
    return;
  }
  const float mass = d.mass[i];
  const glm::vec3 vi = loadPacked(v0, i);
  glm::vec3 f = mass * d.gravity - d.drag * vi;
  glm::vec3 kv_sum(0.0f);
  glm::mat3 diagonal(mass + h * d.drag);
  for (uint32_t e = d.incident_start[i]; e < d.incident_start[i + 1]; ++e) {
    const TextbookIncident inc = d.incidents[e];
    const uint2 ends = d.ends[inc.spring];
    const glm::vec3 xa = loadPacked(x0, ends.x), xb = loadPacked(x0, ends.y);
    const glm::vec3 va = loadPacked(v0, ends.x), vb = loadPacked(v0, ends.y);
    const float rest = d.rest[inc.spring], k = d.stiffness[inc.spring];
    const float c = d.damping[inc.spring];
    const SpringForce sf = springForce(xa, xb, va, vb, rest, k, c);
    const SpringJacobian J = springJacobian(sf.n, sf.length, rest, k, c);
    const SystemBlock S = systemBlock(J, h);
    const glm::vec3 kv = (h * h) * applyStiffness(J, va - vb);
    f += inc.is_j ? -sf.on_i : sf.on_i;
    kv_sum += inc.is_j ? kv : -kv;
    const glm::mat3 block = S.a * glm::outerProduct(S.n, S.n) + glm::mat3(S.b);
    diagonal += block;
    if (d.free_mask[inc.other] != 0.0f) {
      for (int col = 0; col < 3; ++col) {
        for (int row = 0; row < 3; ++row)
          entry(row, inc.slot, col) -= block[col][row];
      }
    }
  }
  const glm::vec3 b = h * f + kv_sum;
  for (int col = 0; col < 3; ++col) {
    for (int row = 0; row < 3; ++row)
      entry(row, self, col) += diagonal[col][row];
  }
  for (int a = 0; a < 3; ++a) {
    d.rhs[3 * i + a] = b[a];
    d.inv_diag[3 * i + a] = 1.0f / diagonal[a][a];
  }
}

__global__ void commitKernel(uint32_t particles, const float* __restrict__ x0,
                             const float* __restrict__ v0, const float* __restrict__ dv,
                             float* __restrict__ x1, float* __restrict__ v1, float h) {
  const uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= 3 * particles) return;
  const float v = v0[k] + dv[k];
  v1[k] = v;
  x1[k] = x0[k] + h * v;
}

}  // namespace

cudaError_t launchTextbookAssemble(cudaStream_t stream, const TextbookDevice& d, const float* x0,
                                   const float* v0, float h) {
  if (d.particles == 0) return cudaSuccess;
  const int block = 128;
  const int grid = int((d.particles + block - 1) / block);
  assembleKernel<<<grid, block, 0, stream>>>(d, x0, v0, h);
  return cudaGetLastError();
}

cudaError_t launchTextbookCommit(cudaStream_t stream, uint32_t particles, const float* x0,
                                 const float* v0, const float* dv, float* x1, float* v1, float h) {
  if (particles == 0) return cudaSuccess;
  const int block = 256;
  const int grid = int((3 * size_t(particles) + block - 1) / block);
  commitKernel<<<grid, block, 0, stream>>>(particles, x0, v0, dv, x1, v1, h);
  return cudaGetLastError();
}

}  // namespace hooke::bench
