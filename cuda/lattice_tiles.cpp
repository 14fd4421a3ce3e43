#include "cuda/lattice_tiles.h"

#include <algorithm>

namespace hooke::cuda {

namespace {

bool isPowerOfTwo(uint32_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

uint32_t log2Of(uint32_t v) {
  uint32_t s = 0;
  while ((1u << s) < v)
    ++s;
  return s;
}

}  // namespace

bool latticeOfOffsets(const std::vector<uint32_t>& offsets, size_t particles, uint32_t dims[3]) {
  dims[0] = dims[1] = dims[2] = 0;
  auto has = [&](uint64_t o) {
    return o <= 0xffffffffu &&
           std::binary_search(offsets.begin(), offsets.end(), static_cast<uint32_t>(o));
  };
  auto centre = [&](uint32_t o) { return o >= 3 && has(o) && has(o - 1) && has(uint64_t(o) + 1); };
  if (particles == 0 || !std::is_sorted(offsets.begin(), offsets.end())) return false;
  uint32_t width = 0, plane = 0;
  for (uint32_t o : offsets) {
    if (centre(o) && particles % o == 0) {
      width = o;
      break;
    }
  }
  if (width == 0) return false;
  for (uint32_t o : offsets) {
    if (o > width + 1 && o % width == 0 && centre(o) && centre(o - width) &&
        uint64_t(o) + width <= 0xffffffffu && centre(o + width)) {
      plane = o;
      break;
    }
  }
  if (plane != 0 && particles % plane == 0) {
    dims[0] = width;
    dims[1] = plane / width;
    dims[2] = static_cast<uint32_t>(particles / plane);
  } else {
    dims[0] = width;
    dims[1] = static_cast<uint32_t>(particles / width);
    dims[2] = 1;
  }
  return true;
}

bool acceptableLatticeTile(const int tile[3]) {
  if (tile[0] == 0 && tile[1] == 0 && tile[2] == 0) return true;
  long long product = 1;
  for (int a = 0; a < 3; ++a) {
    if (tile[a] < 1 || tile[a] > 1024 || !isPowerOfTwo(uint32_t(tile[a]))) return false;
    product *= tile[a];
  }
  return product <= 65536;
}

bool makeLatticeTiles(const uint32_t dims[3], const uint32_t tile[3], LatticeTiles* out) {
  *out = LatticeTiles{};
  for (int a = 0; a < 3; ++a) {
    if (dims[a] == 0 || !isPowerOfTwo(tile[a])) return false;
  }
  const uint64_t tiles_x = (dims[0] + tile[0] - 1) / tile[0];
  const uint64_t tiles_y = (dims[1] + tile[1] - 1) / tile[1];
  const uint64_t tiles_z = (dims[2] + tile[2] - 1) / tile[2];
  const uint64_t slots = tiles_x * tiles_y * tiles_z * tile[0] * tile[1] * tile[2];
  if (slots >= (uint64_t(1) << 31) || uint64_t(dims[0]) * dims[1] * dims[2] >= (uint64_t(1) << 31))
    return false;
  out->slots = static_cast<uint32_t>(slots);
  out->width = dims[0];
  out->height = dims[1];
  out->depth = dims[2];
  out->tiles_x = static_cast<uint32_t>(tiles_x);
  out->tiles_y = static_cast<uint32_t>(tiles_y);
  out->shift_x = log2Of(tile[0]);
  out->shift_y = log2Of(tile[1]);
  out->shift_z = log2Of(tile[2]);
  return true;
}

void automaticTile(const uint32_t dims[3], uint32_t rows_per_block, uint32_t lanes,
                   uint32_t tile[3]) {
  tile[0] = tile[1] = tile[2] = 0;
  const uint32_t warp_rows = 32u / std::max(1u, lanes);
  if (!isPowerOfTwo(rows_per_block) || rows_per_block < warp_rows) return;
  uint32_t x = dims[2] <= 1 ? warp_rows : std::min(warp_rows, kDeepTileX);
  while (x > 1 && x / 2 >= dims[0])  // no wider than the lattice rounded up to a power of two
    x /= 2;
  const uint32_t rest = rows_per_block / x;
  if (dims[2] <= 1) {
    tile[0] = x;
    tile[1] = rest;
    tile[2] = 1;
    return;
  }
  const uint32_t y = 1u << (log2Of(rest) / 2);
  tile[0] = x;
  tile[1] = y;
  tile[2] = rest / y;
}

}  // namespace hooke::cuda
