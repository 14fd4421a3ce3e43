// The background: one triangle covering the screen, no vertex inputs. Draws nothing else.
#version 450 core

out vec2 v_uv;

void main() {
  vec2 corner = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  v_uv = corner;
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
