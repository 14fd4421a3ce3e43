// Backend selection and the CPU fallback. The only place the app decides between CPU and CUDA.
#include "app/backend_factory.h"

#include "sim/cpu_backend.h"

#if defined(HOOKE_HAVE_CUDA)
#include "cuda/cuda_backend.h"
#endif

namespace hooke {

namespace {

std::unique_ptr<Backend> tryCuda(std::string* why_not) {
#if defined(HOOKE_HAVE_CUDA)
  return createCudaBackend(CudaOptions{}, why_not);
#else
  *why_not = "this build of hooke has no CUDA backend";
  return nullptr;
#endif
}

}  // namespace

Status createBackend(std::string_view name, BackendChoice* out) {
  out->fallback_reason.clear();
  if (name == "cpu") {
    out->backend = std::make_unique<CpuBackend>();
    return Status::ok();
  }
  if (name != "cuda" && name != "auto") {
    return Status::error("--backend must be auto, cpu or cuda, got '" + std::string(name) + "'");
  }
  std::string why_not;
  out->backend = tryCuda(&why_not);
  if (out->backend) return Status::ok();
  if (name == "cuda") return Status::error("--backend cuda: " + why_not);
  out->backend = std::make_unique<CpuBackend>();
  out->fallback_reason = why_not;
  return Status::ok();
}

Status loadBackend(std::string_view name, const Model& model, const State& state,
                   BackendChoice* choice, std::optional<Integrator> integrator) {
  Status created = createBackend(name, choice);
  if (!created) return created;
  const bool cpu = choice->backend->name() == "cpu";
  Status loaded = Status::ok();
  if (!cpu && integrator && !choice->backend->supports(*integrator)) {
    loaded = Status::error("the " + std::string(choice->backend->name()) +
                           " backend does not implement the " +
                           std::string(integratorName(*integrator)) + " integrator");
  } else {
    loaded = choice->backend->load(model, state);
  }
  if (loaded || cpu) return loaded;
  if (name != "auto")
    return Status::error("--backend " + std::string(name) + ": " + loaded.message());
  // auto: the device cannot run this; the CPU can
  choice->fallback_reason = loaded.message();
  choice->backend = std::make_unique<CpuBackend>();
  return choice->backend->load(model, state);
}

}  // namespace hooke
