// The host-upload visual writer, the interop one, and the choice between them per backend.
#include "app/visual_writer.h"

#if defined(HOOKE_HAVE_CUDA_GL)
#include "cuda/cuda_backend.h"
#include "cuda/gl_interop.h"
#endif

namespace hooke {

Status HostUploadWriter::write(const Backend& backend, float alpha, Renderer* renderer) {
  const size_t count = renderer->vertexBuffer().vertex_count;
  positions_.resize(count);
  backend.writeVisual(alpha, positions_);
  renderer->setPositions(positions_);
  return Status::ok();
}

#if defined(HOOKE_HAVE_CUDA_GL)
namespace {

// The CUDA path: positions and normals written on the backend's stream into the registered GL
// buffer; the renderer is told afterwards.
class InteropWriter final : public VisualWriter {
 public:
  std::string_view name() const override { return "CUDA-GL interop"; }

  Status attach(const Renderer& renderer, int device) {
    const VertexBufferLayout layout = renderer.vertexBuffer();
    const GlVertexTarget target{layout.buffer,        layout.vertex_count, layout.position_offset,
                                layout.normal_offset, layout.stride,       layout.size_bytes};
    return writer_.attach(target, renderer.triangles(), device);
  }

  Status write(const Backend& backend, float alpha, Renderer* renderer) override {
    if (Status s = writer_.write(backend, alpha); !s) return s;
    renderer->positionsWritten();
    return Status::ok();
  }

 private:
  GlInteropWriter writer_;
};

}  // namespace
#endif

std::unique_ptr<VisualWriter> makeVisualWriter(const Backend& backend, Renderer* renderer,
                                               std::string* why_host) {
  if (why_host) why_host->clear();
#if defined(HOOKE_HAVE_CUDA_GL)
  CudaVisualSource source;
  if (cudaVisualSource(backend, &source) &&
      source.particles == renderer->vertexBuffer().vertex_count) {
    auto interop = std::make_unique<InteropWriter>();
    Status attached = interop->attach(*renderer, source.device);
    if (attached) return interop;
    if (why_host) *why_host = attached.message();
  }
#else
  (void)backend;
  (void)renderer;
#endif
  return std::make_unique<HostUploadWriter>();
}

}  // namespace hooke
