// Reading and writing scenes: hooke's JSON scene format, TetGen .node/.ele meshes, validation and
// atomic file writes. Every failure is a one-line Status; no exception leaves this file.
#include "io/scene_file.h"

#include "io/atomic_file.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#ifndef _WIN32
#include <unistd.h>
#endif

namespace hooke {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// limits that turn absurd inputs into errors instead of huge allocations
constexpr size_t kMaxParticles = size_t{1} << 26;        // 67 M (the largest built-in is ~17 M)
constexpr size_t kMaxSprings = size_t{1} << 30;          // 1 G
constexpr size_t kMaxTriangles = size_t{1} << 29;        // 512 M
constexpr uintmax_t kMaxFileBytes = uintmax_t{8} << 30;  // 8 GiB
constexpr int64_t kMaxTetGenAttributes = 1000;

// doubles below this magnitude round to a finite float (2^128 - 2^103, halfway past FLT_MAX)
constexpr double kFloatLimit = 0x1.ffffffp+127;

bool fitsFloat(double d) {
  return std::isfinite(d) && std::fabs(d) < kFloatLimit;
}

// ---------------------------------------------------------------------------------------------
// formatting

std::string show(float v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string show(glm::vec3 v) {
  return "[" + show(v.x) + ", " + show(v.y) + ", " + show(v.z) + "]";
}

std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  return s;
}

// a json value for a message: its type and a short dump
std::string describe(const json& j) {
  if (j.is_null()) return "null";
  std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return std::string(j.type_name()) + " " + text;
}

std::string errnoText(int err) {
  return err != 0 ? std::strerror(err) : "unknown error";
}

bool isFinite(glm::vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// appends a float so that reading it back as a double and casting to float gives the same bits:
// the shortest float form when that reads back exactly, otherwise the double's shortest form
void appendFloat(std::string& out, float f) {
  if (!std::isfinite(f)) {
    out += "null";  // json has no inf or nan; parseSceneJson rejects it with the field's path
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  double back = 0.0;
  auto parsed = std::from_chars(buf, r.ptr, back);
  if (parsed.ec != std::errc() || parsed.ptr != r.ptr ||
      std::bit_cast<uint32_t>(static_cast<float>(back)) != std::bit_cast<uint32_t>(f)) {
    r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(f));
  }
  std::string_view text(buf, static_cast<size_t>(r.ptr - buf));
  out += text;
  // keep it a json float ("-0" would read back as the integer 0 and lose its sign)
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

void appendVec3(std::string& out, glm::vec3 v) {
  out += '[';
  appendFloat(out, v.x);
  out += ", ";
  appendFloat(out, v.y);
  out += ", ";
  appendFloat(out, v.z);
  out += ']';
}

// ---------------------------------------------------------------------------------------------
// field paths in messages: "particles[3].m", "triangles[2][1]", "gravity[0]", "drag"

struct Where {
  std::string_view array;  // "particles", or empty for a top-level field
  size_t index = 0;
  std::string_view field;  // "m", or empty for the element itself
  int component = -1;      // [component] after the rest, or -1

  std::string str() const {
    std::string s(array.empty() ? field : array);
    if (!array.empty()) {
      s += "[" + std::to_string(index) + "]";
      if (!field.empty()) {
        s += '.';
        s += field;
      }
    }
    if (component >= 0) s += "[" + std::to_string(component) + "]";
    return s;
  }
  Where at(int c) const {
    Where w = *this;
    w.component = c;
    return w;
  }
};

Status fieldError(const std::string& origin, const Where& where, const std::string& problem) {
  std::string path = where.str();
  if (path.empty()) return Status::error(oneLine(origin + ": " + problem));
  return Status::error(oneLine(origin + ": " + path + ": " + problem));
}

// ---------------------------------------------------------------------------------------------
// json field readers: each checks the type and range it needs and names the path on failure

Status readFloat(const json& j, const std::string& origin, const Where& where, float* out) {
  if (!j.is_number()) return fieldError(origin, where, "must be a number, got " + describe(j));
  double d = j.get<double>();
  if (!fitsFloat(d)) {
    return fieldError(origin, where,
                      "must be a finite number within the float range, got " + describe(j));
  }
  *out = static_cast<float>(d);
  return Status::ok();
}

Status readVec3(const json& j, const std::string& origin, const Where& where, glm::vec3* out) {
  if (!j.is_array() || j.size() != 3) {
    return fieldError(origin, where, "must be an array of 3 numbers, got " + describe(j));
  }
  for (int c = 0; c < 3; ++c) {
    if (Status s = readFloat(j[c], origin, where.at(c), &(*out)[c]); !s) return s;
  }
  return Status::ok();
}

Status readIndex(const json& j, const std::string& origin, const Where& where, uint32_t* out) {
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u >= std::numeric_limits<uint32_t>::max()) {
      return fieldError(origin, where, "index " + std::to_string(u) + " is too large");
    }
    *out = static_cast<uint32_t>(u);
    return Status::ok();
  }
  if (j.is_number()) {
    return fieldError(origin, where, "must be a non-negative integer index, got " + describe(j));
  }
  return fieldError(origin, where, "must be an integer index, got " + describe(j));
}

Status readBool(const json& j, const std::string& origin, const Where& where, bool* out) {
  if (!j.is_boolean())
    return fieldError(origin, where, "must be true or false, got " + describe(j));
  *out = j.get<bool>();
  return Status::ok();
}

// checks that an object has only the allowed keys and all the required ones
Status checkKeys(const json& j, const std::string& origin, const Where& where,
                 std::initializer_list<std::string_view> allowed,
                 std::initializer_list<std::string_view> required) {
  if (!j.is_object()) return fieldError(origin, where, "must be an object, got " + describe(j));
  for (const auto& item : j.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      return fieldError(origin, where, "unknown field \"" + item.key() + "\"");
    }
  }
  for (std::string_view key : required) {
    if (!j.contains(key)) {
      return fieldError(origin, where, "missing field \"" + std::string(key) + "\"");
    }
  }
  return Status::ok();
}

