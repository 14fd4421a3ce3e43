// Particles as round points: free particles small and dark, pinned ones larger.
#version 450 core

layout(location = 0) in vec3 a_position;
layout(location = 3) in float a_pinned;

uniform mat4 u_view_projection;
uniform float u_point_size;  // pixels, for a free particle

out float v_pinned;

void main() {
  v_pinned = a_pinned;
  gl_PointSize = u_point_size * (a_pinned > 0.5 ? 1.8 : 1.0);
  gl_Position = u_view_projection * vec4(a_position, 1.0);
}
