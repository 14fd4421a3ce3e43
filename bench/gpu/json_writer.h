// A minimal JSON writer for the GPU benchmark's results (objects, arrays, numbers, strings), so the
// benchmark links no JSON library. Writes only; never parses.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace hooke::bench {

class Json {
 public:
  static Json number(double v) {
    if (!std::isfinite(v)) return Json("null");
    char text[40];
    std::snprintf(text, sizeof text, "%.6g", v);
    return Json(text);
  }
  static Json integer(long long v) { return Json(std::to_string(v)); }
  static Json boolean(bool v) { return Json(v ? "true" : "false"); }
  static Json null() { return Json("null"); }
  static Json string(const std::string& v) {
    std::string out = "\"";
    for (char c : v) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      } else {
        out += c;
      }
    }
    return Json(out + "\"");
  }
  static Json array(const std::vector<Json>& items) {
    std::string out = "[";
    for (size_t k = 0; k < items.size(); ++k)
      out += (k ? ",\n    " : "\n    ") + items[k].text_;
    return Json(out + (items.empty() ? "]" : "\n  ]"));
  }
  static Json object(const std::vector<std::pair<std::string, Json>>& fields) {
    std::string out = "{";
    for (size_t k = 0; k < fields.size(); ++k)
      out += (k ? ", " : "") + string(fields[k].first).text_ + ": " + fields[k].second.text_;
    return Json(out + "}");
  }
  const std::string& text() const { return text_; }

 private:
  explicit Json(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

}  // namespace hooke::bench
