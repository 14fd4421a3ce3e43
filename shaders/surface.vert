// Lit surfaces: positions and normals as given (world space after u_model), plus each vertex's
// rest position as a material coordinate for the surface pattern.
#version 450 core

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_rest;

uniform mat4 u_model;
uniform mat3 u_normal_matrix;
uniform mat4 u_view_projection;

out vec3 v_world;
out vec3 v_normal;
out vec3 v_rest;

void main() {
  vec4 world = u_model * vec4(a_position, 1.0);
  v_world = world.xyz;
  v_normal = u_normal_matrix * a_normal;
  v_rest = a_rest;
  gl_Position = u_view_projection * world;
}
