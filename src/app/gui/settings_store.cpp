// Settings file: JSON in and out, each field checked against the range the app accepts for it.
#include "app/gui/settings_store.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/gui/sweep_job.h"
#include "io/scene_file.h"
#include "sim/scenes.h"

namespace hooke {

namespace {

using nlohmann::json;

constexpr int kVersion = 1;
constexpr double kMaxFloat = double(std::numeric_limits<float>::max());

// Reads the fields of one JSON object into settings, noting every field it had to drop.
class Reader {
 public:
  explicit Reader(std::vector<std::string>* dropped) : dropped_(dropped) {}

  // the member `key` of `object` as an object; nullptr (noted) when present but not one
  const json* object(const json& parent, const char* key, const std::string& name) {
    auto it = parent.find(key);
    if (it == parent.end()) return nullptr;
    if (!it->is_object()) {
      drop(name, "not an object");
      return nullptr;
    }
    return &*it;
  }

  // a number in [lo, hi] (open ends where asked); the field keeps its default otherwise
  template <typename T>
  void number(const json* parent, const char* key, const std::string& name, double lo, double hi,
              T* out, bool open_lo = false, bool open_hi = false) {
    const json* v = member(parent, key);
    if (!v) return;
    if (!v->is_number()) return drop(name + "." + key, "not a number");
    const double x = v->get<double>();
    const bool in =
        std::isfinite(x) && (open_lo ? x > lo : x >= lo) && (open_hi ? x < hi : x <= hi);
    if (!in) return drop(name + "." + key, "out of range");
    if constexpr (std::is_integral_v<T>) {
      if (x != std::floor(x)) return drop(name + "." + key, "not an integer");
    }
    *out = static_cast<T>(x);
  }

  void boolean(const json* parent, const char* key, const std::string& name, bool* out) {
    const json* v = member(parent, key);
    if (!v) return;
    if (!v->is_boolean()) return drop(name + "." + key, "not true or false");
    *out = v->get<bool>();
  }

  // a string, no longer than max_length, with no control characters
  bool string(const json* parent, const char* key, const std::string& name, size_t max_length,
              std::string* out) {
    const json* v = member(parent, key);
    if (!v) return false;
    if (!v->is_string()) {
      drop(name.empty() ? key : name + "." + key, "not a string");
      return false;
    }
    const std::string& s = v->get_ref<const std::string&>();
    bool clean = !s.empty() && s.size() <= max_length;
    for (unsigned char c : s)
      clean = clean && c >= 0x20 && c != 0x7f;
    if (!clean) {
      drop(name.empty() ? key : name + "." + key, "empty, too long or not printable");
      return false;
    }
    *out = s;
    return true;
  }

  void drop(const std::string& field, const std::string& why) {
    dropped_->push_back(field + " (" + why + ")");
  }

 private:
  const json* member(const json* parent, const char* key) {
    if (!parent) return nullptr;
    auto it = parent->find(key);
    return it == parent->end() ? nullptr : &*it;
  }

