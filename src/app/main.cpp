// Entry point of the hooke executable: parses the command line and dispatches to a sub-command,
// or, with none, opens the desktop app. Bad arguments end with one line on stderr and exit code 2.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "app/cli_flags.h"
#include "app/cli_options.h"
#include "app/evaluate_command.h"
#include "app/sweep_command.h"
#if HOOKE_HAVE_RENDER
#include "app/render_command.h"
#endif
#if HOOKE_HAVE_GUI
#include "app/gui/gui_command.h"
#endif

namespace {

// the options given on the top level (the desktop app's), other than --help and --version
std::string firstTopLevelOption(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    const std::string name = option->get_name();
    if (option->count() > 0 && name != "--help" && name != "--version") return name;
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "hooke: a real-time mass-spring-damper simulator.\n"
      "Without a sub-command, opens the desktop app on the scene given by the options below.",
      "hooke"};
  app.set_version_flag("--version", "hooke 0.1.0");

#if HOOKE_HAVE_GUI
  // hooke [options]: the desktop app
  hooke::GuiOptions gui;
  hooke::addSceneFlags(&app, &gui.run.scene, "desktop app: ");
  hooke::addGuiOptions(&app, &gui);
#endif

  // hooke run
  hooke::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "simulate a scene headless and report");
  hooke::addSceneFlags(run_cmd, &run.scene);
  hooke::addSolverFlags(run_cmd, &run);
  CLI::Option* steps = run_cmd->add_option("--steps", run.steps, "ticks to run");
  CLI::Option* duration = run_cmd->add_option("--duration", run.duration, "simulated seconds");
  steps->excludes(duration);
  run_cmd->add_option("--report", run.report_path, "write the run report (JSON) here");
  run_cmd->add_option("--trace", run.trace_path, "write positions after every solve (CSV) here");
  run_cmd
      ->add_option("--trace-particles", run.trace_particles, "particles to trace: all or I,J,...")
      ->capture_default_str();

  // hooke export-scene
  hooke::SceneOptions export_scene;
  std::string export_path;
  CLI::App* export_cmd = app.add_subcommand("export-scene", "write a scene as hooke JSON");
  hooke::addSceneFlags(export_cmd, &export_scene);
  export_cmd->add_option("--out", export_path, "output file (.json)")->required();

  // hooke sweep
  hooke::SweepCommandOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "classify a dt x stiffness grid per integrator: CSV, heatmaps and a table");
  hooke::addSceneFlags(sweep_cmd, &sweep.scene);
  hooke::addSweepOptions(sweep_cmd, &sweep);

  // hooke evaluate
  hooke::EvaluateOptions evaluate;
  CLI::App* evaluate_cmd = app.add_subcommand(
      "evaluate", "validate the integrators: cloth drop, spring1d closed form, explicit limit");
  hooke::addEvaluateOptions(evaluate_cmd, &evaluate);

#if HOOKE_HAVE_RENDER
  // hooke render
  hooke::RenderCommandOptions render;
  CLI::App* render_cmd =
      app.add_subcommand("render", "simulate a scene to a time and render that frame to a PNG");
  hooke::addSceneFlags(render_cmd, &render.run.scene);
  hooke::addRenderOptions(render_cmd, &render);  // first: it sets the render defaults
  hooke::addSolverFlags(render_cmd, &render.run);
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "hooke: %s (see hooke --help)\n", e.what());
    return 2;
  }

  // the desktop app's options belong to no sub-command
  const bool subcommand = !app.get_subcommands().empty();
  if (const std::string option = firstTopLevelOption(app); subcommand && !option.empty()) {
    std::fprintf(stderr,
                 "hooke: %s is an option of the desktop app; give it after the sub-command "
                 "(see hooke --help)\n",
                 option.c_str());
    return 2;
  }

  if (*run_cmd) return hooke::runCommand(run);
  if (*export_cmd) return hooke::exportSceneCommand(export_scene, export_path);
  if (*sweep_cmd) return hooke::sweepCommand(sweep);
  if (*evaluate_cmd) return hooke::evaluateCommand(evaluate);
#if HOOKE_HAVE_RENDER
  if (*render_cmd) return hooke::renderCommand(render);
#endif
#if HOOKE_HAVE_GUI
  return hooke::guiCommand(gui);
#else
  std::fprintf(stderr,
               "hooke: the desktop app is not part of this build (it needs GLFW, Dear ImGui and "
               "spdlog); use a sub-command (see hooke --help)\n");
  return 2;
#endif
}
