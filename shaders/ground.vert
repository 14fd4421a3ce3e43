// The ground: a square at y = 0 around u_center, as a four-vertex strip with no vertex inputs.
#version 450 core

uniform mat4 u_view_projection;
uniform vec2 u_center;  // x, z of the square's centre, m
uniform float u_extent; // half the square's side, m

out vec3 v_world;

void main() {
  vec2 corner = vec2(gl_VertexID & 1, (gl_VertexID >> 1) & 1) * 2.0 - 1.0;
  v_world = vec3(u_center.x + corner.x * u_extent, 0.0, u_center.y + corner.y * u_extent);
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