  std::vector<std::string>* dropped_;
};

void readScene(Reader& r, const json& root, StoredSettings* s) {
  const json* scene = r.object(root, "scene", "scene");
  std::string name;
  if (r.string(scene, "name", "scene", 1000, &name)) s->scene = name;
  r.number(scene, "cloth_res", "scene", 2, maxBuiltinRes("cloth"), &s->cloth_res);
  r.number(scene, "volume_res", "scene", 2, maxBuiltinRes("volume"), &s->volume_res);
}

void readSolver(Reader& r, const json& root, StoredSettings* s) {
  std::string backend;
  if (r.string(&root, "backend", "", 16, &backend)) {
    if (backend == "auto" || backend == "cpu" || backend == "cuda") {
      s->backend = backend;
    } else {
      r.drop("backend", "not auto, cpu or cuda");
    }
  }
  const json* solver = r.object(root, "solver", "solver");
  std::string integrator;
  if (r.string(solver, "integrator", "solver", 32, &integrator)) {
    Integrator parsed;
    if (parseIntegrator(integrator, &parsed)) {
      s->solver.integrator = parsed;
    } else {
      r.drop("solver.integrator", "unknown integrator");
    }
  }
  r.number(solver, "tolerance", "solver", 0.0, 1.0, &s->solver.tolerance, true, true);
  r.number(solver, "max_iterations", "solver", 1, 1e6, &s->solver.max_iterations);
  r.number(solver, "newton_tolerance", "solver", 0.0, 1.0, &s->solver.newton_tolerance, true, true);
  r.number(solver, "newton_max_iterations", "solver", 1, 1000, &s->solver.newton_max_iterations);

  const json* time = r.object(root, "time", "time");
  r.number(time, "dt", "time", 0.0, 10.0, &s->time.dt, true);
  r.boolean(time, "auto_skip", "time", &s->time.auto_skip);
  r.number(time, "manual_skip", "time", 0, TimeSettings::kMaxManualSkip, &s->time.manual_skip);
  r.number(time, "time_scale", "time", 0.05, 4.0, &s->time.time_scale);
}

void readMaterial(Reader& r, const json& root, StoredSettings* s) {
  const json* material = r.object(root, "material", "material");
  if (!material) return;
  // all five or none: a material is one choice
  MaterialSettings m;
  std::vector<std::string> problems;
  Reader strict(&problems);
  for (const char* key : {"stiffness", "damping", "mass", "gravity", "drag"}) {
    if (!material->contains(key)) problems.push_back(std::string("material.") + key + " (missing)");
  }
  strict.number(material, "stiffness", "material", 0.0, kMaxFloat, &m.stiffness);
  strict.number(material, "damping", "material", 0.0, kMaxFloat, &m.damping);
  strict.number(material, "mass", "material", 0.0, kMaxFloat, &m.mass, true);
  strict.number(material, "gravity", "material", 0.0, 1000.0, &m.gravity);
  strict.number(material, "drag", "material", 0.0, kMaxFloat, &m.drag);
  if (problems.empty()) {
    s->material = m;
  } else {
    r.drop(problems.front(), "so the scene's own material is used");
  }
}

void readView(Reader& r, const json& root, StoredSettings* s) {
  if (const json* camera = r.object(root, "camera", "camera")) {
    CameraSettings c;
    std::vector<std::string> problems;
    Reader strict(&problems);
    strict.number(camera, "yaw", "camera", -1e6, 1e6, &c.yaw_degrees);
    strict.number(camera, "pitch", "camera", -89.0, 89.0, &c.pitch_degrees);
    strict.number(camera, "distance", "camera", 0.0, 1e6, &c.distance, true);
    auto target = camera->find("target");
    bool target_ok = target != camera->end() && target->is_array() && target->size() == 3;
    for (size_t i = 0; target_ok && i < 3; ++i) {
      const json& v = (*target)[i];
      target_ok =
          v.is_number() && std::isfinite(v.get<double>()) && std::abs(v.get<double>()) <= 1e6;
      if (target_ok) c.target[int(i)] = v.get<float>();
    }
    if (!target_ok) problems.push_back("camera.target (not three finite numbers)");
    for (const char* key : {"yaw", "pitch", "distance"}) {
      if (!camera->contains(key)) problems.push_back(std::string("camera.") + key + " (missing)");
    }
    if (problems.empty()) {
      s->camera = c;
    } else {
      r.drop(problems.front(), "so the view is framed on the scene");
    }
  }
  const json* window = r.object(root, "window", "window");
  r.number(window, "width", "window", 200, 16384, &s->window_width);
  r.number(window, "height", "window", 200, 16384, &s->window_height);
  const json* view = r.object(root, "view", "view");
  r.boolean(view, "panels", "view", &s->show_panels);
  r.boolean(view, "body", "view", &s->draw_body);
  r.boolean(view, "springs", "view", &s->draw_springs);
  r.boolean(view, "particles", "view", &s->draw_particles);
  r.boolean(view, "ground", "view", &s->draw_ground);
  r.boolean(view, "shadow", "view", &s->draw_shadow);
  r.number(view, "strain_full_scale", "view", 0.0, 1.0, &s->strain_full_scale, true);
}

// two numbers lo < hi in (0, max]; both kept or both dropped
bool range(Reader& r, const json* parent, const char* key, const std::string& name, double max,
           double* lo, double* hi) {
  if (!parent) return false;
  auto it = parent->find(key);
  if (it == parent->end()) return false;
  const json& v = *it;
  const bool pair = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number();
  const double a = pair ? v[0].get<double>() : 0.0, b = pair ? v[1].get<double>() : 0.0;
  if (!pair || !std::isfinite(a) || !std::isfinite(b) || !(a > 0.0) || !(a < b) || b > max) {
    r.drop(name + "." + key, "not two increasing numbers in (0, " + json(max).dump() + "]");
    return false;
  }
  *lo = a;
  *hi = b;
  return true;
}

void readCompareAndSweep(Reader& r, const json& root, StoredSettings* s) {
  const json* compare = r.object(root, "compare", "compare");
  std::string text;
  if (r.string(compare, "integrator", "compare", 32, &text)) {
    Integrator parsed;
    if (parseIntegrator(text, &parsed)) {
      s->compare_integrator = parsed;
    } else {
      r.drop("compare.integrator", "unknown integrator");
    }
  }
  if (r.string(compare, "view", "compare", 16, &text)) {
    if (text == "overlay" || text == "split") {
      s->compare_view = text == "split" ? CompareView::kSplit : CompareView::kOverlay;
    } else {
      r.drop("compare.view", "not overlay or split");
    }
  }

  const json* sweep = r.object(root, "sweep", "sweep");
  if (!sweep) return;
  StoredSweep& w = s->sweep;
  if (auto it = sweep->find("integrators"); it != sweep->end()) {
    std::array<bool, 5> chosen{};
    bool ok = it->is_array();
    for (size_t i = 0; ok && i < it->size(); ++i) {
      Integrator parsed;
      ok = (*it)[i].is_string() && parseIntegrator((*it)[i].get<std::string>(), &parsed);
      for (size_t k = 0; ok && k < chosen.size(); ++k) {
        if (kAllIntegrators[k] == parsed) chosen[k] = true;
      }
    }
    if (ok) {
      w.integrators = chosen;
    } else {
      r.drop("sweep.integrators", "not a list of integrator names");
    }
  }
  range(r, sweep, "dt", "sweep", 10.0, &w.dt_min, &w.dt_max);
  range(r, sweep, "k", "sweep", 1e12, &w.k_min, &w.k_max);
  r.number(sweep, "dt_cells", "sweep", 2, kMaxSweepCells, &w.dt_cells);
  r.number(sweep, "k_cells", "sweep", 2, kMaxSweepCells, &w.k_cells);
  r.number(sweep, "duration", "sweep", 0.05, 10.0, &w.duration);
}

std::string joinDropped(const std::vector<std::string>& dropped) {
  std::string out;
  for (size_t i = 0; i < dropped.size() && i < 4; ++i)
    out += (i ? ", " : "") + dropped[i];
  if (dropped.size() > 4) out += " and " + std::to_string(dropped.size() - 4) + " more";
  return out;
}

}  // namespace

bool StoredSettings::operator==(const StoredSettings& o) const {
  const SolverSettings &a = solver, &b = o.solver;
  const bool same_solver = a.integrator == b.integrator && a.tolerance == b.tolerance &&
                           a.max_iterations == b.max_iterations &&
                           a.newton_tolerance == b.newton_tolerance &&
                           a.newton_max_iterations == b.newton_max_iterations;
  return same_solver && scene == o.scene && cloth_res == o.cloth_res &&
         volume_res == o.volume_res && backend == o.backend && time == o.time &&
         material == o.material && camera == o.camera && window_width == o.window_width &&
         window_height == o.window_height && show_panels == o.show_panels &&
         draw_body == o.draw_body && draw_springs == o.draw_springs &&
         draw_particles == o.draw_particles && draw_ground == o.draw_ground &&
         draw_shadow == o.draw_shadow && strain_full_scale == o.strain_full_scale &&
         compare_integrator == o.compare_integrator && compare_view == o.compare_view &&
         sweep == o.sweep;
}

std::string defaultSettingsPath() {
  namespace fs = std::filesystem;
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  if (xdg && *xdg && fs::path(xdg).is_absolute()) {
    return (fs::path(xdg) / "hooke" / "settings.json").string();
  }
  const char* home = std::getenv("HOME");
  if (home && *home) return (fs::path(home) / ".config" / "hooke" / "settings.json").string();
  return "";
}

StoredSettings parseSettings(std::string_view text, std::string* warning) {
  warning->clear();
  StoredSettings settings;
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {
    std::string what = e.what();
    // nlohmann's messages start with "[json.exception.parse_error.101] "
    if (const size_t bracket = what.find("] "); bracket != std::string::npos) {
      what.erase(0, bracket + 2);
    }
    *warning = "not valid JSON (" + what + "); using the defaults";
    return settings;
  }
  if (!root.is_object()) {
    *warning = "not a JSON object; using the defaults";
    return settings;
  }
  std::vector<std::string> dropped;
  Reader r(&dropped);
  readScene(r, root, &settings);
  readSolver(r, root, &settings);
  readMaterial(r, root, &settings);
  readView(r, root, &settings);
  readCompareAndSweep(r, root, &settings);
  if (!dropped.empty()) *warning = "defaults used for " + joinDropped(dropped);
  return settings;
}

StoredSettings loadSettings(const std::string& path, std::string* warning) {
  warning->clear();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return StoredSettings{};
  std::string text;
  if (Status s = readFile(path, &text); !s) {
    *warning = "settings not read: " + s.message() + "; using the defaults";
    return StoredSettings{};
  }
  StoredSettings settings = parseSettings(text, warning);
  if (!warning->empty()) *warning = "settings file " + path + ": " + *warning;
  return settings;
}

std::string settingsToJson(const StoredSettings& s) {
  json root = {
      {"version", kVersion},
      {"scene", {{"name", s.scene}, {"cloth_res", s.cloth_res}, {"volume_res", s.volume_res}}},
      {"backend", s.backend},
      {"solver",
       {{"integrator", std::string(integratorName(s.solver.integrator))},
        {"tolerance", s.solver.tolerance},
        {"max_iterations", s.solver.max_iterations},
        {"newton_tolerance", s.solver.newton_tolerance},
        {"newton_max_iterations", s.solver.newton_max_iterations}}},
      {"time",
       {{"dt", s.time.dt},
        {"auto_skip", s.time.auto_skip},
        {"manual_skip", s.time.manual_skip},
        {"time_scale", s.time.time_scale}}},
      {"window", {{"width", s.window_width}, {"height", s.window_height}}},
      {"view",
       {{"panels", s.show_panels},
        {"body", s.draw_body},
        {"springs", s.draw_springs},
        {"particles", s.draw_particles},
        {"ground", s.draw_ground},
        {"shadow", s.draw_shadow},
        {"strain_full_scale", s.strain_full_scale}}}};
  root["compare"] = {{"integrator", std::string(integratorName(s.compare_integrator))},
                     {"view", s.compare_view == CompareView::kSplit ? "split" : "overlay"}};
  json integrators = json::array();
  for (size_t k = 0; k < s.sweep.integrators.size(); ++k) {
    if (s.sweep.integrators[k])
      integrators.push_back(std::string(integratorName(kAllIntegrators[k])));
  }
  root["sweep"] = {{"integrators", integrators},          {"dt", {s.sweep.dt_min, s.sweep.dt_max}},
                   {"k", {s.sweep.k_min, s.sweep.k_max}}, {"dt_cells", s.sweep.dt_cells},
                   {"k_cells", s.sweep.k_cells},          {"duration", s.sweep.duration}};
  if (s.material) {
    const MaterialSettings& m = *s.material;
    root["material"] = {{"stiffness", m.stiffness},
                        {"damping", m.damping},
                        {"mass", m.mass},
                        {"gravity", m.gravity},
                        {"drag", m.drag}};
  }
  if (s.camera) {
    const CameraSettings& c = *s.camera;
    root["camera"] = {{"yaw", c.yaw_degrees},
                      {"pitch", c.pitch_degrees},
                      {"distance", c.distance},
                      {"target", {c.target.x, c.target.y, c.target.z}}};
  }
  return root.dump(2) + "\n";
}

Status saveSettings(const std::string& path, const StoredSettings& settings) {
  if (path.empty()) return Status::error("no settings path (neither XDG_CONFIG_HOME nor HOME set)");
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    std::filesystem::create_directories(parent, ec);
    if (ec) return Status::error(path + ": cannot create its directory (" + ec.message() + ")");
  }
  return writeFileAtomic(path, settingsToJson(settings));
}

}  // namespace hooke
