// The host-upload visual writer and the choice of writer per backend.
#include "app/gui/visual_writer.h"

namespace hooke {

Status HostUploadWriter::write(const Backend& backend, float alpha, Renderer* renderer) {
  const size_t count = renderer->vertexBuffer().vertex_count;
  positions_.resize(count);
  backend.writeVisual(alpha, positions_);
  renderer->setPositions(positions_);
  return Status::ok();
}

std::unique_ptr<VisualWriter> makeVisualWriter(const Backend& /*backend*/, Renderer* /*renderer*/) {
  return std::make_unique<HostUploadWriter>();
}

}  // namespace hooke
