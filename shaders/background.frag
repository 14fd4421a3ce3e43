// The background: a plain vertical gradient in display colours (kept free of noise and vignette
// so that renders compress well as PNG).
#version 450 core

in vec2 v_uv;
out vec4 out_color;

uniform vec3 u_top_color;     // at the top edge, display (sRGB) colour
uniform vec3 u_bottom_color;  // at the bottom edge

void main() {
  float t = smoothstep(0.0, 1.0, v_uv.y);
  vec3 color = mix(u_bottom_color, u_top_color, t);
  out_color = vec4(color, 1.0);
}
