// Shared by the lit shaders: the light rig (key, fill, back, headlight, sky/ground, rim) in linear
// colour and the tone map to the 8-bit output. Declares no inputs or uniforms.

// directions point from the surface towards the light, in world space (y up)
const vec3 kKeyDirection = normalize(vec3(-0.40, 0.85, 0.50));
const vec3 kKeyColor = vec3(1.00, 0.95, 0.87) * 2.6;
const vec3 kFillDirection = normalize(vec3(0.80, 0.30, 0.20));
const vec3 kFillColor = vec3(0.62, 0.72, 0.95) * 0.45;
const vec3 kBackDirection = normalize(vec3(0.10, 0.45, -1.00));
const vec3 kBackColor = vec3(0.90, 0.92, 1.00) * 0.45;
// the planar shadow falls along this direction: steeper than the key, so shadows stay near
// their casters like those of a large soft overhead light
const vec3 kShadowDirection = normalize(vec3(-0.20, 1.00, 0.25));
// a weak light at the eye, so whatever side the viewer orbits to is never black
const vec3 kHeadlightColor = vec3(1.0) * 0.30;
const vec3 kSkyColor = vec3(0.62, 0.70, 0.82) * 0.38;
const vec3 kGroundBounce = vec3(0.42, 0.38, 0.34) * 0.30;

vec3 toLinear(vec3 srgb) { return pow(srgb, vec3(2.2)); }

// wrapped diffuse: light reaches a little past the terminator, which reads as soft light
float wrapDiffuse(vec3 n, vec3 l, float wrap) {
  return max((dot(n, l) + wrap) / (1.0 + wrap), 0.0);
}

// albedo in linear colour; n and v unit vectors (v towards the eye)
vec3 shade(vec3 albedo, vec3 n, vec3 v, float specular, float shininess) {
  vec3 hemisphere = mix(kGroundBounce, kSkyColor, 0.5 + 0.5 * n.y);
  vec3 diffuse = hemisphere + kKeyColor * wrapDiffuse(n, kKeyDirection, 0.15) +
                 kFillColor * wrapDiffuse(n, kFillDirection, 0.5) +
                 kBackColor * wrapDiffuse(n, kBackDirection, 0.2) +
                 kHeadlightColor * max(dot(n, v), 0.0);

  // blinn-phong highlights from key and fill, normalised so shininess keeps the energy
  vec3 h_key = normalize(kKeyDirection + v);
  vec3 h_fill = normalize(kFillDirection + v);
  float norm = (shininess + 8.0) / 25.0;
  vec3 highlight =
      kKeyColor * pow(max(dot(n, h_key), 0.0), shininess) * max(dot(n, kKeyDirection), 0.0) +
      kFillColor * pow(max(dot(n, h_fill), 0.0), shininess) * max(dot(n, kFillDirection), 0.0);

  // a faint rim that separates the silhouette from the background
  float rim = pow(1.0 - max(dot(n, v), 0.0), 3.0) * 0.25;

  return albedo * diffuse + specular * norm * highlight + rim * kSkyColor;
}

// filmic tone map (Narkowicz's ACES fit) and display gamma
vec3 toDisplay(vec3 linear) {
  vec3 x = linear * 0.80;
  vec3 mapped = clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
  return pow(mapped, vec3(1.0 / 2.2));
}
