// A spring's colour by strain: blue compressed, dark grey at rest, red stretched, saturating at
// +-u_full_scale.
#version 450 core

in float v_strain;
out vec4 out_color;

uniform float u_full_scale;

void main() {
  float t = clamp(v_strain / u_full_scale, -1.0, 1.0);
  vec3 rest = vec3(0.16, 0.17, 0.20);
  vec3 stretched = vec3(0.95, 0.20, 0.10);
  vec3 compressed = vec3(0.10, 0.45, 0.98);
  vec3 color = t >= 0.0 ? mix(rest, stretched, t) : mix(rest, compressed, -t);
  out_color = vec4(color, 0.9);
}
