// Drawing of the sweep heatmaps: cells, log-axis ticks, titles and a legend, with text from a
// compact 5×7 glyph table; PNG encoding through stb_image_write (private symbols).
#include "app/sweep_heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#include <stb_image_write.h>

#include "app/sweep_colours.h"

namespace hooke {

namespace {

// 5×7 glyphs, 7 rows of 5 columns, '#' = ink; characters without a glyph draw as '?', upper case
// letters other than N draw as their lower case
struct Glyph {
  char c;
  const char* rows;  // 35 characters, row by row
};

// clang-format off
constexpr Glyph kGlyphs[] = {
    {'0', ".###.#...##..###.#.###..##...#.###."},
    {'1', "..#...##....#....#....#....#...###."},
    {'2', ".###.#...#....#...#...#...#...#####"},
    {'3', "#####...#...#.....#.....##...#.###."},
    {'4', "...#...##..#.#.#..#.#####...#....#."},
    {'5', "######....####.....#....##...#.###."},
    {'6', "..##..#...#....####.#...##...#.###."},
    {'7', "#####....#...#...#...#....#....#..."},
    {'8', ".###.#...##...#.###.#...##...#.###."},
    {'9', ".###.#...##...#.####....#...#..##.."},
    {'a', "...........###.....#.#####...#.####"},
    {'b', "#....#....#.##.##..##...##...#####."},
    {'c', "...........###.#....#....#...#.###."},
    {'d', "....#....#.##.##..###...##...#.####"},
    {'e', "...........###.#...#######.....###."},
    {'f', "..##..#..#.#...###...#....#....#..."},
    {'g', "......#####...##...#.####....#.###."},
    {'h', "#....#....#.##.##..##...##...##...#"},
    {'i', "..#........##....#....#....#...###."},
    {'j', "...#........##....#....#.#..#..##.."},
    {'k', "#....#....#..#.#.#..##...#.#..#..#."},
    {'l', ".##....#....#....#....#....#...###."},
    {'m', "..........##.#.#.#.##.#.##.#.##.#.#"},
    {'n', "..........#.##.##..##...##...##...#"},
    {'o', "...........###.#...##...##...#.###."},
    {'p', "..........####.#...#####.#....#...."},
    {'q', "...........##.##..##.####....#....#"},
    {'r', "..........#.##.##..##....#....#...."},
    {'s', "...........#####.....###.....#####."},
    {'t', ".#....#...###...#....#....#..#..##."},
    {'u', "..........#...##...##...##..##.##.#"},
    {'v', "..........#...##...##...#.#.#...#.."},
    {'w', "..........#...##...##.#.##.#.#.#.#."},
    {'x', "..........#...#.#.#...#...#.#.#...#"},
    {'y', "..........#...##...#.####....#.###."},
    {'z', "..........#####...#...#...#...#####"},
    {'N', "#...###..##.#.##..###...##...##...#"},
    {'.', "..........................##...##.."},
    {'-', "................###................"},
    {'+', ".......#....#..#####..#....#......."},
    {'(', "...#...#...#....#....#.....#.....#."},
    {')', ".#.....#.....#....#....#...#...#..."},
    {'/', ".........#...#...#...#...#........."},
    {':', "......##...##........##...##......."},
    {'_', "..............................#####"},
    {',', ".....................##....#...#..."},
    {'=', "..........#####.....#####.........."},
    {'?', ".###.#...#....#...#...#.........#.."},
    {' ', "..................................."},
};
// clang-format on

constexpr int kGlyphW = 5, kGlyphH = 7;

const char* glyphRows(char c) {
  if (c >= 'A' && c <= 'Z' && c != 'N') c = char(c - 'A' + 'a');
  for (const Glyph& g : kGlyphs) {
    if (g.c == c) return g.rows;
  }
  return glyphRows('?');
}

constexpr Rgb kWhite{255, 255, 255}, kInk{30, 30, 30}, kGrey{120, 120, 120};

class Canvas {
 public:
  Canvas(int width, int height) {
    image_.width = width;
    image_.height = height;
    image_.rgb.assign(size_t(width) * size_t(height) * 3, 255);
  }

  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= image_.width || y >= image_.height) return;
    uint8_t* p = &image_.rgb[(size_t(y) * size_t(image_.width) + size_t(x)) * 3];
    p[0] = c.r, p[1] = c.g, p[2] = c.b;
  }

