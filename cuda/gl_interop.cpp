// The CUDA–GL interop writer's host side: target checks, the vertex -> triangle table, buffer
// registration and the per-frame map -> kernels -> unmap on the backend's stream. Every CUDA
// failure becomes a Status; nothing here exits, throws, or calls a GL function.
#include "cuda/gl_interop.h"

// cuda_gl_interop.h needs the GL types: glad's header first (it also stops <GL/gl.h> from being
// read a second time)
#include <glad/gl.h>

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_check.h"
#include "cuda/kernel_api.h"

namespace hooke {

namespace cuda {
// gl_interop_kernels.cu
cudaError_t queryInteropKernels(bool prefer_l1, KernelShape out[3]);
cudaError_t launchInteropPositions(Launch launch, cudaStream_t stream, bool float4_layout,
                                   uint32_t particles, const void* previous, const void* current,
                                   const uint32_t* slots, float alpha, char* positions,
                                   size_t stride);
cudaError_t launchInteropNormals(Launch launch, cudaStream_t stream, uint32_t particles,
                                 const uint32_t* row_start, const uint32_t* entries,
                                 const uint32_t* triangles, const char* positions, char* normals,
                                 size_t stride);
}  // namespace cuda

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kAlignment = 256;
constexpr size_t kVertexBytes = 3 * sizeof(float);
enum { kPositionsFloat4, kPositionsFloat3, kNormals };

size_t alignUp(size_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Bytes [offset, offset + stride (n − 1) + 12) hold a block of n strided vertices.
size_t blockEnd(size_t offset, size_t stride, size_t n) {
  return offset + stride * (n - 1) + kVertexBytes;
}

Status checkTarget(const GlVertexTarget& t, std::span<const glm::uvec3> triangles) {
  const size_t n = t.vertex_count;
  if (t.buffer == 0) return Status::error("interop: no GL buffer to register (name 0)");
  if (n == 0) return Status::error("interop: the GL buffer holds no vertices");
  if (n >= size_t(std::numeric_limits<int32_t>::max())) {
    return Status::error("interop: " + std::to_string(n) + " vertices are too many");
  }
  if (t.stride < kVertexBytes || t.stride % 4 != 0 || t.position_offset % 4 != 0 ||
      t.normal_offset % 4 != 0) {
    return Status::error(
        "interop: the buffer layout needs 4-byte aligned offsets and a stride of "
        "at least 12 bytes (stride " +
        std::to_string(t.stride) + ")");
  }
  // stride (n − 1) > size_bytes when stride > size_bytes / (n − 1): refused before it can overflow
  if ((n > 1 && t.stride > t.size_bytes / (n - 1)) ||
      std::max(blockEnd(t.position_offset, t.stride, n), blockEnd(t.normal_offset, t.stride, n)) >
          t.size_bytes) {
    return Status::error("interop: the position and normal blocks do not fit in the " +
                         std::to_string(t.size_bytes) + "-byte buffer");
  }
  // the blocks must not overlap: separate (one after the other) or interleaved (12 bytes apart
  // at least, within one stride)
  const size_t lo = std::min(t.position_offset, t.normal_offset);
  const size_t d = std::max(t.position_offset, t.normal_offset) - lo;
  const bool separate = d >= blockEnd(0, t.stride, n);
  const bool interleaved = d >= kVertexBytes && d + kVertexBytes <= t.stride;
  if (!separate && !interleaved) {
    return Status::error("interop: the position and normal blocks overlap");
  }
  for (size_t k = 0; k < triangles.size(); ++k) {
    const glm::uvec3 tri = triangles[k];
    if (tri.x >= n || tri.y >= n || tri.z >= n) {
      return Status::error("interop: triangle " + std::to_string(k) + " names a vertex beyond " +
                           std::to_string(n));
    }
  }
  return Status::ok();
}

// Fails when the driver says the current GL context runs on other CUDA devices only. When it
// cannot say (an error, or no device listed) registration is left to decide, with its own error.
Status checkGlDevice(int device) {
  unsigned int count = 0;
  int devices[16] = {};
  const cudaError_t error = cudaGLGetDevices(&count, devices, 16, cudaGLDeviceListAll);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return Status::ok();
  }
  if (count == 0) return Status::ok();  // nothing known: registration decides
  for (unsigned int k = 0; k < std::min(count, 16u); ++k) {
    if (devices[k] == device) return Status::ok();
  }
  return Status::error("interop: the current OpenGL context runs on CUDA device " +
                       std::to_string(devices[0]) + ", not on device " + std::to_string(device));
}

}  // namespace

