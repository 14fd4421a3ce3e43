// hooke-interop-bench: the per-frame cost of writing the visual state into the GL vertex buffer,
// CUDA–GL interop (map + write + unmap) against the CPU path (read back, normals, upload), on an
// EGL context. Measures only; asserts nothing and never changes what it measures.
#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "bench/whole_number.h"
#include "cuda/cuda_backend.h"
#include "cuda/gl_interop.h"
#include "render/egl_context.h"
#include "render/mesh_normals.h"
#include "render/renderer.h"
#include "render/vertex_buffer.h"
#include "sim/scenes.h"

#ifndef HOOKE_GIT_COMMIT
#define HOOKE_GIT_COMMIT "unknown"
#endif

namespace hooke {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// median, 10th and 90th percentiles (nearest rank) of a sample
struct Summary {
  double median = 0.0, p10 = 0.0, p90 = 0.0;
};
Summary summarise(std::vector<double> v) {
  Summary s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    return v[std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5))];
  };
  s.median = at(0.5);
  s.p10 = at(0.1);
  s.p90 = at(0.9);
  return s;
}
Json toJson(const Summary& s) {
  return Json{{"median", s.median}, {"p10", s.p10}, {"p90", s.p90}};
}

struct Options {
  std::vector<int> resolutions = {128, 256, 512, 1024};
  int frames = 300;     // interop frames measured per resolution (after 20 warm-up frames)
  int cpu_frames = 30;  // CPU-path frames per resolution
  std::string out;      // JSON file; stdout table only when empty
  std::string commit = HOOKE_GIT_COMMIT;
};

bool parse(int argc, char** argv, Options* o) {
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    const bool has_value = k + 1 < argc;
    if (a == "--res" && has_value) {
      o->resolutions.clear();
      const std::string text = argv[++k];
      std::stringstream list(text);
      for (std::string item; std::getline(list, item, ',');) {
        int res = 0;
        if (!bench::parseWholeNumber(item.c_str(), 2, 2048, &res)) {
          std::fprintf(stderr,
                       "hooke-interop-bench: --res takes cloth resolutions from 2 to 2048, "
                       "comma-separated, not '%s'\n",
                       text.c_str());
          return false;
        }
        o->resolutions.push_back(res);
      }
      if (o->resolutions.empty()) {
        std::fprintf(stderr, "hooke-interop-bench: --res needs at least one resolution\n");
        return false;
      }
    } else if ((a == "--frames" || a == "--cpu-frames") && has_value) {
      const char* text = argv[++k];
      if (!bench::parseWholeNumber(text, 1, 1000000,
                                   a == "--frames" ? &o->frames : &o->cpu_frames)) {
        std::fprintf(stderr, "hooke-interop-bench: %s takes a count from 1 to 1000000, not '%s'\n",
                     a.c_str(), text);
        return false;
      }
    } else if (a == "--out" && has_value) {
      o->out = argv[++k];
    } else if (a == "--commit" && has_value) {
      o->commit = argv[++k];
    } else {
      std::fprintf(stderr,
                   "usage: hooke-interop-bench [--res 128,256,512,1024] [--frames 300] "
                   "[--cpu-frames 30] [--out FILE.json] [--commit SHA]\n");
      return false;
    }
  }
  return true;
}

GlVertexTarget targetOf(const VertexBufferLayout& l) {
  return GlVertexTarget{l.buffer,        l.vertex_count, l.position_offset,
                        l.normal_offset, l.stride,       l.size_bytes};
}

