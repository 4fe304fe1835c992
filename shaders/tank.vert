#version 330 core
// The tank: floor, faint walls and edges, all in world space.

layout(location = 0) in vec3 a_position;  // [m] world space
layout(location = 1) in vec3 a_normal;    // pointing into the tank

uniform mat4 u_view_projection;

out vec3 v_world;
out vec3 v_normal;

void main() {
  v_world = a_position;
  v_normal = a_normal;
  gl_Position = u_view_projection * vec4(a_position, 1.0);
}
