// A particle's disc: a shaded dot with a light edge, anti-aliased at its rim; red when pinned.
#version 450 core

in float v_pinned;
out vec4 out_color;

void main() {
  vec2 p = gl_PointCoord * 2.0 - 1.0;
  float r = length(p);
  float edge = fwidth(r);
  float alpha = 1.0 - smoothstep(1.0 - edge, 1.0, r);
  if (alpha <= 0.0) discard;
  vec3 core = v_pinned > 0.5 ? vec3(0.90, 0.22, 0.12) : vec3(0.12, 0.13, 0.16);
  vec3 color = mix(core * 1.3, vec3(0.95), smoothstep(0.65, 0.85, r));
  out_color = vec4(color, alpha);
}