// the array at key, checked for type and size
Status readArray(const json& parent, std::string_view key, const std::string& origin,
                 size_t max_size, const json** out) {
  Where where{"", 0, key};
  const json& j = parent.at(key);
  if (!j.is_array()) return fieldError(origin, where, "must be an array, got " + describe(j));
  if (j.size() > max_size) {
    return fieldError(origin, where,
                      "too many entries (" + std::to_string(j.size()) + ", at most " +
                          std::to_string(max_size) + ")");
  }
  *out = &j;
  return Status::ok();
}

// "line:column" of nlohmann's byte count (the 1-based count of characters read at the error)
std::string lineColumn(const std::string& text, size_t byte) {
  size_t p = std::min(byte == 0 ? 0 : byte - 1, text.size());
  size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + p, '\n'));
  size_t last_newline = p == 0 ? std::string::npos : text.rfind('\n', p - 1);
  size_t column = last_newline == std::string::npos ? p + 1 : p - last_newline;
  return std::to_string(line) + ":" + std::to_string(column);
}

// nlohmann's message without its "[json.exception...] parse error at line 1, column 2: " prefix
std::string jsonDetail(const std::string& what) {
  std::string s = what;
  if (s.rfind("[json.exception.", 0) == 0) {
    size_t close = s.find("] ");
    if (close != std::string::npos) s = s.substr(close + 2);
  }
  if (s.rfind("parse error", 0) == 0) {
    size_t colon = s.find(": ");
    if (colon != std::string::npos) s = s.substr(colon + 2);
  }
  return s;
}

Status parseSceneJsonImpl(const std::string& text, const std::string& origin, Scene* out) {
  // syntax
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return Status::error(
        oneLine(origin + ":" + lineColumn(text, e.byte) + ": " + jsonDetail(e.what())));
  } catch (const json::exception& e) {
    // out_of_range.406 "number overflow parsing '1e999'" carries no position: find the token
    std::string detail = jsonDetail(e.what());
    size_t open = detail.find('\''), close = detail.rfind('\'');
    if (open != std::string::npos && close > open + 1) {
      size_t at = text.find(detail.substr(open + 1, close - open - 1));
      if (at != std::string::npos) {
        return Status::error(oneLine(origin + ":" + lineColumn(text, at + 1) + ": " + detail));
      }
    }
    return Status::error(oneLine(origin + ": " + detail));
  }

  // header
  const Where top{};
  if (Status s = checkKeys(doc, origin, top,
                           {"format", "version", "name", "gravity", "drag", "particles", "springs",
                            "triangles", "driven_particle"},
                           {"format", "version", "particles"});
      !s) {
    if (!doc.is_object()) {
      return Status::error(origin + ": expected a hooke-scene object at the top level, got " +
                           oneLine(describe(doc)));
    }
    return s;
  }
  const json& format = doc["format"];
  if (!format.is_string() || format.get<std::string>() != "hooke-scene") {
    return fieldError(origin, {"", 0, "format"},
                      "unknown format " + describe(format) + " (expected \"hooke-scene\")");
  }
  const json& version = doc["version"];
  if (!version.is_number_integer() || version.get<int64_t>() != 1) {
    return fieldError(origin, {"", 0, "version"},
                      "unsupported version " + describe(version) + " (this build reads version 1)");
  }

  Scene scene;
  if (doc.contains("name")) {
    if (!doc["name"].is_string()) {
      return fieldError(origin, {"", 0, "name"}, "must be a string, got " + describe(doc["name"]));
    }
    scene.name = doc["name"].get<std::string>();
  }
  if (doc.contains("gravity")) {
    if (Status s = readVec3(doc["gravity"], origin, {"", 0, "gravity"}, &scene.model.gravity); !s) {
      return s;
    }
  }
  if (doc.contains("drag")) {
    if (Status s = readFloat(doc["drag"], origin, {"", 0, "drag"}, &scene.model.drag); !s) return s;
  }

  // particles
  const json* particles = nullptr;
  if (Status s = readArray(doc, "particles", origin, kMaxParticles, &particles); !s) return s;
  if (particles->empty()) return fieldError(origin, {"", 0, "particles"}, "empty particle list");
  const size_t n = particles->size();
  scene.model.mass.resize(n);
  scene.model.pinned.resize(n);
  scene.state.x.resize(n);
  scene.state.v.resize(n, glm::vec3(0.0f));
  for (size_t i = 0; i < n; ++i) {
    const json& p = (*particles)[i];
    if (Status s =
            checkKeys(p, origin, {"particles", i, ""}, {"x", "v", "m", "pinned"}, {"x", "m"});
        !s) {
      return s;
    }
    if (Status s = readVec3(p["x"], origin, {"particles", i, "x"}, &scene.state.x[i]); !s) return s;
    if (p.contains("v")) {
      if (Status s = readVec3(p["v"], origin, {"particles", i, "v"}, &scene.state.v[i]); !s) {
        return s;
      }
    }
    if (Status s = readFloat(p["m"], origin, {"particles", i, "m"}, &scene.model.mass[i]); !s) {
      return s;
    }
    bool pinned = false;
    if (p.contains("pinned")) {
      if (Status s = readBool(p["pinned"], origin, {"particles", i, "pinned"}, &pinned); !s) {
        return s;
      }
    }
    scene.model.pinned[i] = pinned ? 1 : 0;
  }

  // springs
  if (doc.contains("springs")) {
    const json* springs = nullptr;
    if (Status s = readArray(doc, "springs", origin, kMaxSprings, &springs); !s) return s;
    const size_t m = springs->size();
    scene.model.spring_ends.resize(m);
    scene.model.rest_length.resize(m);
    scene.model.stiffness.resize(m);
    scene.model.damping.resize(m);
    for (size_t k = 0; k < m; ++k) {
      const json& sp = (*springs)[k];
      if (Status s = checkKeys(sp, origin, {"springs", k, ""}, {"i", "j", "rest", "k", "c"},
                               {"i", "j", "rest", "k", "c"});
          !s) {
        return s;
      }
      glm::uvec2& ends = scene.model.spring_ends[k];
      for (Status s :
           {readIndex(sp["i"], origin, {"springs", k, "i"}, &ends.x),
            readIndex(sp["j"], origin, {"springs", k, "j"}, &ends.y),
            readFloat(sp["rest"], origin, {"springs", k, "rest"}, &scene.model.rest_length[k]),
            readFloat(sp["k"], origin, {"springs", k, "k"}, &scene.model.stiffness[k]),
            readFloat(sp["c"], origin, {"springs", k, "c"}, &scene.model.damping[k])}) {
        if (!s) return s;
      }
    }
  }

  // rendering extras
  if (doc.contains("triangles")) {
    const json* triangles = nullptr;
    if (Status s = readArray(doc, "triangles", origin, kMaxTriangles, &triangles); !s) return s;
    scene.triangles.resize(triangles->size());
    for (size_t t = 0; t < triangles->size(); ++t) {
      const json& tri = (*triangles)[t];
      Where where{"triangles", t, ""};
      if (!tri.is_array() || tri.size() != 3) {
        return fieldError(origin, where, "must be an array of 3 indices, got " + describe(tri));
      }
      for (int c = 0; c < 3; ++c) {
        if (Status s = readIndex(tri[c], origin, where.at(c), &scene.triangles[t][c]); !s) return s;
      }
    }
  }
  if (doc.contains("driven_particle")) {
    const json& d = doc["driven_particle"];
    if (!d.is_number_integer()) {
      return fieldError(origin, {"", 0, "driven_particle"},
                        "must be an integer particle index (or -1 for none), got " + describe(d));
    }
    // huge unsigned values saturate, so validateScene reports them out of range
    scene.driven_particle =
        d.is_number_unsigned()
            ? static_cast<int64_t>(std::min<uint64_t>(d.get<uint64_t>(), INT64_MAX))
            : d.get<int64_t>();
  }

  // values: ranges, indices, duplicates
  if (Status s = validateScene(scene, origin); !s) return s;
  *out = std::move(scene);
  return Status::ok();
}

