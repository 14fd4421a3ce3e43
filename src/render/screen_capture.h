// Reads what was drawn into the window's back buffer as an Image (for screenshots). Needs the
// window's GL context current; draws nothing and writes no files.
#pragma once

#include "render/image.h"
#include "sim/status.h"

namespace hooke {

// Reads width x height pixels from the default framebuffer's back buffer (before the swap), top
// row first. Fails on a zero size or a GL error.
Status readBackBuffer(int width, int height, Image* out);

}  // namespace hooke
