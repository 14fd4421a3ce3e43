// Kernels of the CUDA–GL interop writer: the interpolated positions and the per-vertex normals,
// written into a mapped GL buffer. Gathers only (no atomics), rounded per operation (no FMA) so
// the results equal the host formulas bit for bit. No GL here, and no physics.
#include "cuda/device_common.cuh"
#include "cuda/kernel_api.h"

namespace hooke::cuda {

namespace {

// three floats at byte offset `stride × i` of a strided block
__device__ __forceinline__ float* vertexAt(char* block, size_t stride, uint32_t i) {
  return reinterpret_cast<float*>(block + stride * size_t(i));
}
__device__ __forceinline__ glm::vec3 loadVertex(const char* __restrict__ block, size_t stride,
                                                uint32_t i) {
  const float* f = reinterpret_cast<const float*>(block + stride * size_t(i));
  return glm::vec3(__ldg(f), __ldg(f + 1), __ldg(f + 2));
}

// p_i = x_prev,i + α (x_cur,i − x_prev,i), each operation rounded to nearest (no FMA), the
// formula of Backend::writeVisual (the CUDA backend's visualKernel and the CPU backend). Vertex i
// is model particle i; its state is at slots[i] (the backend's locality order), or at i.
template <bool F4>
__global__ void __launch_bounds__(kLightThreads)
    interopPositionsKernel(uint32_t particles, const Vec<F4>* __restrict__ previous,
                           const Vec<F4>* __restrict__ current, const uint32_t* __restrict__ slots,
                           float alpha, char* __restrict__ positions, size_t stride) {
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    const uint32_t at = slots ? __ldg(slots + i) : i;
    const glm::vec3 a = loadConst(previous, at), b = loadConst(current, at);
    float* out = vertexAt(positions, stride, i);
    out[0] = __fadd_rn(a.x, __fmul_rn(alpha, __fsub_rn(b.x, a.x)));
    out[1] = __fadd_rn(a.y, __fmul_rn(alpha, __fsub_rn(b.y, a.y)));
    out[2] = __fadd_rn(a.z, __fmul_rn(alpha, __fsub_rn(b.z, a.z)));
  }
}

// u × w = (u_y w_z − w_y u_z,  u_z w_x − w_z u_x,  u_x w_y − w_x u_y), in glm::cross's operand
// order, each product and difference rounded on its own (no FMA)
__device__ __forceinline__ glm::vec3 crossRn(glm::vec3 u, glm::vec3 w) {
  return glm::vec3(__fsub_rn(__fmul_rn(u.y, w.z), __fmul_rn(w.y, u.z)),
                   __fsub_rn(__fmul_rn(u.z, w.x), __fmul_rn(w.z, u.x)),
                   __fsub_rn(__fmul_rn(u.x, w.y), __fmul_rn(w.x, u.y)));
}

// Per vertex i, over its triangles t = (a, b, c) in increasing triangle order (one entry per
// corner, so a triangle naming i twice counts twice, as in the host loop):
//   s_i = Σ_t (p_b − p_a) × (p_c − p_a)          (|·| = twice the area: area weighting)
//   n_i = s_i / |s_i|,  |s| = sqrt((s_x² + s_y²) + s_z²),   or (0, 1, 0) when |s_i| <= 1e-20
// exactly render/'s computeVertexNormals, which adds the same faces in the same order.
__global__ void __launch_bounds__(kHeavyThreads)
    interopNormalsKernel(uint32_t particles, const uint32_t* __restrict__ row_start,
                         const uint32_t* __restrict__ entries,
                         const uint32_t* __restrict__ triangles, const char* __restrict__ positions,
                         char* __restrict__ normals, size_t stride) {
  for (uint32_t i = firstIndex(); i < particles; i += gridStride()) {
    glm::vec3 s(0.0f);
    const uint32_t end = __ldg(row_start + i + 1);
    for (uint32_t e = __ldg(row_start + i); e < end; ++e) {
      const uint32_t* t = triangles + 3 * size_t(__ldg(entries + e));  // (a, b, c)
      const glm::vec3 a = loadVertex(positions, stride, __ldg(t));
      const glm::vec3 b = loadVertex(positions, stride, __ldg(t + 1));
      const glm::vec3 c = loadVertex(positions, stride, __ldg(t + 2));
      const glm::vec3 u(__fsub_rn(b.x, a.x), __fsub_rn(b.y, a.y), __fsub_rn(b.z, a.z));
      const glm::vec3 w(__fsub_rn(c.x, a.x), __fsub_rn(c.y, a.y), __fsub_rn(c.z, a.z));
      const glm::vec3 face = crossRn(u, w);
      s = glm::vec3(__fadd_rn(s.x, face.x), __fadd_rn(s.y, face.y), __fadd_rn(s.z, face.z));
    }
    const float length = __fsqrt_rn(
        __fadd_rn(__fadd_rn(__fmul_rn(s.x, s.x), __fmul_rn(s.y, s.y)), __fmul_rn(s.z, s.z)));
    float* out = vertexAt(normals, stride, i);
    const bool valid = length > 1e-20f;  // false for NaN too, like the host comparison
    out[0] = valid ? __fdiv_rn(s.x, length) : 0.0f;
    out[1] = valid ? __fdiv_rn(s.y, length) : 1.0f;
    out[2] = valid ? __fdiv_rn(s.z, length) : 0.0f;
  }
}

}  // namespace

// shapes: [0] positions from float4 vectors, [1] from packed float3, [2] normals
cudaError_t queryInteropKernels(bool prefer_l1, KernelShape out[3]) {
  cudaError_t e;
  if ((e = queryShape(interopPositionsKernel<true>, kLightThreads, prefer_l1, &out[0]))) return e;
  if ((e = queryShape(interopPositionsKernel<false>, kLightThreads, prefer_l1, &out[1]))) return e;
  return queryShape(interopNormalsKernel, kHeavyThreads, prefer_l1, &out[2]);
}

cudaError_t launchInteropPositions(Launch launch, cudaStream_t stream, bool float4_layout,
                                   uint32_t particles, const void* previous, const void* current,
                                   const uint32_t* slots, float alpha, char* positions,
                                   size_t stride) {
  if (float4_layout) {
    interopPositionsKernel<true><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const float4*>(previous), static_cast<const float4*>(current), slots,
        alpha, positions, stride);
  } else {
    interopPositionsKernel<false><<<launch.grid, launch.block, 0, stream>>>(
        particles, static_cast<const float3*>(previous), static_cast<const float3*>(current), slots,
        alpha, positions, stride);
  }
  return cudaGetLastError();
}

cudaError_t launchInteropNormals(Launch launch, cudaStream_t stream, uint32_t particles,
                                 const uint32_t* row_start, const uint32_t* entries,
                                 const uint32_t* triangles, const char* positions, char* normals,
                                 size_t stride) {
  interopNormalsKernel<<<launch.grid, launch.block, 0, stream>>>(
      particles, row_start, entries, triangles, positions, normals, stride);
  return cudaGetLastError();
}

}  // namespace hooke::cuda
