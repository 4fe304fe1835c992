#version 330 core
// Rigid obstacles (boxes and spheres): a unit mesh (the cube [-1, 1]^3 or the unit
// sphere) scaled by the obstacle's half extents or radius and moved to its centre.

layout(location = 0) in vec3 a_position;  // unit shape
layout(location = 1) in vec3 a_normal;    // outward, unit shape

uniform mat4 u_view_projection;
uniform vec3 u_center;  // [m] world space
uniform vec3 u_scale;   // [m] half extents (box) or the radius on every axis (sphere)

out vec3 v_world;   // [m]
out vec3 v_local;   // [m] relative to the centre
out vec3 v_normal;  // world space (axis-aligned scaling keeps the cube's face normals)

void main() {
  v_local = a_position * u_scale;
  v_world = u_center + v_local;
  v_normal = a_normal;
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
