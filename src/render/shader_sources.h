// The GLSL sources of shaders/, embedded into the binary at build time (see embed_shaders.cmake),
// so the executable works from any directory. Lookup only; compiling is shader_program's job.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hooke {

// The text of shaders/<name> ("surface.frag", "lighting.glsl"), or nullopt for an unknown name.
std::optional<std::string_view> embeddedShader(std::string_view name);

// Every embedded file name, sorted.
std::vector<std::string_view> embeddedShaderNames();

}  // namespace hooke
