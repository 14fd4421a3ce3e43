// The contract between textbook.cpp and textbook_kernels.cu: device views and launch wrappers of
// the textbook baseline's assembly and commit. CUDA runtime API types only; no device code here.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>
#include <glm/glm.hpp>

namespace hooke::bench {

// One incident spring of a particle, as the assembly kernel reads it.
struct TextbookIncident {
  uint32_t spring;
  uint32_t other;  // the particle at the spring's other end
  uint32_t is_j;   // 1 when this particle is the spring's j end
  uint32_t slot;   // position of `other` among this particle's sorted block columns
};

// The model and the assembled system on the device. The CSR matrix is 3n × 3n with scalar
// entries: block row i holds 3 rows of 3 × cols_i entries, block columns sorted, the three rows
// of one block row stored one after another from row_offset[3 i].
struct TextbookDevice {
  uint32_t particles = 0;
  const float* mass = nullptr;
  const float* free_mask = nullptr;             // 1 free, 0 pinned
  const uint32_t* incident_start = nullptr;     // (particles + 1)
  const TextbookIncident* incidents = nullptr;  // (2 springs)
  const uint32_t* self_slot = nullptr;          // (particles) the diagonal block's slot
  const int* row_offset = nullptr;              // (3 particles + 1) CSR row offsets
  const uint2* ends = nullptr;
  const float* rest = nullptr;
  const float* stiffness = nullptr;
  const float* damping = nullptr;
  glm::vec3 gravity{0.0f};
  float drag = 0.0f;
  float* values = nullptr;    // CSR values, rewritten every step
  float* rhs = nullptr;       // (3 particles) b
  float* inv_diag = nullptr;  // (3 particles) Jacobi: 1 / A_kk
};

// Writes A, b and the Jacobi preconditioner at (x0, v0), packed float3 vectors:
//   A = M − h ∂f/∂v − h² ∂f/∂x,  b = h (f0 + h ∂f/∂x v0), pinned rows and columns filtered.
cudaError_t launchTextbookAssemble(cudaStream_t stream, const TextbookDevice& d, const float* x0,
                                   const float* v0, float h);

// v1 = v0 + Δv, x1 = x0 + h v1 (packed float3; Δv is 0 at pinned particles)
cudaError_t launchTextbookCommit(cudaStream_t stream, uint32_t particles, const float* x0,
                                 const float* v0, const float* dv, float* x1, float* v1, float h);

}  // namespace hooke::bench