// ---------------------------------------------------------------------------------------------
// TetGen

// the lines of a TetGen file that hold tokens ('#' starts a comment; blank lines are skipped)
class TokenLines {
 public:
  explicit TokenLines(const std::string& text) : text_(text) {}

  // moves to the next line with tokens; false at the end of the file
  bool next() {
    while (pos_ < text_.size()) {
      size_t end = text_.find('\n', pos_);
      if (end == std::string::npos) end = text_.size();
      std::string_view line(text_.data() + pos_, end - pos_);
      pos_ = end + 1;
      ++line_;
      if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
      tokens_.clear();
      size_t i = 0;
      while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
          ++i;
        size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
          ++i;
        if (i > start) tokens_.push_back(line.substr(start, i - start));
      }
      if (!tokens_.empty()) return true;
    }
    return false;
  }

  int line() const { return line_; }  // after next() returned false: the file's last line
  const std::vector<std::string_view>& tokens() const { return tokens_; }

 private:
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 0;
  std::vector<std::string_view> tokens_;
};

bool parseInt(std::string_view s, int64_t* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

bool parseReal(std::string_view s, double* out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

Status lineError(const std::string& file, int line, const std::string& problem) {
  return Status::error(oneLine(file + ":" + std::to_string(line) + ": " + problem));
}

Status notANumber(const std::string& file, int line, std::string_view token, const char* what) {
  std::string shown(token.substr(0, 40));
  return lineError(file, line, "'" + shown + "' is not " + what);
}

// reads a header line of up to out.size() integers; missing trailing ones keep their defaults
Status readHeader(TokenLines& lines, const std::string& file, const char* layout,
                  std::initializer_list<int64_t*> out) {
  if (!lines.next()) {
    return lineError(file, std::max(lines.line(), 1),
                     std::string("empty file, expected a header '") + layout + "'");
  }
  const auto& tokens = lines.tokens();
  if (tokens.size() > out.size()) {
    return lineError(file, lines.line(),
                     "header has " + std::to_string(tokens.size()) + " values, expected at most " +
                         std::to_string(out.size()) + " ('" + layout + "')");
  }
  size_t i = 0;
  for (int64_t* value : out) {
    if (i >= tokens.size()) break;
    if (!parseInt(tokens[i], value)) return notANumber(file, lines.line(), tokens[i], "an integer");
    ++i;
  }
  return Status::ok();
}

// checks the running index of a record: the first one sets the base (0 or 1)
Status checkIndex(const std::string& file, int line, std::string_view token, size_t k,
                  const char* what, int64_t* base) {
  int64_t index = 0;
  if (!parseInt(token, &index)) return notANumber(file, line, token, "an integer index");
  if (k == 0) {
    if (index != 0 && index != 1) {
      return lineError(
          file, line,
          std::string("the first ") + what + " index must be 0 or 1, got " + std::to_string(index));
    }
    *base = index;
  } else if (index != *base + static_cast<int64_t>(k)) {
    return lineError(file, line,
                     std::string(what) + " index " + std::to_string(index) +
                         " out of sequence (expected " + std::to_string(*base + k) + ")");
  }
  return Status::ok();
}

struct TetGenNodes {
  std::vector<glm::vec3> x;
  int64_t base = 0;
};

Status readNodeFile(const std::string& file, const std::string& text, TetGenNodes* out) {
  TokenLines lines(text);
  int64_t count = -1, dim = 3, attributes = 0, markers = 0;
  if (Status s = readHeader(lines, file, "<points> <dimension> <attributes> <boundary markers>",
                            {&count, &dim, &attributes, &markers});
      !s) {
    return s;
  }
  const int header = lines.line();
  if (count <= 0)
    return lineError(file, header, "no points (the header says " + std::to_string(count) + ")");
  if (static_cast<uint64_t>(count) > kMaxParticles) {
    return lineError(file, header,
                     "too many points (" + std::to_string(count) + ", at most " +
                         std::to_string(kMaxParticles) + ")");
  }
  if (dim != 3) return lineError(file, header, "dimension must be 3, got " + std::to_string(dim));
  if (attributes < 0 || attributes > kMaxTetGenAttributes) {
    return lineError(file, header, "bad attribute count " + std::to_string(attributes));
  }
  if (markers != 0 && markers != 1) {
    return lineError(file, header,
                     "boundary marker count must be 0 or 1, got " + std::to_string(markers));
  }

  const size_t expected = static_cast<size_t>(1 + 3 + attributes + markers);
  out->x.reserve(std::min<size_t>(static_cast<size_t>(count), text.size() / 8 + 1));
  for (size_t k = 0; k < static_cast<size_t>(count); ++k) {
    if (!lines.next()) {
      return lineError(
          file, lines.line(),
          "expected " + std::to_string(count) + " points, file ends after " + std::to_string(k));
    }
    const int line = lines.line();
    const auto& tokens = lines.tokens();
    if (tokens.size() != expected) {
      return lineError(
          file, line,
          "expected " + std::to_string(expected) + " values, got " + std::to_string(tokens.size()));
    }
    if (Status s = checkIndex(file, line, tokens[0], k, "point", &out->base); !s) return s;
    glm::vec3 x;
    for (int c = 0; c < 3; ++c) {
      double value = 0.0;
      if (!parseReal(tokens[1 + c], &value))
        return notANumber(file, line, tokens[1 + c], "a number");
      if (!fitsFloat(value)) {
        return lineError(file, line,
                         "coordinate " + std::string(tokens[1 + c]) + " is not a finite float");
      }
      x[c] = static_cast<float>(value);
    }
    for (size_t t = 4; t < tokens.size(); ++t) {
      double value = 0.0;
      if (!parseReal(tokens[t], &value)) return notANumber(file, line, tokens[t], "a number");
    }
    out->x.push_back(x);
  }
  return Status::ok();
}

Status readEleFile(const std::string& file, const std::string& text, const TetGenNodes& nodes,
                   std::vector<std::array<uint32_t, 4>>* out) {
  TokenLines lines(text);
  int64_t count = -1, per_tet = 4, attributes = 0;
  if (Status s = readHeader(lines, file, "<tetrahedra> <nodes per tetrahedron> <attributes>",
                            {&count, &per_tet, &attributes});
      !s) {
    return s;
  }
  const int header = lines.line();
  if (count <= 0) {
    return lineError(file, header, "no tetrahedra (the header says " + std::to_string(count) + ")");
  }
  if (static_cast<uint64_t>(count) > kMaxSprings / 6) {
    return lineError(file, header, "too many tetrahedra (" + std::to_string(count) + ")");
  }
  if (per_tet != 4 && per_tet != 10) {
    return lineError(file, header,
                     "nodes per tetrahedron must be 4 or 10, got " + std::to_string(per_tet));
  }
  if (attributes < 0 || attributes > kMaxTetGenAttributes) {
    return lineError(file, header, "bad attribute count " + std::to_string(attributes));
  }

  const size_t expected = static_cast<size_t>(1 + per_tet + attributes);
  const int64_t first = nodes.base, last = nodes.base + static_cast<int64_t>(nodes.x.size()) - 1;
  int64_t base = 0;
  out->reserve(std::min<size_t>(static_cast<size_t>(count), text.size() / 10 + 1));
  for (size_t k = 0; k < static_cast<size_t>(count); ++k) {
    if (!lines.next()) {
      return lineError(file, lines.line(),
                       "expected " + std::to_string(count) + " tetrahedra, file ends after " +
                           std::to_string(k));
    }
    const int line = lines.line();
    const auto& tokens = lines.tokens();
    if (tokens.size() != expected) {
      return lineError(
          file, line,
          "expected " + std::to_string(expected) + " values, got " + std::to_string(tokens.size()));
    }
    if (Status s = checkIndex(file, line, tokens[0], k, "tetrahedron", &base); !s) return s;
    std::array<uint32_t, 4> tet;
    for (size_t c = 0; c < static_cast<size_t>(per_tet); ++c) {
      int64_t node = 0;
      if (!parseInt(tokens[1 + c], &node)) {
        return notANumber(file, line, tokens[1 + c], "an integer node index");
      }
      if (node < first || node > last) {
        return lineError(file, line,
                         "node " + std::to_string(node) + " out of range (nodes are numbered " +
                             std::to_string(first) + ".." + std::to_string(last) + ")");
      }
      if (c < 4) tet[c] = static_cast<uint32_t>(node - first);
    }
    for (size_t t = 1 + per_tet; t < tokens.size(); ++t) {
      double value = 0.0;
      if (!parseReal(tokens[t], &value)) return notANumber(file, line, tokens[t], "a number");
    }
    // every edge must join two distinct points
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) {
        std::string na = std::to_string(tet[a] + first), nb = std::to_string(tet[b] + first);
        if (tet[a] == tet[b]) {
          return lineError(file, line,
                           "tetrahedron " + std::string(tokens[0]) + " uses node " + na + " twice");
        }
        if (nodes.x[tet[a]] == nodes.x[tet[b]]) {
          return lineError(file, line,
                           "tetrahedron " + std::string(tokens[0]) + ": edge " + na + "-" + nb +
                               " has zero length (the two nodes coincide)");
        }
      }
    }
    out->push_back(tet);
  }
  return Status::ok();
}

