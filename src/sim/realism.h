// Realism measures behind `hooke sweep` and `hooke evaluate` (formulas in docs/EVALUATION.md):
// the spring1d closed-form checks (amplitude error, period error, added damping ratio), the
// converged reference run that cloth and volume are compared against, the explicit-Euler
// stability estimate ω_max, and the cloth-drop measure. Pure computation; no I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/backend.h"
#include "sim/damped_oscillator.h"
#include "sim/model.h"
#include "sim/status.h"

namespace hooke {

// ---- signal analysis -------------------------------------------------------------------------

// Local maxima of u sampled at times t (u[i−1] < u[i] >= u[i+1]), each refined by the parabola
// through the three samples around it: t* = t_i + h (u_{i−1} − u_{i+1}) / (2 (u_{i−1} − 2u_i +
// u_{i+1})) and its value. Samples must be equally spaced by h.
struct Peak {
  double time = 0.0;
  double value = 0.0;
};
std::vector<Peak> findPeaks(std::span<const double> t, std::span<const double> u);

// Times where u crosses zero upwards (u_i < 0 <= u_{i+1}), linearly interpolated.
std::vector<double> upwardZeroCrossings(std::span<const double> t, std::span<const double> u);

// The period and damping ratio a sampled free oscillation shows:
//   period        T = (c_last − c_first) / (n − 1) over its n upward zero crossings
//   log-decrement δ = −slope of the least-squares line through (j, ln P_j), P_j the positive
//                 peaks in order (P_{j+1} / P_j = e^{−δ})
//   damping ratio ζ = δ / √(4π² + δ²)
struct OscillationFit {
  double period = 0.0;
  double log_decrement = 0.0;
  double damping_ratio = 0.0;
  int crossings = 0;
  int peaks = 0;
};
// false when fewer than two crossings or two positive peaks were found.
bool fitOscillation(std::span<const double> t, std::span<const double> u, OscillationFit* out);

// ---- spring1d: the closed-form checks --------------------------------------------------------

// spring1d's mass on its spring, released from rest at the rest length: displacement
// u = y − y_eq from the equilibrium y_eq = y_anchor − L − m g / k, starting at u0 = m g / k.
struct Spring1dSystem {
  DampedOscillator oscillator{1, 1, 0, 0, 0};
  double y_eq = 0.0;
  double amplitude = 0.0;  // u0 = m g / k
};
// false unless the scene is spring1d's shape (one pinned anchor, one free mass, one spring).
bool spring1dSystem(const Scene& scene, Spring1dSystem* out);

struct Spring1dCheck {
  Integrator integrator = Integrator::kImplicit;
  double dt = 0.0;
  int periods = 0;
  double exact_period = 0.0;         // T_d = 2π / ω_d
  double exact_damping_ratio = 0.0;  // ζ = c / (2 √(k m))
  double amplitude_error = 0.0;  // (P_N − u0 e^{−ζ ω0 N T_d}) / (u0 e^{−ζ ω0 N T_d}), signed
  double period_error = 0.0;     // (T_sim − T_d) / T_d, signed
  double fitted_damping_ratio = 0.0;  // ζ_sim from the log-decrement fit
  double added_damping_ratio = 0.0;   // ζ_sim − ζ
  double ms_per_step = 0.0;
  bool diverged = false;  // the run diverged or no oscillation was found (other fields NaN)
};
// Runs the spring1d scene for 1.25 (N + 1) periods at step dt on the CPU backend; P_N is the
// N-th positive peak of the simulated displacement (−1 relative error when there are fewer).
Spring1dCheck checkSpring1d(const Scene& scene, Integrator integrator, double dt, int periods,
                            SolverSettings settings);

// ---- cloth and volume: the converged reference -----------------------------------------------

// How the reference is computed: the integrator at step dt with these solver settings.
struct ReferenceSpec {
  Integrator integrator = Integrator::kBdf2;
  double dt = 2.5e-5;
  SolverSettings settings;
};

// The settings a reference run uses: CG tolerance 1e-6 and Newton tolerance 1e-3, caps as given.
ReferenceSpec referenceSpec(double dt, SolverSettings base);

// States of one system at the requested times.
struct Reference {
  std::vector<double> times;
  std::vector<State> states;     // (times)
  std::vector<double> energies;  // (times) total energy of each state
};

// Runs the scene from its initial state at h = spec.dt and records the state at each requested
// time (sorted ascending, each in [0, 1e4]) by cubic Hermite interpolation of x (with v) and
// linear interpolation of v between the two steps around it. Fails when the run diverges.
Status computeReference(const Scene& scene, std::span<const double> times,
                        const ReferenceSpec& spec, Reference* out);

// The cache key of a reference: FNV-1a over the model's arrays, the initial state, the requested
// times and the spec, in hexadecimal. Equal keys mean equal inputs.
std::string referenceKey(const Scene& scene, std::span<const double> times,
                         const ReferenceSpec& spec);

// RMS position error over the free particles: √(Σ_free |x_a − x_b|² / n_free), m.
double rmsPositionError(const Model& model, const State& a, const State& b);

// The reference state at time t, or null when the reference has no state within 1e-9 s of t.
const State* referenceAt(const Reference& reference, double t, double* energy = nullptr);

// ---- explicit Euler's stability limit --------------------------------------------------------

// ω_max, the highest natural frequency of the linearised system at the initial state:
//   power: ω_max² = λ_max(M⁻¹ K) by power iteration over the free particles, K = Σ_s k_s n_s n_sᵀ
//          assembled at the initial (rest) configuration
//   bound: ω_max² <= max_i 2 Σ_{s ∋ i} k_s / m_i (Gershgorin on M⁻¹ K; the stiffest spring and
//          the lightest particle, with n_adj springs at it, give at most 2 k_max n_adj / m_min)
struct OmegaMax {
  double power = 0.0;  // rad/s
  double bound = 0.0;  // rad/s
};
OmegaMax estimateOmegaMax(const Model& model, const State& state);

// The smallest dt at which the integrator diverges (the DivergenceGuard trips) within duration
// seconds on the scene, from a 1-D dt sweep: starting at dt_start, halve until a run survives (or
// double until one diverges), then bisect the bracket in log dt `refinements` times.
struct DivergenceLimit {
  double stable_dt = 0.0;    // the largest dt seen that did not diverge (NaN if none)
  double diverged_dt = 0.0;  // the smallest dt seen that diverged (NaN if none)
  int runs = 0;
};
DivergenceLimit findDivergenceDt(const Scene& scene, Integrator integrator, double duration,
                                 double dt_start, int refinements, SolverSettings settings);

// ---- the cloth drop --------------------------------------------------------------------------

// The lowest y of all particles.
double lowestPoint(const State& state);

// Static equilibrium of the scene (its hanging state): backward Euler (newton) at h = 0.02 s
// with air drag raised so every mode is overdamped, until the fastest particle moves slower than
// 1e-4 m/s or 60 s of simulated time. Drag changes how the body settles, not where.
Status hangingState(const Scene& scene, State* out);

struct DropResult {
  Integrator integrator = Integrator::kImplicit;
  double dt = 0.0;
  double hanging_depth = 0.0;  // the lowest point of the hanging state, m
  // the first time the lowest point comes within kDropTolerance of the hanging depth, linearly
  // interpolated between the steps around it (reach_step_time: the step's own time); NaN if never
  double reach_time = 0.0;
  double reach_step_time = 0.0;
  double max_strain = 0.0;  // max |l − L| / L over every step run
  double ms_per_step = 0.0;
  double newton_per_step = 0.0;  // linear solves per step
  double cg_per_step = 0.0;      // CG iterations per step, summed over the Newton iterations
  int64_t steps = 0;
  bool diverged = false;
};
inline constexpr double kDropTolerance = 0.1;  // m

// Drops the scene from its initial state with the integrator at step dt and records when its
// lowest point first comes within kDropTolerance of hanging_depth; runs until after_reach seconds
// past that time or until max_time, whichever comes first (max_strain covers every step run).
DropResult measureDrop(const Scene& scene, Integrator integrator, double dt, double hanging_depth,
                       double max_time, double after_reach, SolverSettings settings);

}  // namespace hooke