  void fill(int x0, int y0, int w, int h, Rgb c) {
    for (int y = y0; y < y0 + h; ++y) {
      for (int x = x0; x < x0 + w; ++x)
        set(x, y, c);
    }
  }

  // text at scale s, top-left at (x, y); vertical text reads bottom to top with (x, y) its
  // bottom-left: glyph pixel (gx, gy) lands at (x + gy, y − gx)
  void text(int x, int y, const std::string& s, int scale, Rgb c, bool vertical = false) {
    for (char ch : s) {
      const char* rows = glyphRows(ch);
      for (int gy = 0; gy < kGlyphH; ++gy) {
        for (int gx = 0; gx < kGlyphW; ++gx) {
          if (rows[gy * kGlyphW + gx] != '#') continue;
          if (vertical) {
            fill(x + gy * scale, y - (gx + 1) * scale, scale, scale, c);
          } else {
            fill(x + gx * scale, y + gy * scale, scale, scale, c);
          }
        }
      }
      if (vertical) {
        y -= advance(scale);
      } else {
        x += advance(scale);
      }
    }
  }

  static int advance(int scale) { return (kGlyphW + 1) * scale; }
  static int textWidth(const std::string& s, int scale) {
    return s.empty() ? 0 : int(s.size()) * advance(scale) - scale;
  }

  RgbImage take() { return std::move(image_); }

 private:
  RgbImage image_;
};

// tick values: the decades inside [lo, hi] when there are at least two, else the two ends
std::vector<double> tickValues(double lo, double hi) {
  std::vector<double> ticks;
  const double eps = 1e-9;
  for (int e = int(std::ceil(std::log10(lo) - eps)); e <= int(std::floor(std::log10(hi) + eps));
       ++e) {
    ticks.push_back(std::pow(10.0, e));
  }
  if (ticks.size() < 2) ticks = {lo, hi};
  return ticks;
}

// where a value falls along an axis of n cells of size cell, cell centres at the grid values:
// offset = cell / 2 + (log v − log lo) / (log hi − log lo) · (n − 1) · cell
double axisOffset(double v, double lo, double hi, int n, int cell) {
  return cell / 2.0 + std::log(v / lo) / std::log(hi / lo) * double(n - 1) * double(cell);
}

void appendBytes(void* context, void* data, int size) {
  static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
}

}  // namespace

std::string tickLabel(double value) {
  if (!(value > 0.0) || !std::isfinite(value)) return "?";
  int e = int(std::floor(std::log10(value) + 1e-9));
  double mantissa = value / std::pow(10.0, e);
  mantissa = std::round(mantissa * 10.0) / 10.0;
  if (mantissa >= 10.0) mantissa /= 10.0, e += 1;
  char buffer[32];
  if (std::abs(mantissa - 1.0) < 1e-9) {
    std::snprintf(buffer, sizeof buffer, "1e%d", e);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1fe%d", mantissa, e);
  }
  return buffer;
}