struct GlInteropWriter::Impl {
  GlVertexTarget target;
  int device = -1;
  int multiprocessors = 1;
  cudaGraphicsResource_t resource = nullptr;
  void* tables = nullptr;               // one allocation: row_start, entries, triangles
  const uint32_t* row_start = nullptr;  // (n + 1) offsets into entries
  const uint32_t* entries = nullptr;    // (3 triangles) per vertex, its triangles in order
  const uint32_t* triangles = nullptr;  // (3 triangles) a, b, c
  cuda::KernelShape shapes[3];
  cudaEvent_t events[4] = {nullptr, nullptr, nullptr, nullptr};

  cuda::Launch launchFor(const cuda::KernelShape& shape) const {
    // grid-stride kernels: every multiprocessor filled once at most, no more blocks than needed
    const size_t wanted = (target.vertex_count + size_t(shape.block) - 1) / size_t(shape.block);
    const size_t resident = size_t(shape.blocks_per_sm) * size_t(multiprocessors);
    return cuda::Launch{static_cast<int>(std::max<size_t>(1, std::min(wanted, resident))),
                        shape.block};
  }

  Status attach(const GlVertexTarget& t, std::span<const glm::uvec3> tris, int dev);
  Status upload(std::span<const glm::uvec3> tris);
  Status write(const CudaVisualSource& source, float alpha, InteropTiming* timing);
  Status mappedWrite(const CudaVisualSource& source, cudaStream_t stream, float alpha,
                     InteropTiming* timing);
  void detach();
};

