// Springs as lines, two vertices per spring and no vertex inputs: the ends and rest length come
// from storage buffers, the positions from the same GL buffer the surfaces draw from.
#version 450 core

layout(std430, binding = 0) readonly buffer Positions {
  float positions[];  // (particles x 3)
};
struct Spring {
  uint i;
  uint j;
  float rest_length;
  float unused;
};
layout(std430, binding = 1) readonly buffer Springs {
  Spring springs[];
};

uniform mat4 u_view_projection;

out float v_strain;

vec3 particle(uint index) {
  return vec3(positions[3 * index], positions[3 * index + 1], positions[3 * index + 2]);
}

void main() {
  Spring s = springs[gl_VertexID >> 1];
  vec3 a = particle(s.i), b = particle(s.j);
  // strain = (l - L) / L
  v_strain = (length(b - a) - s.rest_length) / s.rest_length;
  gl_Position = u_view_projection * vec4((gl_VertexID & 1) == 0 ? a : b, 1.0);
}
