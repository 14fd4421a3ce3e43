// The host-memory estimate and what the system, the cgroup and the process limits leave free.
#include "app/memory_budget.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <sys/resource.h>

namespace hooke {

namespace {

// a number from a one-line file such as /sys/fs/cgroup/memory.max ("max" means none)
std::optional<uint64_t> readNumberFile(const char* path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::stoull(text);
  } catch (...) {
    return std::nullopt;
  }
}

// MemAvailable from /proc/meminfo, in bytes
std::optional<uint64_t> memAvailable() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

std::string gib(uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", double(bytes) / double(uint64_t{1} << 30));
  return text;
}

}  // namespace

uint64_t estimateHostBytes(uint64_t particles, uint64_t springs) {
  // saturating: counts from a file header can be anything
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  auto times = [](uint64_t a, uint64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; };
  const uint64_t p = times(particles, kHostBytesPerParticle);
  const uint64_t s = times(springs, kHostBytesPerSpring);
  if (p > kMax - s || p + s > kMax - kHostBytesBase) return kMax;
  return kHostBytesBase + p + s;
}

std::optional<uint64_t> availableHostBytes() {
  std::optional<uint64_t> best = memAvailable();
  auto take = [&](uint64_t bytes) { best = best ? std::min(*best, bytes) : bytes; };

  // a container's limit (cgroup v2, then v1), less what the group already uses
  std::optional<uint64_t> limit = readNumberFile("/sys/fs/cgroup/memory.max");
  std::optional<uint64_t> used = readNumberFile("/sys/fs/cgroup/memory.current");
  if (!limit) {
    limit = readNumberFile("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    used = readNumberFile("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  if (limit && *limit < (uint64_t{1} << 60)) take(*limit - std::min(*limit, used.value_or(0)));

  // the process's own limits (ulimit -v, ulimit -d); what is mapped already is not subtracted,
  // so this errs on the generous side
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    rlimit r{};
    if (::getrlimit(resource, &r) == 0 && r.rlim_cur != RLIM_INFINITY) take(r.rlim_cur);
  }
  return best;
}

Status checkHostMemory(std::string_view what, uint64_t particles, uint64_t springs,
                       std::optional<uint64_t> available) {
  if (!available) return Status::ok();
  const uint64_t need = estimateHostBytes(particles, springs);
  if (need <= *available) return Status::ok();
  return Status::error(std::string(what) + ": " + std::to_string(particles) + " particles and " +
                       std::to_string(springs) + " springs need about " + gib(need) +
                       " GiB of memory, only " + gib(*available) + " GiB is available");
}

Status checkSceneFileMemory(const std::string& path, std::optional<uint64_t> available) {
  namespace fs = std::filesystem;
  if (!available) return Status::ok();
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) return Status::ok();
  const std::string extension = fs::path(path).extension().string();
  uint64_t need = 0;
  if (extension == ".node") {
    fs::path ele = fs::path(path).replace_extension(".ele");
    const uint64_t ele_size = fs::file_size(ele, ec);
    need = (size + (ec ? 0 : ele_size)) * kTetGenBytesPerFileByte;
  } else {
    need = size > std::numeric_limits<uint64_t>::max() / kJsonBytesPerFileByte
               ? std::numeric_limits<uint64_t>::max()
               : size * kJsonBytesPerFileByte;
  }
  need = std::min(need, std::numeric_limits<uint64_t>::max() - kHostBytesBase) + kHostBytesBase;
  if (need <= *available) return Status::ok();
  return Status::error(path + ": reading this " + gib(size) + " GiB scene file needs about " +
                       gib(need) + " GiB of memory, only " + gib(*available) + " GiB is available");
}

void builtinSceneCounts(std::string_view name, int res, uint64_t* particles, uint64_t* springs) {
  const uint64_t r = uint64_t(std::max(res, 0));
  if (name == "cloth") {
    *particles = r * r;
    *springs = 6 * *particles;
  } else if (name == "volume") {
    const uint64_t side = std::max<uint64_t>(2, r / 2);
    *particles = r * side * side;
    *springs = 13 * *particles;
  } else {
    *particles = 2;
    *springs = 1;
  }
}

}  // namespace hooke
