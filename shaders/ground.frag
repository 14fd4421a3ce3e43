// The ground: a pale floor with a metre grid and finer lines, anti-aliased with screen-space
// derivatives and faded out towards the square's edge, blended over the background.
#version 450 core

in vec3 v_world;
out vec4 out_color;

uniform vec2 u_center;
uniform float u_fade_start;  // m from the centre where the fade begins
uniform float u_fade_end;    // m from the centre where the ground is gone
uniform float u_minor_spacing;
uniform vec3 u_floor_color;  // display colour
uniform vec3 u_line_color;

// coverage of grid lines of the given spacing, about one pixel wide
float gridLines(vec2 p, float spacing) {
  vec2 coord = p / spacing;
  vec2 width = fwidth(coord);
  vec2 distance = abs(fract(coord - 0.5) - 0.5) / max(width, vec2(1e-6));
  float line = 1.0 - min(min(distance.x, distance.y), 1.0);
  // lines closer than a few pixels apart melt into a flat tint instead of moire
  float density = max(width.x, width.y);
  return line * (1.0 - smoothstep(0.15, 0.45, density));
}

void main() {
  float radial = length(v_world.xz - u_center);
  float fade = 1.0 - smoothstep(u_fade_start, u_fade_end, radial);
  float minor = gridLines(v_world.xz, u_minor_spacing);
  float major = gridLines(v_world.xz, u_minor_spacing * 5.0);
  float lines = max(0.35 * minor, 0.8 * major);
  vec3 color = mix(u_floor_color, u_line_color, lines);
  out_color = vec4(color, fade * mix(0.55, 0.85, lines));
}
