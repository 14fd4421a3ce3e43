// The planar shadow's colour: one translucent dark tone. The stencil test set by the renderer
// darkens each pixel once, so overlapping triangles do not stack up.
#version 450 core

out vec4 out_color;

uniform float u_opacity;

void main() { out_color = vec4(0.05, 0.06, 0.09, u_opacity); }
