// Lit surfaces, double-sided: a back face gets the flipped normal and its own colour. A soft
// checker in rest coordinates shows how the material deforms.
#version 450 core

#include "lighting.glsl"

in vec3 v_world;
in vec3 v_normal;
in vec3 v_rest;
out vec4 out_color;

uniform vec3 u_eye;
uniform vec3 u_front_color;      // display colours
uniform vec3 u_back_color;
uniform float u_pattern_scale;   // checker squares per metre of rest coordinate
uniform float u_pattern_amount;  // 0: plain; 0.1: a gentle checker
uniform float u_specular;
uniform float u_shininess;
uniform float u_flat;            // 1: shade with face normals
uniform float u_opacity;         // 1: opaque; less for a translucent overlay
uniform vec4 u_tint;             // rgb: a display colour mixed in by a (0: none)

// an anti-aliased 3D checker in [0, 1]: the square wave box-filtered over a pixel (after
// Inigo Quilez, "filterable procedurals")
float checker(vec3 p) {
  // a quarter-square offset keeps flat rest shapes (the cloth at y = 2) off the cell boundaries
  vec3 cell = p * u_pattern_scale + 0.25;
  vec3 w = max(fwidth(cell), vec3(1e-4));
  vec3 wave = 2.0 * (abs(fract((cell - 0.5 * w) * 0.5) - 0.5) -
                     abs(fract((cell + 0.5 * w) * 0.5) - 0.5)) / w;
  return 0.5 - 0.5 * wave.x * wave.y * wave.z;
}

void main() {
  // surfaces with sharp creases (the lattice box) use face normals; others the smooth ones
  vec3 n = normalize(v_normal);
  if (u_flat > 0.5) {
    vec3 face = normalize(cross(dFdx(v_world), dFdy(v_world)));
    n = face * sign(dot(face, n) + 1e-6);
  }
  vec3 albedo = u_front_color;
  if (!gl_FrontFacing) {
    n = -n;
    albedo = u_back_color;
  }
  albedo = toLinear(albedo) * (1.0 - u_pattern_amount * checker(v_rest));
  vec3 v = normalize(u_eye - v_world);
  vec3 color = toDisplay(shade(albedo, n, v, u_specular, u_shininess));
  out_color = vec4(mix(color, u_tint.rgb, u_tint.a), u_opacity);
}
