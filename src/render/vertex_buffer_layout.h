// Where a scene's visual state sits in its GL vertex buffer, for whoever writes it (the CPU upload
// or a CUDA–GL interop writer). A plain description: no GL headers, no behaviour.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hooke {

// Two tightly packed blocks of float triples (12 bytes per particle, no padding): particle i's
// position at position_offset + 12 i, its normal at normal_offset + 12 i. Backend::writeVisual's
// output (a span of glm::vec3) maps straight onto the position block; a writer that fills the
// positions must fill the normals too (unit length, area-weighted over the scene's triangles, as
// computeVertexNormals does) and then tell the renderer (Renderer::positionsWritten).
struct VertexBufferLayout {
  uint32_t buffer = 0;         // the GL buffer name (what cudaGraphicsGLRegisterBuffer takes)
  size_t vertex_count = 0;     // particles
  size_t position_offset = 0;  // bytes; (vertex_count x 3) floats, x y z, metres
  size_t normal_offset = 0;    // bytes; (vertex_count x 3) floats
  size_t stride = 12;          // bytes from one particle to the next within a block
  size_t size_bytes = 0;       // the whole buffer
};

}  // namespace hooke
