// Back-buffer read-back for window screenshots: glReadPixels on the default framebuffer, rows
// flipped to top-first. Restores the read and pack state it changes.
#include "render/screen_capture.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include <glad/gl.h>

#include "render/gl_debug.h"

namespace hooke {

Status readBackBuffer(int width, int height, Image* out) {
  if (width < 1 || height < 1) return Status::error("nothing to capture: the window has no size");

  // the default framebuffer's back buffer, tightly packed rows
  GLint read_framebuffer = 0, pack_alignment = 4;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_framebuffer);
  glGetIntegerv(GL_PACK_ALIGNMENT, &pack_alignment);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  out->width = width;
  out->height = height;
  out->rgba.assign(size_t(width) * size_t(height) * 4, 0);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, out->rgba.data());
  glPixelStorei(GL_PACK_ALIGNMENT, pack_alignment);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(read_framebuffer));

  // GL's rows start at the bottom; images start at the top
  const size_t row = size_t(width) * 4;
  std::vector<uint8_t> swap(row);
  for (int y = 0; y < height / 2; ++y) {
    uint8_t* a = out->rgba.data() + size_t(y) * row;
    uint8_t* b = out->rgba.data() + size_t(height - 1 - y) * row;
    std::memcpy(swap.data(), a, row);
    std::memcpy(a, b, row);
    std::memcpy(b, swap.data(), row);
  }
  // the window may keep alpha below 1 where ImGui blended; a screenshot is opaque
  for (size_t i = 3; i < out->rgba.size(); i += 4)
    out->rgba[i] = 255;
  return checkGl("reading the back buffer");
}

}  // namespace hooke