glm::dvec3 toDouble(glm::vec3 v) {
  return glm::dvec3(v);
}

Status parseTetGenImpl(const std::string& node_text, const std::string& node_origin,
                       const std::string& ele_text, const std::string& ele_origin,
                       const Material& material, Scene* out) {
  TetGenNodes nodes;
  if (Status s = readNodeFile(node_origin, node_text, &nodes); !s) return s;
  std::vector<std::array<uint32_t, 4>> tets;
  if (Status s = readEleFile(ele_origin, ele_text, nodes, &tets); !s) return s;

  const SceneDefaults defaults = *builtinDefaults("volume");
  const float stiffness = material.stiffness.value_or(defaults.stiffness);
  const float damping = material.damping.value_or(defaults.damping);
  const double total_mass = material.mass.value_or(defaults.mass);
  const size_t n = nodes.x.size();

  Scene scene;
  scene.name = fs::path(node_origin).stem().string();
  scene.model.drag = material.drag.value_or(0.0f);
  scene.state.x = std::move(nodes.x);
  scene.state.v.assign(n, glm::vec3(0.0f));
  const std::vector<glm::vec3>& x = scene.state.x;

  // lumped masses: a quarter of each tet's volume to each of its nodes; nodes that get nothing
  // (in no tet, or only in flat ones) get the mean; then all scaled to the material's total
  std::vector<double> lumped(n, 0.0);
  for (const auto& t : tets) {
    glm::dvec3 p0 = toDouble(x[t[0]]);
    double volume =
        std::fabs(glm::dot(toDouble(x[t[1]]) - p0,
                           glm::cross(toDouble(x[t[2]]) - p0, toDouble(x[t[3]]) - p0))) /
        6.0;
    for (uint32_t node : t)
      lumped[node] += 0.25 * volume;
  }
  double sum = 0.0;
  size_t with_mass = 0;
  for (double m : lumped) {
    sum += m;
    if (m > 0.0) ++with_mass;
  }
  if (!(sum > 0.0) || !std::isfinite(sum)) {
    return Status::error(ele_origin + ": every tetrahedron has zero volume");
  }
  const double mean = sum / static_cast<double>(with_mass);
  for (double& m : lumped) {
    if (!(m > 0.0)) {
      m = mean;
      sum += mean;
    }
  }
  scene.model.mass.resize(n);
  for (size_t i = 0; i < n; ++i) {
    scene.model.mass[i] = static_cast<float>(lumped[i] * (total_mass / sum));
  }

  // pins: the top 5 % of the bounding box's height
  float lo = x[0].y, hi = x[0].y;
  for (const glm::vec3& p : x) {
    lo = std::min(lo, p.y);
    hi = std::max(hi, p.y);
  }
  const float pin_above = hi - 0.05f * (hi - lo);
  scene.model.pinned.resize(n);
  for (size_t i = 0; i < n; ++i)
    scene.model.pinned[i] = x[i].y >= pin_above ? 1 : 0;

  // springs on the unique tet edges, in order of (lower index, higher index)
  std::vector<uint64_t> edges;
  edges.reserve(tets.size() * 6);
  for (const auto& t : tets) {
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) {
        uint64_t lo_i = std::min(t[a], t[b]), hi_i = std::max(t[a], t[b]);
        edges.push_back(lo_i << 32 | hi_i);
      }
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  scene.model.spring_ends.reserve(edges.size());
  scene.model.rest_length.reserve(edges.size());
  scene.model.stiffness.reserve(edges.size());
  scene.model.damping.reserve(edges.size());
  for (uint64_t e : edges) {
    addSpring(scene, static_cast<uint32_t>(e >> 32), static_cast<uint32_t>(e & 0xffffffffu),
              stiffness, damping);
  }
  edges = std::vector<uint64_t>();

  // surface: faces used by exactly one tet, wound so the normal points away from the tet's
  // fourth vertex
  struct Face {
    std::array<uint32_t, 3> key;  // sorted
    glm::uvec3 tri;               // outward winding
  };
  std::vector<Face> faces;
  faces.reserve(tets.size() * 4);
  static constexpr int kFaces[4][4] = {{1, 2, 3, 0}, {0, 3, 2, 1}, {0, 1, 3, 2}, {0, 2, 1, 3}};
  for (const auto& t : tets) {
    for (const auto& f : kFaces) {
      glm::uvec3 tri(t[f[0]], t[f[1]], t[f[2]]);
      glm::dvec3 a = toDouble(x[tri.x]);
      glm::dvec3 normal = glm::cross(toDouble(x[tri.y]) - a, toDouble(x[tri.z]) - a);
      if (glm::dot(normal, toDouble(x[t[f[3]]]) - a) > 0.0) std::swap(tri.y, tri.z);
      std::array<uint32_t, 3> key{tri.x, tri.y, tri.z};
      std::sort(key.begin(), key.end());
      faces.push_back({key, tri});
    }
  }
  std::sort(faces.begin(), faces.end(), [](const Face& a, const Face& b) { return a.key < b.key; });
  for (size_t i = 0; i < faces.size();) {
    size_t j = i + 1;
    while (j < faces.size() && faces[j].key == faces[i].key)
      ++j;
    if (j - i == 1) scene.triangles.push_back(faces[i].tri);
    i = j;
  }

  if (Status s = validateScene(scene, node_origin); !s) return s;
  *out = std::move(scene);
  return Status::ok();
}