// One cloth resolution: the interop frames and the CPU-path frames, as JSON.
Status measure(int res, const Options& o, Renderer& renderer, Json* out) {
  const Scene scene = makeCloth(res, Material{});
  const size_t n = scene.model.particleCount();
  std::string why;
  std::unique_ptr<Backend> backend = createCudaBackend(CudaOptions{}, &why);
  if (!backend) return Status::error("no CUDA backend: " + why);
  if (Status s = backend->load(scene.model, scene.state); !s) return s;
  SolverSettings settings;
  settings.max_iterations = 100;
  backend->setSettings(settings);
  // two implicit steps, so previous and current differ and the normals are not the flat sheet's
  for (int k = 0; k < 2; ++k) {
    StepStats stats;
    if (Status s = backend->step(0.03f, {}, &stats); !s) return s;
  }
  if (Status s = renderer.setScene(scene); !s) return s;
  const VertexBufferLayout layout = renderer.vertexBuffer();

  GlInteropWriter writer;
  if (Status s = writer.attach(targetOf(layout), scene.triangles, 0); !s) return s;

  // interop, measured: events on the stream around map, kernels and unmap, then a sync; GL idle
  // (glFinish, not timed) before every frame
  std::vector<double> gpu_map, gpu_write, gpu_unmap, gpu_total, host_map, host_unmap, wall;
  for (int f = -20; f < o.frames; ++f) {
    glFinish();
    const float alpha = float((f + 21) % 3 + 1) / 3.0f;
    InteropTiming t;
    const Clock::time_point start = Clock::now();
    if (Status s = writer.write(*backend, alpha, &t); !s) return s;
    const double frame_ms = msSince(start);
    renderer.positionsWritten();
    if (f < 0) continue;
    gpu_map.push_back(t.gpu_map_ms);
    gpu_write.push_back(t.gpu_write_ms);
    gpu_unmap.push_back(t.gpu_unmap_ms);
    gpu_total.push_back(t.gpu_total_ms);
    host_map.push_back(t.host_map_ms);
    host_unmap.push_back(t.host_unmap_ms);
    wall.push_back(frame_ms);
  }
  // interop as a frame loop pays it on the CPU: the calls only, no sync (the GPU work overlaps)
  std::vector<double> async_call;
  for (int f = 0; f < o.frames; ++f) {
    glFinish();
    cudaDeviceSynchronize();
    const Clock::time_point start = Clock::now();
    if (Status s = writer.write(*backend, float(f % 3 + 1) / 3.0f); !s) return s;
    async_call.push_back(msSince(start));
  }
  cudaDeviceSynchronize();
  writer.detach();

  // the CPU path for the same backend: positions back to the host (writeVisual), normals on the
  // host, one upload of both blocks; then each part alone
  std::vector<glm::vec3> positions(n), normals(n);
  std::vector<double> readback, host_normals, upload, cpu_total;
  VertexBuffer spare;
  if (Status s = spare.allocate(n); !s) return s;
  for (int f = 0; f < o.cpu_frames; ++f) {
    glFinish();
    const float alpha = float(f % 3 + 1) / 3.0f;
    Clock::time_point start = Clock::now();
    backend->writeVisual(alpha, positions);
    renderer.setPositions(positions);
    glFinish();
    cpu_total.push_back(msSince(start));

    start = Clock::now();
    backend->writeVisual(alpha, positions);
    readback.push_back(msSince(start));
    start = Clock::now();
    computeVertexNormals(positions, scene.triangles, normals);
    host_normals.push_back(msSince(start));
    glFinish();
    start = Clock::now();
    spare.upload(positions, normals);
    glFinish();
    upload.push_back(msSince(start));
  }

  const Summary w = summarise(wall), c = summarise(cpu_total);
  *out = Json{{"res", res},
              {"particles", n},
              {"triangles", scene.triangles.size()},
              {"buffer_bytes", layout.size_bytes},
              {"interop",
               {{"frames", o.frames},
                {"gpu_map_ms", toJson(summarise(gpu_map))},
                {"gpu_write_ms", toJson(summarise(gpu_write))},
                {"gpu_unmap_ms", toJson(summarise(gpu_unmap))},
                {"gpu_total_ms", toJson(summarise(gpu_total))},
                {"host_map_call_ms", toJson(summarise(host_map))},
                {"host_unmap_call_ms", toJson(summarise(host_unmap))},
                {"wall_synced_ms", toJson(w)},
                {"wall_async_calls_ms", toJson(summarise(async_call))}}},
              {"cpu_path",
               {{"frames", o.cpu_frames},
                {"total_ms", toJson(c)},
                {"readback_ms", toJson(summarise(readback))},
                {"normals_ms", toJson(summarise(host_normals))},
                {"upload_ms", toJson(summarise(upload))}}}};
  std::printf(
      "| %4d | %8zu | %7.3f | %7.3f | %7.3f | %7.3f | %7.3f | %7.3f | %8.3f | %7.3f | "
      "%7.3f |\n",
      res, n, summarise(gpu_map).median, summarise(gpu_write).median, summarise(gpu_unmap).median,
      summarise(gpu_total).median, w.median, summarise(async_call).median, c.median,
      summarise(host_normals).median, summarise(upload).median);
  std::fflush(stdout);
  return Status::ok();
}

int run(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) return 2;
  CudaDeviceInfo info;
  std::string why;
  if (!queryCudaDevice(0, &info, &why)) {
    std::fprintf(stderr, "hooke-interop-bench: no CUDA device: %s\n", why.c_str());
    return 1;
  }
  std::unique_ptr<EglContext> context;
  if (Status s = EglContext::create(false, &context); !s) {
    std::fprintf(stderr, "hooke-interop-bench: no EGL context: %s\n", s.message().c_str());
    return 1;
  }
  Renderer renderer;
  if (Status s = renderer.init(); !s) {
    std::fprintf(stderr, "hooke-interop-bench: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("GPU %s (sm_%d%d), driver %d, runtime %d; GL %s; commit %s\n", info.name.c_str(),
              info.compute_major, info.compute_minor, info.driver_version, info.runtime_version,
              context->description().c_str(), o.commit.c_str());
  std::printf(
      "medians in ms; interop: GPU events map / kernels / unmap / total, host wall with "
      "sync, host calls without sync; CPU path: readback + normals + upload, normals, "
      "upload\n");
  std::printf(
      "| res  | vertices |  map    | kernels |  unmap  | total   | wall    | calls   | "
      "cpu path | normals | upload  |\n");
  std::printf(
      "|------|----------|---------|---------|---------|---------|---------|---------|"
      "----------|---------|---------|\n");

  // the file is rewritten after every resolution, so a failure keeps what was measured
  Json results = Json::array();
  for (int res : o.resolutions) {
    Json one;
    if (Status s = measure(res, o, renderer, &one); !s) {
      std::fprintf(stderr, "hooke-interop-bench: cloth %d: %s\n", res, s.message().c_str());
      return 1;
    }
    results.push_back(one);
    if (o.out.empty()) continue;
    Json doc{{"benchmark", "hooke-interop-bench"},
             {"commit", o.commit},
             {"gpu", info.name},
             {"compute_capability",
              std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor)},
             {"driver_version", info.driver_version},
             {"runtime_version", info.runtime_version},
             {"gl", context->description()},
             {"scene", "cloth, implicit, 2 steps of h = 0.03 s before measuring"},
             {"results", results}};
    std::ofstream(o.out) << doc.dump(2) << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace hooke

int main(int argc, char** argv) {
  return hooke::run(argc, argv);
}
