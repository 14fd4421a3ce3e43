// PNG encoding through stb_image_write (Debian libstb-dev, vcpkg stb), compiled here with private
// symbols so it cannot clash with another copy in the process. Writes no files.
#include <cstring>

#include "render/image.h"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>

namespace hooke {

namespace {

void appendBytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
}

}  // namespace

Status encodePng(const Image& image, std::string* png_bytes) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgba.size() != size_t(image.width) * size_t(image.height) * 4) {
    return Status::error("cannot encode an empty or inconsistent image as PNG");
  }

  // rgb rows, then the encoder at its strongest setting
  std::vector<uint8_t> rgb(size_t(image.width) * size_t(image.height) * 3);
  for (size_t i = 0, n = size_t(image.width) * size_t(image.height); i < n; ++i) {
    std::memcpy(&rgb[i * 3], &image.rgba[i * 4], 3);
  }
  stbi_write_png_compression_level = 9;
  png_bytes->clear();
  if (!stbi_write_png_to_func(appendBytes, png_bytes, image.width, image.height, 3, rgb.data(),
                              image.width * 3)) {
    return Status::error("PNG encoding failed");
  }
  return Status::ok();
}

}  // namespace hooke
