// An 8-bit RGBA image in memory, top row first, and its PNG encoding. No files and no GL here:
// callers write the bytes (atomically) where they want them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/status.h"

namespace hooke {

struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba;  // (height x width x 4), top row first

  uint8_t* pixel(int x, int y) { return &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4]; }
  const uint8_t* pixel(int x, int y) const {
    return &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4];
  }
};

// Encodes the image as an 8-bit RGB PNG (alpha is dropped; renders are opaque).
Status encodePng(const Image& image, std::string* png_bytes);

}  // namespace hooke