RgbImage drawSweepHeatmap(const std::string& title, const std::vector<double>& dts,
                          const std::vector<double>& stiffnesses,
                          const std::vector<CellStatus>& statuses) {
  const int nx = int(dts.size()), ny = int(stiffnesses.size());
  const int s = 2;  // font scale: 10 × 14 px glyphs
  const int cell = std::clamp(480 / std::max(nx, ny), 10, 48);
  const int text_h = kGlyphH * s;

  // layout: axis title and tick labels left, title top, tick labels and axis title below,
  // legend right
  const int left = 8 + text_h + 10 + Canvas::textWidth("1.0e-10", s) + 10;
  const int top = 16 + text_h + 20;
  const int plot_w = nx * cell, plot_h = ny * cell;
  const int legend_x = left + plot_w + 24;
  const int right = 24 + 16 + 8 + Canvas::textWidth("unrealistic", s) + 16;
  const int bottom = 8 + text_h + 14 + text_h + 16;
  const int width = std::max(left + plot_w + right, 16 + Canvas::textWidth(title, s) + 16);
  const int height = std::max(top + plot_h + bottom, top + 3 * 26 + 16);
  Canvas canvas(width, height);

  // title
  canvas.text((width - Canvas::textWidth(title, s)) / 2, 16, title, s, kInk);

  // cells, with 1 px white gaps; row 0 (lowest stiffness) at the bottom
  for (int row = 0; row < ny; ++row) {
    for (int col = 0; col < nx; ++col) {
      const size_t i = size_t(row) * size_t(nx) + size_t(col);
      const Rgb c = i < statuses.size() ? statusColour(statuses[i]) : kGrey;
      canvas.fill(left + col * cell, top + (ny - 1 - row) * cell, cell - 1, cell - 1, c);
    }
  }

  // x axis: ticks at log positions, labels centred below
  const int axis_y = top + plot_h + 2;
  canvas.fill(left, axis_y, plot_w, 1, kInk);
  int last_right = -1000;
  for (double v : tickValues(dts.front(), dts.back())) {
    const int x = left + int(std::lround(axisOffset(v, dts.front(), dts.back(), nx, cell)));
    canvas.fill(x, axis_y, 1, 6, kInk);
    const std::string label = tickLabel(v);
    const int lx = x - Canvas::textWidth(label, s) / 2;
    if (lx < last_right + 8) continue;  // would overlap the previous label
    canvas.text(lx, axis_y + 8, label, s, kInk);
    last_right = lx + Canvas::textWidth(label, s);
  }
  const std::string x_title = "dt (s)";
  canvas.text(left + (plot_w - Canvas::textWidth(x_title, s)) / 2, axis_y + 8 + text_h + 14,
              x_title, s, kInk);

  // y axis: ticks at log positions (up), labels right-aligned to the left
  const int axis_x = left - 3;
  canvas.fill(axis_x, top, 1, plot_h, kInk);
  int last_top = 1 << 30;
  for (double v : tickValues(stiffnesses.front(), stiffnesses.back())) {
    const int y =
        top + plot_h -
        int(std::lround(axisOffset(v, stiffnesses.front(), stiffnesses.back(), ny, cell)));
    canvas.fill(axis_x - 6, y, 6, 1, kInk);
    const std::string label = tickLabel(v);
    const int ly = y - text_h / 2;
    if (ly + text_h > last_top - 4) continue;
    canvas.text(axis_x - 10 - Canvas::textWidth(label, s), ly, label, s, kInk);
    last_top = ly;
  }
  const std::string y_title = "stiffness (N/m)";
  canvas.text(8, top + (plot_h + Canvas::textWidth(y_title, s)) / 2, y_title, s, kInk, true);

  // legend
  const std::pair<CellStatus, const char*> entries[] = {{CellStatus::kStable, "stable"},
                                                        {CellStatus::kUnrealistic, "unrealistic"},
                                                        {CellStatus::kDiverged, "diverged"}};
  for (int i = 0; i < 3; ++i) {
    const int y = top + i * 26;
    canvas.fill(legend_x, y, 16, 16, statusColour(entries[i].first));
    canvas.text(legend_x + 24, y + 1, entries[i].second, s, kInk);
  }
  return canvas.take();
}

Status encodeRgbPng(const RgbImage& image, std::string* png_bytes) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != size_t(image.width) * size_t(image.height) * 3) {
    return Status::error("cannot encode an empty or inconsistent image as PNG");
  }
  png_bytes->clear();
  if (!stbi_write_png_to_func(appendBytes, png_bytes, image.width, image.height, 3,
                              image.rgb.data(), image.width * 3)) {
    return Status::error("PNG encoding failed");
  }
  return Status::ok();
}

}  // namespace hooke