Status loadTetGenImpl(const std::string& node_path, const Material& material, Scene* out) {
  const std::string ele_path = fs::path(node_path).replace_extension(".ele").string();
  // the points first, so a broken .node is reported even when its .ele is missing
  std::string node_text, ele_text;
  if (Status s = readFile(node_path, &node_text); !s) return s;
  {
    TetGenNodes nodes;
    if (Status s = readNodeFile(node_path, node_text, &nodes); !s) return s;
  }
  if (Status s = readFile(ele_path, &ele_text); !s) {
    return Status::error(s.message() + " (the tetrahedra of " + node_path + ")");
  }
  return parseTetGenImpl(node_text, node_path, ele_text, ele_path, material, out);
}

// ---------------------------------------------------------------------------------------------
// files

Status writeFileAtomicImpl(const std::string& path, const std::string& text) {
  AtomicFile file;
  if (Status s = file.open(path); !s) return s;
  file.stream().write(text.data(), static_cast<std::streamsize>(text.size()));
  return file.commit();
}

Status readFileImpl(const std::string& path, std::string* out) {
  std::error_code ec;
  fs::file_status status = fs::status(fs::path(path), ec);
  if (ec || !fs::exists(status)) {
    return Status::error(
        path + ": cannot open: " + (ec ? ec.message() : std::string("no such file or directory")));
  }
  if (fs::is_directory(status)) return Status::error(path + ": cannot read: is a directory");
  if (fs::is_regular_file(status)) {
    uintmax_t size = fs::file_size(fs::path(path), ec);
    if (!ec && size > kMaxFileBytes) {
      return Status::error(path + ": too large (" + std::to_string(size) + " bytes)");
    }
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open: " + errnoText(errno));
  std::string text;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    text.append(buffer, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) return Status::error(path + ": too large");
  }
  if (in.bad()) return Status::error(path + ": read error: " + errnoText(errno));
  *out = std::move(text);
  return Status::ok();
}

