// Force accumulation on the CPU: a scatter over springs, in spring order, so results are
// reproducible bit for bit.
#include "sim/forces.h"

#include "sim/spring_force.h"

namespace hooke {

void computeForces(const Model& model, std::span<const glm::vec3> x, std::span<const glm::vec3> v,
                   std::span<const glm::vec3> external, std::span<glm::vec3> f) {
  const size_t n = model.particleCount();

  // gravity, air drag and input: f_i = m_i g − c_air v_i + e_i
  for (size_t i = 0; i < n; ++i) {
    f[i] = model.mass[i] * model.gravity - model.drag * v[i];
    if (!external.empty()) f[i] += external[i];
  }

  // springs: f_i += k (l − L) n + c ((v_j − v_i)·n) n,  f_j −= the same
  for (size_t s = 0; s < model.springCount(); ++s) {
    const glm::uvec2 e = model.spring_ends[s];
    SpringForce sf = springForce(x[e.x], x[e.y], v[e.x], v[e.y], model.rest_length[s],
                                 model.stiffness[s], model.damping[s]);
    f[e.x] += sf.on_i;
    f[e.y] -= sf.on_i;
  }

  for (size_t i = 0; i < n; ++i) {
    if (model.pinned[i]) f[i] = glm::vec3(0.0f);
  }
}

}  // namespace hooke
