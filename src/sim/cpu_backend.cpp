// Explicit, symplectic and linearised implicit Euler on the CPU (DESIGN.md "Physics").
#include "sim/cpu_backend.h"

#include <algorithm>
#include <chrono>

#include "sim/forces.h"

namespace hooke {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

std::string_view integratorName(Integrator integrator) {
  switch (integrator) {
    case Integrator::kExplicit:
      return "explicit";
    case Integrator::kSymplectic:
      return "symplectic";
    case Integrator::kImplicit:
      return "implicit";
  }
  return "unknown";
}

bool parseIntegrator(std::string_view name, Integrator* out) {
  for (Integrator i : {Integrator::kExplicit, Integrator::kSymplectic, Integrator::kImplicit}) {
    if (integratorName(i) == name) {
      *out = i;
      return true;
    }
  }
  return false;
}

Status CpuBackend::load(const Model& model, const State& state) {
  const size_t n = model.particleCount();
  if (state.x.size() != n || state.v.size() != n) {
    return Status::error("state does not match the model's particle count");
  }
  model_ = model;
  current_ = state;
  for (size_t i = 0; i < n; ++i) {
    if (model_.pinned[i]) current_.v[i] = glm::vec3(0.0f);
  }
  previous_x_ = current_.x;
  force_.assign(n, glm::vec3(0.0f));
  delta_v_.assign(n, glm::vec3(0.0f));
  system_.resize(model_);
  pcg_.resize(n);
  return Status::ok();
}

Status CpuBackend::updateModel(const Model& model) {
  if (model.particleCount() != model_.particleCount() ||
      model.springCount() != model_.springCount() || model.spring_ends != model_.spring_ends ||
      model.pinned != model_.pinned) {
    return Status::error("updateModel: the topology changed; load the model instead");
  }
  model_ = model;
  return Status::ok();
}

Status CpuBackend::step(float h, std::span<const glm::vec3> external, StepStats* stats) {
  if (!external.empty() && external.size() != model_.particleCount()) {
    return Status::error("external forces: expected one per particle");
  }
  StepStats local;
  StepStats& s = stats ? *stats : local;
  s = StepStats{};
  previous_x_ = current_.x;

  auto start = Clock::now();
  computeForces(model_, current_.x, current_.v, external, force_);
  s.force_ms = msSince(start);

  switch (settings_.integrator) {
    case Integrator::kExplicit:
      stepExplicit(h, false);
      break;
    case Integrator::kSymplectic:
      stepExplicit(h, true);
      break;
    case Integrator::kImplicit:
      stepImplicit(h, &s);
      break;
  }
  return Status::ok();
}

void CpuBackend::stepExplicit(float h, bool symplectic) {
  auto& x = current_.x;
  auto& v = current_.v;
  for (size_t i = 0; i < x.size(); ++i) {
    if (model_.pinned[i]) continue;
    glm::vec3 v1 = v[i] + (h / model_.mass[i]) * force_[i];
    // explicit:   x1 = x0 + h v0,  v1 = v0 + h M⁻¹ f(x0, v0)
    // symplectic: v1 = v0 + h M⁻¹ f(x0, v0),  x1 = x0 + h v1
    x[i] += h * (symplectic ? v1 : v[i]);
    v[i] = v1;
  }
}

void CpuBackend::stepImplicit(float h, StepStats* stats) {
  // (M − h ∂f/∂v − h² ∂f/∂x) Δv = h (f0 + h ∂f/∂x v0)
  auto start = Clock::now();
  system_.prepare(model_, current_.x, current_.v, force_, h);
  stats->force_ms += msSince(start);

  start = Clock::now();
  std::fill(delta_v_.begin(), delta_v_.end(), glm::vec3(0.0f));
  CgResult cg =
      pcg_.solve(system_, system_.rhs(), delta_v_, settings_.tolerance, settings_.max_iterations);
  stats->solve_ms = msSince(start);
  stats->cg_iterations = cg.iterations;
  stats->cg_residual = cg.residual;
  stats->cg_converged = cg.converged;

  // v1 = v0 + Δv,  x1 = x0 + h v1  (Δv is zero at pinned particles)
  start = Clock::now();
  for (size_t i = 0; i < current_.x.size(); ++i) {
    current_.v[i] += delta_v_[i];
    current_.x[i] += h * current_.v[i];
  }
  stats->commit_ms = msSince(start);
}

void CpuBackend::writeVisual(float alpha, std::span<glm::vec3> out) const {
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = previous_x_[i] + alpha * (current_.x[i] - previous_x_[i]);
  }
}

}  // namespace hooke