std::string lowercase(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// runs body and turns any exception (allocation, filesystem) into an error naming origin
template <typename Body>
Status guarded(const std::string& origin, Body&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Status::error(origin + ": out of memory");
  } catch (const std::exception& e) {
    return Status::error(oneLine(origin + ": " + e.what()));
  } catch (...) {
    return Status::error(origin + ": unexpected error");
  }
}

// the duplicate spring with the lowest index and the spring it repeats, as (duplicate,
// original); {-1, -1} when every unordered pair is unique
std::pair<int64_t, int64_t> findDuplicateSpring(const Model& model, size_t n) {
  // bucket the springs by their lower end (a counting sort), then sort each bucket by upper end
  const size_t m = model.springCount();
  std::vector<uint32_t> start(n + 1, 0);
  for (const glm::uvec2& e : model.spring_ends)
    ++start[std::min(e.x, e.y) + 1];
  for (size_t i = 0; i < n; ++i)
    start[i + 1] += start[i];
  std::vector<uint32_t> order(m);
  {
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t k = 0; k < m; ++k) {
      const glm::uvec2& e = model.spring_ends[k];
      order[fill[std::min(e.x, e.y)]++] = static_cast<uint32_t>(k);
    }
  }
  auto upper = [&](uint32_t k) {
    const glm::uvec2& e = model.spring_ends[k];
    return std::max(e.x, e.y);
  };
  std::pair<int64_t, int64_t> found{-1, -1};
  for (size_t i = 0; i < n; ++i) {
    auto first = order.begin() + start[i], last = order.begin() + start[i + 1];
    if (last - first < 2) continue;
    // within a run of equal pairs the lowest spring index comes first: the original
    std::sort(first, last, [&](uint32_t a, uint32_t b) {
      return upper(a) != upper(b) ? upper(a) < upper(b) : a < b;
    });
    for (auto run = first; run != last;) {
      auto next = run + 1;
      while (next != last && upper(*next) == upper(*run))
        ++next;
      if (next - run > 1 && (found.first < 0 || run[1] < found.first)) found = {run[1], run[0]};
      run = next;
    }
  }
  return found;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// public functions

