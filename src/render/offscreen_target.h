// A framebuffer to render into without a window: multisampled colour + depth/stencil, resolved to
// a single-sample image and read back as an Image. Draws nothing itself.
#pragma once

#include "render/gl_handles.h"
#include "render/image.h"
#include "sim/status.h"

namespace hooke {

class OffscreenTarget {
 public:
  // (Re)allocates for width x height with up to `samples` samples per pixel (clamped to what the
  // driver offers; 1 means no multisampling). Fails with the limit when the size is too large.
  Status resize(int width, int height, int samples);

  // Binds it as the draw framebuffer and sets the viewport to the whole of it.
  void bind() const;

  // Resolves the samples and reads the pixels, top row first.
  Status read(Image* out) const;

  // Ends a frame as presenting it would: resolves the samples, then waits until the GL has
  // finished every command issued so far (for timing frames). Fails on a GL error.
  Status finish() const;

  int width() const { return width_; }
  int height() const { return height_; }
  int samples() const { return samples_; }

 private:
  GlFramebuffer draw_fbo_;  // what the renderer draws into (multisampled when samples_ > 1)
  GlRenderbuffer draw_color_;
  GlRenderbuffer draw_depth_;
  GlFramebuffer resolve_fbo_;  // single-sample copy for reading (only when multisampled)
  GlRenderbuffer resolve_color_;
  int width_ = 0;
  int height_ = 0;
  int samples_ = 1;
};

}  // namespace hooke
