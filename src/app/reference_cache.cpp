// Reading and writing cached reference runs as JSON.
#include "app/reference_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"

namespace hooke {

namespace {

nlohmann::json vectors(const std::vector<glm::vec3>& v) {
  std::vector<float> flat;
  flat.reserve(v.size() * 3);
  for (const glm::vec3& p : v) {
    flat.push_back(p.x);
    flat.push_back(p.y);
    flat.push_back(p.z);
  }
  return flat;
}

bool readVectors(const nlohmann::json& j, size_t n, std::vector<glm::vec3>* out) {
  if (!j.is_array() || j.size() != 3 * n) return false;
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      if (!j[3 * i + size_t(c)].is_number()) return false;
      (*out)[i][c] = j[3 * i + size_t(c)].get<float>();
    }
  }
  return true;
}

// true when the file holds the reference of this key for these times and particles
bool load(const std::filesystem::path& path, const std::string& key, std::span<const double> times,
          size_t particles, Reference* out) {
  std::ifstream in(path);
  if (!in) return false;
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object() || j.value("key", "") != key) return false;
  const nlohmann::json& states = j["states"];
  if (!states.is_array() || states.size() != times.size()) return false;
  Reference r;
  r.times.assign(times.begin(), times.end());
  for (const nlohmann::json& s : states) {
    State st;
    if (!s.is_object() || !s["energy"].is_number() || !readVectors(s["x"], particles, &st.x) ||
        !readVectors(s["v"], particles, &st.v)) {
      return false;
    }
    r.energies.push_back(s["energy"].get<double>());
    r.states.push_back(std::move(st));
  }
  *out = std::move(r);
  return true;
}

}  // namespace

std::string defaultReferenceCacheDir() {
  if (const char* dir = std::getenv("HOOKE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return (std::filesystem::path(xdg) / "hooke" / "references").string();
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return (std::filesystem::path(home) / ".cache" / "hooke" / "references").string();
  }
  return "";
}

Status cachedReference(const std::string& dir, const Scene& scene, std::span<const double> times,
                       const ReferenceSpec& spec, Reference* out, bool* from_cache) {
  namespace fs = std::filesystem;
  *from_cache = false;
  const std::string key = referenceKey(scene, times, spec);
  const fs::path path = dir.empty() ? fs::path() : fs::path(dir) / ("reference-" + key + ".json");
  if (!dir.empty() && load(path, key, times, scene.model.particleCount(), out)) {
    *from_cache = true;
    return Status::ok();
  }
  if (Status s = computeReference(scene, times, spec, out); !s) return s;
  if (dir.empty()) return Status::ok();

  nlohmann::json j;
  j["key"] = key;
  j["scene"] = scene.name;
  j["integrator"] = std::string(integratorName(spec.integrator));
  j["dt"] = spec.dt;
  nlohmann::json states = nlohmann::json::array();
  for (size_t i = 0; i < out->times.size(); ++i) {
    states.push_back({{"time", out->times[i]},
                      {"energy", out->energies[i]},
                      {"x", vectors(out->states[i].x)},
                      {"v", vectors(out->states[i].v)}});
  }
  j["states"] = std::move(states);
  std::error_code ec;
  fs::create_directories(dir, ec);
  AtomicFile file;
  if (!ec && file.open(path.string())) {
    file.stream() << j.dump() << '\n';
    (void)file.commit();  // a cache that cannot be written is only slower next time
  }
  return Status::ok();
}

}  // namespace hooke