Status parseSceneJson(const std::string& text, const std::string& origin, Scene* out) {
  return guarded(origin, [&] { return parseSceneJsonImpl(text, origin, out); });
}

std::string sceneToJson(const Scene& scene) {
  try {
    const Model& model = scene.model;
    const size_t n = model.particleCount();
    std::string out;
    out.reserve(256 + n * 96 + model.springCount() * 72 + scene.triangles.size() * 24);
    out += "{\n  \"format\": \"hooke-scene\",\n  \"version\": 1,\n";
    if (!scene.name.empty()) {
      out +=
          "  \"name\": " + json(scene.name).dump(-1, ' ', false, json::error_handler_t::replace) +
          ",\n";
    }
    out += "  \"gravity\": ";
    appendVec3(out, model.gravity);
    out += ",\n  \"drag\": ";
    appendFloat(out, model.drag);
    out += ",\n";
    if (scene.driven_particle >= 0) {
      out += "  \"driven_particle\": " + std::to_string(scene.driven_particle) + ",\n";
    }

    // one particle, spring or triangle per line
    out += "  \"particles\": [";
    for (size_t i = 0; i < n; ++i) {
      out += i == 0 ? "\n    {\"x\": " : ",\n    {\"x\": ";
      appendVec3(out, i < scene.state.x.size() ? scene.state.x[i] : glm::vec3(NAN));
      out += ", \"v\": ";
      appendVec3(out, i < scene.state.v.size() ? scene.state.v[i] : glm::vec3(0.0f));
      out += ", \"m\": ";
      appendFloat(out, model.mass[i]);
      out += ", \"pinned\": ";
      out += i < model.pinned.size() && model.pinned[i] ? "true}" : "false}";
    }
    out += n == 0 ? "],\n" : "\n  ],\n";
    out += "  \"springs\": [";
    for (size_t k = 0; k < model.springCount(); ++k) {
      const glm::uvec2& e = model.spring_ends[k];
      out += k == 0 ? "\n    {\"i\": " : ",\n    {\"i\": ";
      out += std::to_string(e.x) + ", \"j\": " + std::to_string(e.y) + ", \"rest\": ";
      appendFloat(out, k < model.rest_length.size() ? model.rest_length[k] : NAN);
      out += ", \"k\": ";
      appendFloat(out, k < model.stiffness.size() ? model.stiffness[k] : NAN);
      out += ", \"c\": ";
      appendFloat(out, k < model.damping.size() ? model.damping[k] : NAN);
      out += '}';
    }
    out += model.springCount() == 0 ? "]" : "\n  ]";
    if (!scene.triangles.empty()) {
      out += ",\n  \"triangles\": [";
      for (size_t t = 0; t < scene.triangles.size(); ++t) {
        const glm::uvec3& tri = scene.triangles[t];
        out += t == 0 ? "\n    [" : ",\n    [";
        out += std::to_string(tri.x) + ", " + std::to_string(tri.y) + ", " + std::to_string(tri.z) +
               "]";
      }
      out += "\n  ]";
    }
    out += "\n}\n";
    return out;
  } catch (...) {
    return std::string();  // allocation failure: an empty text, which no reader accepts
  }
}

