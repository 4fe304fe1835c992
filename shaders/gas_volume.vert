#version 330 core
// The gas grid's box, for its ray march (gas_volume.frag) and the composite of the march
// (gas_composite.frag): the unit cube scaled to the box [u_lo, u_hi].

layout(location = 0) in vec3 a_position;  // the unit cube [0, 1]^3

uniform mat4 u_view_projection;
uniform vec3 u_lo;  // [m] world space
uniform vec3 u_hi;

out vec3 v_world;

void main() {
  v_world = mix(u_lo, u_hi, a_position);
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
