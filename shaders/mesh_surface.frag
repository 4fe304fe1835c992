#version 330 core
// Mesh mode: the nearest triangle's linear eye depth [m] with full coverage, and its
// view-space normal, for the surface's shading (what the splat passes' smoothing and
// normal reconstruction give the surface mode).

in vec3 v_view_position;
in vec3 v_view_normal;

layout(location = 0) out vec2 depth_cover;
layout(location = 1) out vec4 normal_out;

void main() {
  vec3 n = normalize(v_view_normal);
  if (dot(n, v_view_position) > 0.0) n = -n;  // seen from inside (the eye in the water)
  depth_cover = vec2(-v_view_position.z, 1.0);
  normal_out = vec4(n, 1.0);
}
