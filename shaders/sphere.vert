#version 330 core
// Sphere impostor, vertex stage: places a quad that just covers the sphere's silhouette
// and colours the particle once here (flat) rather than per fragment.

layout(location = 0) in vec2 a_corner;    // quad corner in [-1, 1]^2
layout(location = 1) in vec4 a_particle;  // xyz position [m], w value to colour by

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;
uniform int u_color_mode;  // 0 water, 1 speed, 2 density, 3 pressure, 4 flat, 5 neighbours,
                           // 6 vorticity, 7 density error
uniform vec2 u_range;      // values mapped to the ends of the colour map
uniform vec3 u_flat_color;

out vec3 v_view_position;  // this corner in view space: the fragment's ray direction
flat out vec3 v_center;    // sphere centre in view space
flat out vec3 v_color;

// Piecewise-linear colour maps through a few stops of well-known perceptual maps.
vec3 ramp5(vec3 c0, vec3 c1, vec3 c2, vec3 c3, vec3 c4, float t) {
  float x = clamp(t, 0.0, 1.0) * 4.0;
  if (x < 1.0) return mix(c0, c1, x);
  if (x < 2.0) return mix(c1, c2, x - 1.0);
  if (x < 3.0) return mix(c2, c3, x - 2.0);
  return mix(c3, c4, x - 3.0);
}

vec3 viridis(float t) {
  return ramp5(vec3(0.267, 0.005, 0.329), vec3(0.231, 0.322, 0.545), vec3(0.129, 0.569, 0.549),
               vec3(0.369, 0.788, 0.384), vec3(0.992, 0.906, 0.145), t);
}

vec3 inferno(float t) {
  // Starts a little above black so low pressures stay visible on a dark background.
  return ramp5(vec3(0.09, 0.04, 0.20), vec3(0.341, 0.063, 0.431), vec3(0.737, 0.216, 0.329),
               vec3(0.976, 0.557, 0.035), vec3(0.988, 1.0, 0.643), t);
}

vec3 cool_warm(float t) {
  t = clamp(t, 0.0, 1.0);
  vec3 cold = vec3(0.230, 0.299, 0.754), mid = vec3(0.865, 0.865, 0.865),
       warm = vec3(0.706, 0.016, 0.150);
  return t < 0.5 ? mix(cold, mid, t * 2.0) : mix(mid, warm, t * 2.0 - 1.0);
}

vec3 water(float t) {
  t = clamp(t, 0.0, 1.0);
  vec3 deep = vec3(0.03, 0.20, 0.52), bright = vec3(0.12, 0.47, 0.85),
       foam = vec3(0.88, 0.94, 1.0);
  return t < 0.4 ? mix(deep, bright, t / 0.4) : mix(bright, foam, smoothstep(0.4, 1.0, t));
}

float normalised(float value) {
  float span = u_range.y - u_range.x;
  return span != 0.0 ? (value - u_range.x) / span : 0.5;
}

vec3 particle_color(float value) {
  if (u_color_mode == 0) return water(normalised(value));
  if (u_color_mode == 1) return viridis(normalised(value));
  if (u_color_mode == 2) {
    // Diverging around rho/rho0 = 1 whatever the range: each half scales on its own side.
    float lo = min(u_range.x, 0.9999), hi = max(u_range.y, 1.0001);
    float t = value < 1.0 ? 0.5 * (value - lo) / (1.0 - lo) : 0.5 + 0.5 * (value - 1.0) / (hi - 1.0);
    return cool_warm(t);
  }
  if (u_color_mode == 3) return inferno(normalised(value));
  if (u_color_mode == 5) return viridis(normalised(value));
  if (u_color_mode == 6) return inferno(normalised(value));
  if (u_color_mode == 7) return cool_warm(0.5 + 0.5 * clamp(normalised(value), 0.0, 1.0));
  return u_flat_color;
}

void main() {
  vec3 center = (u_view * vec4(a_particle.xyz, 1.0)).xyz;
  float d = length(center);
  v_center = center;
  v_color = particle_color(a_particle.w);
  if (d <= u_radius * 1.001) {
    // The eye is inside this sphere: drop it (a clip-space point outside the volume).
    v_view_position = vec3(0.0);
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  // The quad lies in the plane that touches the sphere's front, facing the eye. The
  // silhouette cone (half angle asin(r/d)) meets that plane at distance d - r in a circle
  // of radius (d - r) r / sqrt(d^2 - r^2), so the quad covers the sphere exactly even at
  // the edge of a wide field of view. Every sphere point seen through the quad lies
  // further along the same eye ray, so the fragment's depth only grows (see sphere.frag).
  vec3 axis = center / d;
  vec3 helper = abs(axis.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
  vec3 right = normalize(cross(axis, helper));
  vec3 up = cross(right, axis);
  float front = d - u_radius;
  float half_size = front * u_radius / sqrt(d * d - u_radius * u_radius);
  vec3 corner = axis * front + (a_corner.x * right + a_corner.y * up) * half_size;
  v_view_position = corner;
  gl_Position = u_projection * vec4(corner, 1.0);
}
