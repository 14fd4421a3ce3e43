# Writes OUTPUT: a C++ source embedding every shaders/*.{vert,frag,glsl} file of SHADER_DIR as a
# raw string, behind render/shader_sources.h. Run at build time (cmake -P); reads no other files.
file(GLOB shader_files ${SHADER_DIR}/*.vert ${SHADER_DIR}/*.frag ${SHADER_DIR}/*.glsl)
list(SORT shader_files)

set(entries "")
foreach(path IN LISTS shader_files)
  get_filename_component(name "${path}" NAME)
  file(READ "${path}" text)
  string(FIND "${text}" ")glsl\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains )glsl\" and cannot be embedded as a raw string")
  endif()
  string(APPEND entries "    {\"${name}\", R\"glsl(${text})glsl\"},\n")
endforeach()

set(source "// Generated from shaders/ by src/render/embed_shaders.cmake; do not edit.
#include \"render/shader_sources.h\"

namespace hooke {

namespace {

struct EmbeddedShader {
  std::string_view name;
  std::string_view text;
};

constexpr EmbeddedShader kShaders[] = {
${entries}};

}  // namespace

std::optional<std::string_view> embeddedShader(std::string_view name) {
  for (const EmbeddedShader& shader : kShaders) {
    if (shader.name == name) return shader.text;
  }
  return std::nullopt;
}

std::vector<std::string_view> embeddedShaderNames() {
  std::vector<std::string_view> names;
  for (const EmbeddedShader& shader : kShaders) names.push_back(shader.name);
  return names;
}

}  // namespace hooke
")

# rewrite only on change, so an unchanged shader set does not recompile
set(previous "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" previous)
endif()
if(NOT previous STREQUAL source)
  file(WRITE "${OUTPUT}" "${source}")
endif()