// The vertex -> triangle table (CSR): for each vertex, the triangles that name it, one entry per
// corner, in increasing triangle order (the order computeVertexNormals adds them in).
Status GlInteropWriter::Impl::upload(std::span<const glm::uvec3> tris) {
  const size_t n = target.vertex_count, corners = 3 * tris.size();
  if (corners >= size_t(std::numeric_limits<uint32_t>::max())) {
    return Status::error("interop: too many triangles (" + std::to_string(tris.size()) + ")");
  }
  std::vector<uint32_t> start(n + 1, 0);
  for (const glm::uvec3& t : tris) {
    ++start[t.x + 1];
    ++start[t.y + 1];
    ++start[t.z + 1];
  }
  for (size_t i = 0; i < n; ++i)
    start[i + 1] += start[i];
  std::vector<uint32_t> entry(std::max<size_t>(1, corners));
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t k = 0; k < tris.size(); ++k) {
      for (int c = 0; c < 3; ++c)
        entry[fill[tris[k][c]]++] = static_cast<uint32_t>(k);
    }
  }

  const size_t start_bytes = alignUp(start.size() * sizeof(uint32_t));
  const size_t entry_bytes = alignUp(entry.size() * sizeof(uint32_t));
  const size_t triangle_bytes = std::max<size_t>(1, tris.size()) * sizeof(glm::uvec3);
  HOOKE_CUDA_TRY(cudaMalloc(&tables, start_bytes + entry_bytes + triangle_bytes));
  char* base = static_cast<char*>(tables);
  row_start = reinterpret_cast<const uint32_t*>(base);
  entries = reinterpret_cast<const uint32_t*>(base + start_bytes);
  triangles = reinterpret_cast<const uint32_t*>(base + start_bytes + entry_bytes);
  static_assert(sizeof(glm::uvec3) == 3 * sizeof(uint32_t), "glm::uvec3 must be packed");
  HOOKE_CUDA_TRY(
      cudaMemcpy(base, start.data(), start.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
  HOOKE_CUDA_TRY(cudaMemcpy(base + start_bytes, entry.data(), entry.size() * sizeof(uint32_t),
                            cudaMemcpyHostToDevice));
  if (!tris.empty()) {
    HOOKE_CUDA_TRY(cudaMemcpy(base + start_bytes + entry_bytes, tris.data(),
                              tris.size() * sizeof(glm::uvec3), cudaMemcpyHostToDevice));
  }
  return Status::ok();
}

Status GlInteropWriter::Impl::attach(const GlVertexTarget& t, std::span<const glm::uvec3> tris,
                                     int dev) {
  HOOKE_TRY(checkTarget(t, tris));
  target = t;
  device = dev;
  HOOKE_CUDA_TRY(cudaSetDevice(dev));
  HOOKE_TRY(checkGlDevice(dev));
  HOOKE_CUDA_TRY(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, dev));
  const cudaError_t shaped = cuda::queryInteropKernels(true, shapes);
  if (shaped != cudaSuccess) {
    cudaGetLastError();
    if (shaped == cudaErrorNoKernelImageForDevice || shaped == cudaErrorInvalidDeviceFunction) {
      return Status::error("interop: this build has no CUDA kernels for device " +
                           std::to_string(dev) + "; rebuild with its CMAKE_CUDA_ARCHITECTURES");
    }
    return cuda::cudaStatus(shaped, "cuda::queryInteropKernels", __FILE__, __LINE__);
  }
  HOOKE_TRY(upload(tris));
  for (cudaEvent_t& event : events)
    HOOKE_CUDA_TRY(cudaEventCreate(&event));
  // registered once; write-discard: CUDA never reads the old contents, every write replaces both
  // blocks whole
  HOOKE_CUDA_TRY(
      cudaGraphicsGLRegisterBuffer(&resource, t.buffer, cudaGraphicsRegisterFlagsWriteDiscard));
  return Status::ok();
}

// Between map and unmap: the mapped pointer, then the two kernels.
Status GlInteropWriter::Impl::mappedWrite(const CudaVisualSource& source, cudaStream_t stream,
                                          float alpha, InteropTiming* timing) {
  void* mapped = nullptr;
  size_t mapped_bytes = 0;
  HOOKE_CUDA_TRY(cudaGraphicsResourceGetMappedPointer(&mapped, &mapped_bytes, resource));
  if (mapped_bytes < target.size_bytes) {
    return Status::error("interop: the mapped GL buffer has " + std::to_string(mapped_bytes) +
                         " bytes, the layout says " + std::to_string(target.size_bytes));
  }
  if (timing) HOOKE_CUDA_TRY(cudaEventRecord(events[1], stream));
  const Clock::time_point launched = Clock::now();
  char* base = static_cast<char*>(mapped);
  const uint32_t n = static_cast<uint32_t>(target.vertex_count);
  const int position_shape = source.float4_layout ? kPositionsFloat4 : kPositionsFloat3;
  HOOKE_CUDA_TRY(cuda::launchInteropPositions(
      launchFor(shapes[position_shape]), stream, source.float4_layout, n, source.previous,
      source.current, source.slots, alpha, base + target.position_offset, target.stride));
  // the normals read the positions just written: same stream, so after the kernel above
  HOOKE_CUDA_TRY(cuda::launchInteropNormals(launchFor(shapes[kNormals]), stream, n, row_start,
                                            entries, triangles, base + target.position_offset,
                                            base + target.normal_offset, target.stride));
  if (timing) {
    timing->host_write_ms = msSince(launched);
    HOOKE_CUDA_TRY(cudaEventRecord(events[2], stream));
  }
  return Status::ok();
}

