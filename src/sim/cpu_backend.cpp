// Explicit, symplectic and linearised implicit Euler on the CPU (DESIGN.md "Physics").
#include "sim/cpu_backend.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "sim/forces.h"
#include "sim/spring_force.h"

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
    case Integrator::kNewton:
      return "newton";
    case Integrator::kBdf2:
      return "bdf2";
  }
  return "unknown";
}

bool parseIntegrator(std::string_view name, Integrator* out) {
  for (Integrator i : kAllIntegrators) {
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
  previous_v_ = current_.v;
  history_valid_ = false;
  for (auto* work : {&force_, &delta_v_, &base_x_, &base_v_, &offset_, &trial_v_, &trial_f_}) {
    work->assign(n, glm::vec3(0.0f));
  }
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

  // BDF2 needs the state one equal step back; otherwise (first step, or h changed) it starts
  // with a backward-Euler step:  x̂ = (4 x_n − x_{n−1}) / 3,  v̂ = (4 v_n − v_{n−1}) / 3
  const bool bdf2 = settings_.integrator == Integrator::kBdf2 && history_valid_ && history_h_ == h;
  if (bdf2) {
    for (size_t i = 0; i < base_x_.size(); ++i) {
      base_x_[i] = (4.0f * current_.x[i] - previous_x_[i]) / 3.0f;
      base_v_[i] = (4.0f * current_.v[i] - previous_v_[i]) / 3.0f;
    }
  }
  previous_x_ = current_.x;
  previous_v_ = current_.v;
  history_valid_ = true;
  history_h_ = h;

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
    case Integrator::kNewton:
      stepNewton(h, previous_x_, previous_v_, external, &s);
      break;
    case Integrator::kBdf2:
      // x1 = x̂ + (2h/3) v1,  M (v1 − v̂) = (2h/3) f(x1, v1)
      if (bdf2) {
        stepNewton(2.0f * h / 3.0f, base_x_, base_v_, external, &s);
      } else {
        stepNewton(h, previous_x_, previous_v_, external, &s);
      }
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
  system_.prepare(model_, current_.x, force_, h, current_.v, h);
  stats->force_ms += msSince(start);

  start = Clock::now();
  std::fill(delta_v_.begin(), delta_v_.end(), glm::vec3(0.0f));
  CgResult cg =
      pcg_.solve(system_, system_.rhs(), delta_v_, settings_.tolerance, settings_.max_iterations);
  stats->solve_ms = msSince(start);
  stats->cg_iterations = cg.iterations;
  stats->cg_residual = cg.residual;
  stats->cg_converged = cg.converged;
  stats->newton_iterations = 1;

  // v1 = v0 + Δv,  x1 = x0 + h v1  (Δv is zero at pinned particles)
  start = Clock::now();
  for (size_t i = 0; i < current_.x.size(); ++i) {
    current_.v[i] += delta_v_[i];
    current_.x[i] += h * current_.v[i];
  }
  stats->commit_ms = msSince(start);
}

// |g(v)| over free particles, g(v) = M (v − v̂) − β f(x̂ + β v, v) with f already evaluated there
double CpuBackend::residualNorm(std::span<const glm::vec3> v, std::span<const glm::vec3> base_v,
                                std::span<const glm::vec3> f, float beta) const {
  double sum = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (model_.pinned[i]) continue;
    glm::dvec3 g =
        glm::dvec3(model_.mass[i] * (v[i] - base_v[i])) - double(beta) * glm::dvec3(f[i]);
    sum += glm::dot(g, g);
  }
  return std::sqrt(sum);
}

// Φ(v) = ½ (v − v̂)ᵀ M (v − v̂) + E(x) − Σ (m_i g + e_i)·x_i
//        + β [½ c_air Σ |v_i|² + ½ Σ_s c_s ((v_j − v_i)·n_s)²],   x = x̂ + β v,
// E the spring energy. With the spring directions n held fixed, ∇_v Φ = M (v − v̂) − β f = g, so
// the backward-Euler step minimises Φ, and Newton directions from the (positive definite)
// system matrix descend it.
double CpuBackend::merit(std::span<const glm::vec3> x, std::span<const glm::vec3> v,
                         std::span<const glm::vec3> base_v, std::span<const glm::vec3> external,
                         float beta) const {
  double phi = 0.0;
  const glm::dvec3 g(model_.gravity);
  for (size_t i = 0; i < v.size(); ++i) {
    if (model_.pinned[i]) continue;
    const double m = model_.mass[i];
    glm::dvec3 dv = glm::dvec3(v[i]) - glm::dvec3(base_v[i]);
    glm::dvec3 load = m * g + (external.empty() ? glm::dvec3(0.0) : glm::dvec3(external[i]));
    glm::dvec3 vi(v[i]);
    phi += 0.5 * m * glm::dot(dv, dv) - glm::dot(load, glm::dvec3(x[i])) +
           0.5 * double(beta) * model_.drag * glm::dot(vi, vi);
  }
  for (size_t s = 0; s < model_.springCount(); ++s) {
    const glm::uvec2 e = model_.spring_ends[s];
    glm::dvec3 d = glm::dvec3(x[e.y]) - glm::dvec3(x[e.x]);
    double l = glm::length(d);
    double stretch = l - model_.rest_length[s];
    phi += 0.5 * model_.stiffness[s] * stretch * stretch;
    if (l > kDegenerateLength) {
      double rate = glm::dot(glm::dvec3(v[e.y]) - glm::dvec3(v[e.x]), d / l);
      phi += 0.5 * double(beta) * model_.damping[s] * rate * rate;
    }
  }
  return phi;
}