Status validateScene(const Scene& scene, const std::string& origin) {
  return guarded(origin, [&]() -> Status {
    const Model& model = scene.model;
    const size_t n = model.particleCount();

    // sizes
    if (n == 0) return fieldError(origin, {"", 0, "particles"}, "empty particle list");
    if (n >= std::numeric_limits<uint32_t>::max()) {
      return fieldError(origin, {"", 0, "particles"},
                        "too many particles (" + std::to_string(n) + ")");
    }
    if (model.pinned.size() != n || scene.state.x.size() != n || scene.state.v.size() != n) {
      return Status::error(origin + ": particle arrays differ in size (mass " + std::to_string(n) +
                           ", pinned " + std::to_string(model.pinned.size()) + ", x " +
                           std::to_string(scene.state.x.size()) + ", v " +
                           std::to_string(scene.state.v.size()) + ")");
    }
    const size_t m = model.springCount();
    if (model.rest_length.size() != m || model.stiffness.size() != m || model.damping.size() != m) {
      return Status::error(origin + ": spring arrays differ in size (ends " + std::to_string(m) +
                           ", rest " + std::to_string(model.rest_length.size()) + ", k " +
                           std::to_string(model.stiffness.size()) + ", c " +
                           std::to_string(model.damping.size()) + ")");
    }
    if (m >= std::numeric_limits<uint32_t>::max()) {
      return fieldError(origin, {"", 0, "springs"}, "too many springs (" + std::to_string(m) + ")");
    }

    // world
    if (!isFinite(model.gravity)) {
      return fieldError(origin, {"", 0, "gravity"}, "must be finite, got " + show(model.gravity));
    }
    if (!(std::isfinite(model.drag) && model.drag >= 0.0f)) {
      return fieldError(origin, {"", 0, "drag"},
                        "must be a finite number >= 0, got " + show(model.drag));
    }

    // particles
    for (size_t i = 0; i < n; ++i) {
      const bool pinned = model.pinned[i] != 0;
      if (!isFinite(scene.state.x[i])) {
        return fieldError(origin, {"particles", i, "x"},
                          "must be finite, got " + show(scene.state.x[i]));
      }
      if (!isFinite(scene.state.v[i])) {
        return fieldError(origin, {"particles", i, "v"},
                          "must be finite, got " + show(scene.state.v[i]));
      }
      if (pinned && scene.state.v[i] != glm::vec3(0.0f)) {
        return fieldError(origin, {"particles", i, "v"},
                          "must be 0 for a pinned particle, got " + show(scene.state.v[i]));
      }
      const float mass = model.mass[i];
      if (!pinned && !(std::isfinite(mass) && mass > 0.0f)) {
        return fieldError(origin, {"particles", i, "m"},
                          "must be a finite number > 0 for a free particle, got " + show(mass));
      }
      if (pinned && !(std::isfinite(mass) && mass >= 0.0f)) {
        return fieldError(origin, {"particles", i, "m"},
                          "must be a finite number >= 0, got " + show(mass));
      }
    }

    // springs
    const std::string particles = " (" + std::to_string(n) + " particles)";
    for (size_t k = 0; k < m; ++k) {
      const glm::uvec2& e = model.spring_ends[k];
      if (e.x >= n) {
        return fieldError(origin, {"springs", k, "i"},
                          "index " + std::to_string(e.x) + " out of range" + particles);
      }
      if (e.y >= n) {
        return fieldError(origin, {"springs", k, "j"},
                          "index " + std::to_string(e.y) + " out of range" + particles);
      }
      if (e.x == e.y) {
        return fieldError(origin, {"springs", k, ""},
                          "i == j (self-spring on particle " + std::to_string(e.x) + ")");
      }
      const float rest = model.rest_length[k], stiffness = model.stiffness[k],
                  damping = model.damping[k];
      if (!(std::isfinite(rest) && rest > 0.0f)) {
        return fieldError(origin, {"springs", k, "rest"},
                          "rest must be a finite number > 0, got " + show(rest));
      }
      if (!(std::isfinite(stiffness) && stiffness >= 0.0f)) {
        return fieldError(origin, {"springs", k, "k"},
                          "k must be a finite number >= 0, got " + show(stiffness));
      }
      if (!(std::isfinite(damping) && damping >= 0.0f)) {
        return fieldError(origin, {"springs", k, "c"},
                          "c must be a finite number >= 0, got " + show(damping));
      }
    }
    if (auto [duplicate, original] = findDuplicateSpring(model, n); duplicate >= 0) {
      const glm::uvec2& e = model.spring_ends[static_cast<size_t>(duplicate)];
      return fieldError(origin, {"springs", static_cast<size_t>(duplicate), ""},
                        "duplicate spring: springs[" + std::to_string(original) +
                            "] already joins particles " + std::to_string(e.x) + " and " +
                            std::to_string(e.y));
    }

    // rendering extras
    for (size_t t = 0; t < scene.triangles.size(); ++t) {
      for (int c = 0; c < 3; ++c) {
        if (scene.triangles[t][c] >= n) {
          return fieldError(
              origin, Where{"triangles", t, ""}.at(c),
              "index " + std::to_string(scene.triangles[t][c]) + " out of range" + particles);
        }
      }
    }
    if (scene.driven_particle < -1 || scene.driven_particle >= static_cast<int64_t>(n)) {
      return fieldError(origin, {"", 0, "driven_particle"},
                        "index " + std::to_string(scene.driven_particle) + " out of range (" +
                            std::to_string(n) + " particles; -1 for none)");
    }
    return Status::ok();
  });
}

Status loadTetGen(const std::string& node_path, const Material& material, Scene* out) {
  return guarded(node_path, [&] { return loadTetGenImpl(node_path, material, out); });
}

Status parseTetGen(const std::string& node_text, const std::string& node_origin,
                   const std::string& ele_text, const std::string& ele_origin,
                   const Material& material, Scene* out) {
  return guarded(node_origin, [&] {
    return parseTetGenImpl(node_text, node_origin, ele_text, ele_origin, material, out);
  });
}

Status loadSceneFile(const std::string& path, const Material& material, Scene* out) {
  return guarded(path, [&]() -> Status {
    const std::string extension = lowercase(fs::path(path).extension().string());
    if (extension == ".node") return loadTetGen(path, material, out);
    if (extension == ".ele") {
      return Status::error(path +
                           ": load a TetGen mesh by its .node file (the .ele beside it is "
                           "read with it)");
    }
    if (extension != ".json") {
      return Status::error(path + ": unknown scene file type '" + extension +
                           "' (expected .json or .node)");
    }
    std::string text;
    if (Status s = readFile(path, &text); !s) return s;
    Scene scene;
    if (Status s = parseSceneJson(text, path, &scene); !s) return s;
    applyMaterialOverrides(material, &scene);
    if (Status s = validateScene(scene, path); !s) return s;
    *out = std::move(scene);
    return Status::ok();
  });
}

void applyMaterialOverrides(const Material& material, Scene* scene) {
  Model& model = scene->model;
  if (material.stiffness)
    std::fill(model.stiffness.begin(), model.stiffness.end(), *material.stiffness);
  if (material.damping) std::fill(model.damping.begin(), model.damping.end(), *material.damping);
  if (material.mass) {
    for (size_t i = 0; i < model.mass.size(); ++i) {
      if (i >= model.pinned.size() || !model.pinned[i]) model.mass[i] = *material.mass;
    }
  }
  if (material.drag) model.drag = *material.drag;
}

Status writeFileAtomic(const std::string& path, const std::string& text) {
  return guarded(path, [&] { return writeFileAtomicImpl(path, text); });
}

Status readFile(const std::string& path, std::string* out) {
  return guarded(path, [&] { return readFileImpl(path, out); });
}

}  // namespace hooke