Status GlInteropWriter::Impl::write(const CudaVisualSource& source, float alpha,
                                    InteropTiming* timing) {
  cudaStream_t stream = static_cast<cudaStream_t>(source.stream);
  if (timing) {
    *timing = InteropTiming{};
    HOOKE_CUDA_TRY(cudaEventRecord(events[0], stream));
  }
  // map: GL commands issued before it that use the buffer complete before the kernels run
  Clock::time_point clock = Clock::now();
  HOOKE_CUDA_TRY(cudaGraphicsMapResources(1, &resource, stream));
  const double map_call_ms = msSince(clock);
  if (timing) timing->host_map_ms = map_call_ms;
  const Status written = mappedWrite(source, stream, alpha, timing);
  // unmap whatever happened above: GL commands issued after it see the kernels' writes
  clock = Clock::now();
  const cudaError_t unmapped = cudaGraphicsUnmapResources(1, &resource, stream);
  if (timing) timing->host_unmap_ms = msSince(clock);
  HOOKE_TRY(written);
  if (unmapped != cudaSuccess) {
    return cuda::cudaStatus(unmapped, "cudaGraphicsUnmapResources", __FILE__, __LINE__);
  }
  if (timing) {
    HOOKE_CUDA_TRY(cudaEventRecord(events[3], stream));
    HOOKE_CUDA_TRY(cudaEventSynchronize(events[3]));
    float ms = 0.0f;
    HOOKE_CUDA_TRY(cudaEventElapsedTime(&ms, events[0], events[1]));
    timing->gpu_map_ms = ms;
    HOOKE_CUDA_TRY(cudaEventElapsedTime(&ms, events[1], events[2]));
    timing->gpu_write_ms = ms;
    HOOKE_CUDA_TRY(cudaEventElapsedTime(&ms, events[2], events[3]));
    timing->gpu_unmap_ms = ms;
    HOOKE_CUDA_TRY(cudaEventElapsedTime(&ms, events[0], events[3]));
    timing->gpu_total_ms = ms;
  }
  return Status::ok();
}

void GlInteropWriter::Impl::detach() {
  if (device >= 0) cudaSetDevice(device);
  if (resource) cudaGraphicsUnregisterResource(resource);
  if (tables) cudaFree(tables);
  for (cudaEvent_t& event : events) {
    if (event) cudaEventDestroy(event);
    event = nullptr;
  }
  cudaGetLastError();  // nothing from tearing down may linger into later calls
  resource = nullptr;
  tables = nullptr;
  row_start = entries = triangles = nullptr;
  target = GlVertexTarget{};
  device = -1;
}

GlInteropWriter::GlInteropWriter() : impl_(std::make_unique<Impl>()) {}

GlInteropWriter::~GlInteropWriter() {
  detach();
}

Status GlInteropWriter::attach(const GlVertexTarget& target, std::span<const glm::uvec3> triangles,
                               int device) {
  detach();
  Status attached = impl_->attach(target, triangles, device);
  if (!attached) impl_->detach();
  return attached;
}

Status GlInteropWriter::write(const Backend& backend, float alpha, InteropTiming* timing) {
  Impl& w = *impl_;
  if (!w.resource) return Status::error("interop: write before attach");
  CudaVisualSource source;
  if (!cudaVisualSource(backend, &source)) {
    return Status::error("interop: the " + std::string(backend.name()) +
                         " backend has no device positions (the writer needs the CUDA backend "
                         "with a model loaded)");
  }
  if (source.device != w.device) {
    return Status::error("interop: the backend runs on CUDA device " +
                         std::to_string(source.device) + ", the buffer is registered on device " +
                         std::to_string(w.device));
  }
  if (source.particles != w.target.vertex_count) {
    return Status::error("interop: the backend holds " + std::to_string(source.particles) +
                         " particles, the GL buffer " + std::to_string(w.target.vertex_count) +
                         " vertices");
  }
  HOOKE_CUDA_TRY(cudaSetDevice(w.device));
  return w.write(source, alpha, timing);
}

void GlInteropWriter::detach() {
  impl_->detach();
}

bool GlInteropWriter::attached() const {
  return impl_->resource != nullptr;
}

}  // namespace hooke
