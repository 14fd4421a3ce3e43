// CUDA–OpenGL interop: writes a CUDA backend's visual state (interpolated positions and vertex
// normals) straight into a registered GL vertex buffer, with no host copy. Plain C++: no GL, CUDA
// or ImGui header here, and no renderer type (the caller describes the buffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <glm/glm.hpp>

#include "sim/backend.h"
#include "sim/status.h"

namespace hooke {

// The GL buffer to fill: particle i's position (3 floats) at position_offset + stride i and its
// normal at normal_offset + stride i, in bytes. The fields mirror render/'s VertexBufferLayout, so
// the app copies one into the other field by field (cuda/ does not include render/ headers).
struct GlVertexTarget {
  uint32_t buffer = 0;  // the GL buffer name
  size_t vertex_count = 0;
  size_t position_offset = 0;
  size_t normal_offset = 0;
  size_t stride = 12;
  size_t size_bytes = 0;  // the whole buffer
};

// What one write cost, when asked for (it then synchronises the stream, so only for measuring).
// GPU times come from CUDA events on the backend's stream; host times are the wall-clock time
// spent inside the three API calls (map and unmap may wait there for the GL driver).
struct InteropTiming {
  double gpu_map_ms = 0.0;     // event before cudaGraphicsMapResources -> event after it
  double gpu_write_ms = 0.0;   // the position and normal kernels
  double gpu_unmap_ms = 0.0;   // event before cudaGraphicsUnmapResources -> event after it
  double gpu_total_ms = 0.0;   // first event -> last event
  double host_map_ms = 0.0;    // cudaGraphicsMapResources
  double host_write_ms = 0.0;  // the two kernel launches
  double host_unmap_ms = 0.0;  // cudaGraphicsUnmapResources
};

// Registers one GL vertex buffer once, then per frame maps it, writes
//   position_i = x_prev,i + α (x_cur,i − x_prev,i)          (as Backend::writeVisual, bit for bit)
//   normal_i   = normalize(Σ_{triangles t ∋ i} (b_t − a_t) × (c_t − a_t)), or (0, 1, 0) if zero
// (as render/'s computeVertexNormals, gathered per vertex in triangle order: no atomics) and
// unmaps it. All work runs on the backend's stream, so it follows the last step without a host
// wait, and GL commands issued after write() see the new contents. Every method that touches the
// buffer needs the GL context that owns it current on the calling thread.
class GlInteropWriter {
 public:
  GlInteropWriter();
  ~GlInteropWriter();  // detach()
  GlInteropWriter(const GlInteropWriter&) = delete;
  GlInteropWriter& operator=(const GlInteropWriter&) = delete;

  // Registers target.buffer with CUDA device `device` (write-discard: every write fills both
  // blocks completely) and uploads the vertex -> triangle table of `triangles` (indices into the
  // target's vertices; may be empty). Detaches first. Fails, with the reason, when the target is
  // malformed, the GL context is not on that CUDA device, or registration fails.
  Status attach(const GlVertexTarget& target, std::span<const glm::uvec3> triangles, int device);

  // One frame's visual state at alpha in [0, 1] from `backend`, which must be a CUDA backend on
  // the attached device holding target.vertex_count particles. With timing, also synchronises
  // and fills it. On any failure the buffer is left unmapped.
  Status write(const Backend& backend, float alpha, InteropTiming* timing = nullptr);

  // Unregisters the buffer and frees the device tables. Call before the GL buffer is deleted (a
  // new scene reallocates it: detach, then attach to the new one).
  void detach();

  bool attached() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hooke
