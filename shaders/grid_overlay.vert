#version 330 core
// The grid overlay (Debug views): one occupied cell of the neighbour grid per instance,
// its edges from a unit cube (or square), coloured by its particle count.

layout(location = 0) in vec3 a_unit;  // a corner of the unit cube [0, 1]^3
layout(location = 1) in vec4 a_cell;  // xyz the cell's lowest corner [m], w its particles

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_cell;  // [m] cell size
uniform float u_full;  // the count at the ramp's top (a full cell)
uniform float u_pull;  // [m] towards the eye, so the edges at the surface show on it
uniform vec3 u_sparse, u_half, u_full_color;  // the ramp: one particle, half full, full

flat out vec3 v_color;

void main() {
  vec4 view = u_view * vec4(a_cell.xyz + a_unit * u_cell, 1.0);
  view.xyz += normalize(-view.xyz) * u_pull;
  gl_Position = u_projection * view;
  // One particle: u_sparse; half full: u_half; full and more: u_full_color.
  float half_full = 0.5 * u_full, n = a_cell.w;
  v_color = n <= half_full ? mix(u_sparse, u_half, clamp((n - 1.0) / max(half_full - 1.0, 0.5), 0.0, 1.0))
                           : mix(u_half, u_full_color, clamp((n - half_full) / half_full, 0.0, 1.0));
}
