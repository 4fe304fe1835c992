#version 330 core
// Mesh mode: the water's triangles (position, normal per vertex) in view space.

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;

uniform mat4 u_view;
uniform mat4 u_projection;

out vec3 v_view_position;
out vec3 v_view_normal;

void main() {
  vec4 view = u_view * vec4(a_position, 1.0);
  v_view_position = view.xyz;
  v_view_normal = mat3(u_view) * a_normal;  // the view has no scaling
  gl_Position = u_projection * view;
}
