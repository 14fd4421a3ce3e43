// The offscreen framebuffers: allocation within the driver's limits, the multisample resolve
// (a blit) and the read-back with rows flipped to top-first.
#include "render/offscreen_target.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "render/gl_debug.h"

namespace hooke {

Status OffscreenTarget::resize(int width, int height, int samples) {
  // the driver's limits first, so a too-large request is a clear message and not a GL error
  GLint max_size = 0, max_samples = 1;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  if (width < 1 || height < 1 || width > max_size || height > max_size) {
    return Status::error("image size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is outside what this OpenGL driver renders (1.." +
                         std::to_string(max_size) + " per side)");
  }
  samples = std::clamp(samples, 1, std::max(1, int(max_samples)));

  // the draw target: colour and depth/stencil renderbuffers
  draw_fbo_ = createFramebuffer();
  draw_color_ = createRenderbuffer();
  draw_depth_ = createRenderbuffer();
  const GLsizei gl_samples = samples > 1 ? samples : 0;
  glNamedRenderbufferStorageMultisample(draw_color_.id(), gl_samples, GL_RGBA8, width, height);
  glNamedRenderbufferStorageMultisample(draw_depth_.id(), gl_samples, GL_DEPTH24_STENCIL8, width,
                                        height);
  glNamedFramebufferRenderbuffer(draw_fbo_.id(), GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                 draw_color_.id());
  glNamedFramebufferRenderbuffer(draw_fbo_.id(), GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER,
                                 draw_depth_.id());
  if (glCheckNamedFramebufferStatus(draw_fbo_.id(), GL_DRAW_FRAMEBUFFER) !=
      GL_FRAMEBUFFER_COMPLETE) {
    return Status::error("the offscreen framebuffer is incomplete (" + std::to_string(samples) +
                         " samples)");
  }

  // the resolve target, only needed when multisampled
  resolve_fbo_.reset();
  resolve_color_.reset();
  if (samples > 1) {
    resolve_fbo_ = createFramebuffer();
    resolve_color_ = createRenderbuffer();
    glNamedRenderbufferStorage(resolve_color_.id(), GL_RGBA8, width, height);
    glNamedFramebufferRenderbuffer(resolve_fbo_.id(), GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                   resolve_color_.id());
    if (glCheckNamedFramebufferStatus(resolve_fbo_.id(), GL_DRAW_FRAMEBUFFER) !=
        GL_FRAMEBUFFER_COMPLETE) {
      return Status::error("the resolve framebuffer is incomplete");
    }
  }
  width_ = width;
  height_ = height;
  samples_ = samples;
  return checkGl("allocating a " + std::to_string(width) + "x" + std::to_string(height) +
                 " offscreen framebuffer");
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, draw_fbo_.id());
  glViewport(0, 0, width_, height_);
}

Status OffscreenTarget::finish() const {
  if (width_ == 0) return Status::error("the offscreen target was never allocated");
  if (samples_ > 1) {
    glBlitNamedFramebuffer(draw_fbo_.id(), resolve_fbo_.id(), 0, 0, width_, height_, 0, 0, width_,
                           height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  }
  glFinish();
  if (GLenum error = glGetError(); error != GL_NO_ERROR) {
    return Status::error("OpenGL error " + std::to_string(error) + " while finishing a frame");
  }
  return Status::ok();
}

Status OffscreenTarget::read(Image* out) const {
  if (width_ == 0) return Status::error("the offscreen target was never allocated");

  // resolve the samples into the single-sample copy
  GLuint source = draw_fbo_.id();
  if (samples_ > 1) {
    glBlitNamedFramebuffer(draw_fbo_.id(), resolve_fbo_.id(), 0, 0, width_, height_, 0, 0, width_,
                           height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    source = resolve_fbo_.id();
  }

  // read bottom-up rows, then flip them
  out->width = width_;
  out->height = height_;
  out->rgba.resize(size_t(width_) * size_t(height_) * 4);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, source);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, out->rgba.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  const size_t row = size_t(width_) * 4;
  std::vector<uint8_t> swap(row);
  for (int y = 0; y < height_ / 2; ++y) {
    uint8_t* top = &out->rgba[size_t(y) * row];
    uint8_t* bottom = &out->rgba[size_t(height_ - 1 - y) * row];
    std::memcpy(swap.data(), top, row);
    std::memcpy(top, bottom, row);
    std::memcpy(bottom, swap.data(), row);
  }
  return checkGl("reading back the rendered image");
}

}  // namespace hooke
