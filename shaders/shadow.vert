// The planar shadow: each vertex slid along kShadowDirection onto the ground (y = 0); a point
// below the ground stays where it is, flattened. Colours nothing (shadow.frag does).
#version 450 core

#include "lighting.glsl"

layout(location = 0) in vec3 a_position;

uniform mat4 u_model;
uniform mat4 u_view_projection;

void main() {
  vec3 world = (u_model * vec4(a_position, 1.0)).xyz;
  float height = max(world.y, 0.0);
  vec3 ground = world - kShadowDirection * (height / kShadowDirection.y);
  ground.y = 0.0;
  gl_Position = u_view_projection * vec4(ground, 1.0);
}
