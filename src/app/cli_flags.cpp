// Registration of the shared command-line flags; the values are checked in cli_options.cpp.
#include "app/cli_flags.h"

namespace hooke {

void addSceneFlags(CLI::App* command, SceneOptions* scene, const std::string& help_prefix) {
  const std::string& p = help_prefix;
  command
      ->add_option("--scene", scene->scene,
                   p + "cloth | volume | spring1d | FILE.json (hooke scene) | FILE.node (TetGen)")
      ->capture_default_str();
  command->add_option(
      "--res", scene->res,
      p + "resolution of a built-in scene (cloth: N x N; volume: N along its length)");
  command->add_option("--stiffness", scene->stiffness,
                      p + "spring stiffness k, N/m (built-in: base k; file: every spring)");
  command->add_option("--damping", scene->damping,
                      p + "spring damping c, N*s/m (built-in: base c; file: every spring)");
  command->add_option("--mass", scene->mass,
                      p + "mass, kg (built-in: the whole body; file: every free particle)");
  command->add_option("--drag", scene->drag, p + "linear air drag per particle, N*s/m");
}

void addSolverFlags(CLI::App* command, RunOptions* run, const std::string& help_prefix) {
  const std::string& p = help_prefix;
  command
      ->add_option("--integrator", run->integrator,
                   p + "explicit | symplectic | implicit (linearised) | newton | bdf2")
      ->capture_default_str();
  command->add_option("--backend", run->backend, p + "auto | cpu | cuda")->capture_default_str();
  command->add_option("--dt", run->dt, p + "tick length, s")->capture_default_str();
  command
      ->add_option("--skip", run->skip,
                   p + "ticks between solves n (h = (n+1) dt), or auto (solve ~30 times per s)")
      ->capture_default_str();
  command->add_option("--tolerance", run->tolerance, p + "CG relative residual tolerance")
      ->capture_default_str();
  command->add_option("--max-iterations", run->max_iterations, p + "CG iteration cap")
      ->capture_default_str();
  command
      ->add_option("--newton-tolerance", run->newton_tolerance,
                   p + "newton, bdf2: relative residual of the implicit equations")
      ->capture_default_str();
  command
      ->add_option("--newton-max-iterations", run->newton_max_iterations,
                   p + "newton, bdf2: Newton iteration cap per step")
      ->capture_default_str();
}

}  // namespace hooke