// Solves M (v1 − v̂) = β f(x̂ + β v1, v1) for v1 by Newton's method and sets x1 = x̂ + β v1.
// Iterate k linearises f at (x_k, v_k):  f ≈ f_k + K_k (x − x_k) + D_k (v − v_k), giving
//   (M − β D_k − β² K_k) δ = β (f_k + K_k d_k) − M (v_k − v̂),   d_k = x̂ + β v_k − x_k,
//   v_{k+1} = v_k + α δ,  x_{k+1} = x̂ + β v_{k+1}.
// It starts at the current state, so the first iterate is exactly Baraff–Witkin's step; later
// ones take the step length α from a line search on Φ.
void CpuBackend::stepNewton(float beta, std::span<const glm::vec3> base_x,
                            std::span<const glm::vec3> base_v, std::span<const glm::vec3> external,
                            StepStats* stats) {
  const size_t n = current_.x.size();
  auto& x = current_.x;
  auto& v = current_.v;

  // convergence scale: the impulse of gravity and of the forces at the start, β |M g + f0|
  double scale = 0.0;
  for (size_t i = 0; i < n; ++i) {
    if (model_.pinned[i]) continue;
    glm::dvec3 load = glm::dvec3(model_.mass[i] * model_.gravity) + glm::dvec3(force_[i]);
    scale += glm::dot(load, load);
  }
  scale = double(beta) * std::sqrt(scale);

  double residual = std::numeric_limits<double>::infinity();
  double previous_residual = residual;
  bool cg_converged = true;
  int iteration = 0;
  while (iteration < settings_.newton_max_iterations) {
    // the linear system at (x_k, v_k); force_ holds f(x_k, v_k)
    auto start = Clock::now();
    for (size_t i = 0; i < n; ++i)
      offset_[i] = base_x[i] + beta * v[i] - x[i];
    system_.prepare(model_, x, force_, beta, offset_, 1.0f);
    std::span<glm::vec3> rhs = system_.mutableRhs();
    for (size_t i = 0; i < n; ++i) {
      rhs[i] = model_.pinned[i] ? glm::vec3(0.0f) : rhs[i] - model_.mass[i] * (v[i] - base_v[i]);
    }
    stats->force_ms += msSince(start);

    start = Clock::now();
    std::fill(delta_v_.begin(), delta_v_.end(), glm::vec3(0.0f));
    CgResult cg =
        pcg_.solve(system_, system_.rhs(), delta_v_, settings_.tolerance, settings_.max_iterations);
    stats->solve_ms += msSince(start);
    stats->cg_iterations += cg.iterations;
    stats->cg_residual = std::max(stats->cg_residual, cg.residual);
    cg_converged = cg_converged && cg.converged;
    ++iteration;

    // backtracking (Armijo) line search on the incremental potential Φ, whose gradient is g:
    // Φ(v + α δ) <= Φ(v) + 10⁻⁴ α g·δ, halving α at most 6 times. The first iterate starts off
    // the manifold x = x̂ + β v, so it is taken whole (it is Baraff–Witkin's step).
    start = Clock::now();
    float alpha = 1.0f;
    double slope = 0.0;  // g(v_k)·δ
    if (iteration > 1) {
      for (size_t i = 0; i < n; ++i) {
        if (model_.pinned[i]) continue;
        glm::dvec3 g =
            glm::dvec3(model_.mass[i] * (v[i] - base_v[i])) - double(beta) * glm::dvec3(force_[i]);
        slope += glm::dot(g, glm::dvec3(delta_v_[i]));
      }
    }
    const double merit_now = iteration > 1 ? merit(x, v, base_v, external, beta) : 0.0;
    for (int halving = 0;; ++halving) {
      for (size_t i = 0; i < n; ++i)
        trial_v_[i] = v[i] + alpha * delta_v_[i];
      for (size_t i = 0; i < n; ++i)
        offset_[i] = base_x[i] + beta * trial_v_[i];
      // near convergence the predicted decrease drops below Φ's float rounding: take the step
      if (iteration == 1 || halving == 6 || !(slope < -1e-6 * std::abs(merit_now)) ||
          merit(offset_, trial_v_, base_v, external, beta) <= merit_now + 1e-4 * alpha * slope) {
        break;
      }
      alpha *= 0.5f;
    }
    computeForces(model_, offset_, trial_v_, external, trial_f_);
    residual = residualNorm(trial_v_, base_v, trial_f_, beta);
    std::swap(v, trial_v_);
    std::swap(x, offset_);
    std::swap(force_, trial_f_);
    stats->commit_ms += msSince(start);
    if (newtonDone(iteration, residual, previous_residual, settings_.newton_tolerance * scale)) {
      break;
    }
    previous_residual = residual;
  }
  stats->newton_iterations = iteration;
  stats->newton_residual = scale > 0.0 ? static_cast<float>(residual / scale) : 0.0f;
  stats->cg_converged = cg_converged;
}

void CpuBackend::writeVisual(float alpha, std::span<glm::vec3> out) const {
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = previous_x_[i] + alpha * (current_.x[i] - previous_x_[i]);
  }
}

}  // namespace hooke
