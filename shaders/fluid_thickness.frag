#version 330 core
// Surface mode, thickness pass: each sphere adds the length of the eye ray inside it
// (additive blending), so the sum is the water's thickness along the ray [m] (about half
// of it, as spheres fill about half of the space: thickness_scale corrects for it).
// The vertex stage is sphere.vert; drawn at half resolution without a depth test.

in vec3 v_view_position;
flat in vec3 v_center;
flat in vec3 v_color;

uniform float u_radius;

out float thickness;

void main() {
  vec3 dir = normalize(v_view_position);
  float b = dot(dir, v_center);
  float c = dot(v_center, v_center) - u_radius * u_radius;
  float disc = b * b - c;
  if (disc < 0.0) discard;
  thickness = 2.0 * sqrt(disc);
}
