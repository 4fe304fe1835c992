#version 330 core
// A 2D gas grid's sheet: the quad x, y in [u_lo, u_hi] at the box's middle z, as a
// triangle strip of four vertices made from gl_VertexID (no vertex buffer).

uniform mat4 u_view_projection;
uniform vec3 u_lo;  // [m] the grid's box, world space
uniform vec3 u_hi;

out vec2 v_uv;  // [0, 1]^2 across the grid

void main() {
  v_uv = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec3 world = vec3(mix(u_lo.xy, u_hi.xy, v_uv), 0.5 * (u_lo.z + u_hi.z));
  gl_Position = u_view_projection * vec4(world, 1.0);
}
