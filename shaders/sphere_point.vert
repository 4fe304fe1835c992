#version 330 core
// Sphere impostor as a point sprite, vertex stage, for the surface's depth and thickness
// passes: one vertex per particle, a square just covering the sphere's silhouette on
// screen (one draw, a quarter of the vertices of quads, and squares, which a rasteriser
// takes faster than pairs of triangles). The fragment stage casts its ray from
// gl_FragCoord.
// With u_bounds_mode the point goes to the single pixel of the bounds target instead,
// carrying the silhouette's rectangle on screen (FluidBoundsPass).

layout(location = 1) in vec4 a_particle;  // xyz position [m], w unused (splats: bound / h)
// With u_ellipsoids, the particle's ellipsoid splat (Simulation::build_splats): the
// quadratic form A' (the identity for a particle inside water at rest), the ellipsoid being
// (x - c)^T A' (x - c) <= u_radius^2, within a sphere of a_particle.w u_radius.
layout(location = 2) in vec4 a_form0;  // A'xx, A'yy, A'zz, A'xy
layout(location = 3) in vec4 a_form1;  // A'xz, A'yz

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;
uniform vec2 u_viewport;  // [px] the target's size
uniform int u_bounds_mode;
uniform int u_ellipsoids;

flat out vec3 v_center;  // sphere centre in view space
// The shape in view space as a quadratic form: the fragment stages hit
// (x - c)^T v_form (x - c) = 1 (a sphere: the identity over the radius squared).
flat out mat3 v_form;
flat out vec4 v_bounds;  // bounds mode: (-lo.x, -lo.y, hi.x, hi.y), the silhouette in NDC

void main() {
  vec3 center = (u_view * vec4(a_particle.xyz, 1.0)).xyz;
  v_center = center;
  float radius = u_radius;  // the sphere's, or the ellipsoid's bounding sphere's
  if (u_ellipsoids != 0) {
    mat3 a = mat3(a_form0.x, a_form0.w, a_form1.x,
                  a_form0.w, a_form0.y, a_form1.y,
                  a_form1.x, a_form1.y, a_form0.z);
    mat3 rotation = mat3(u_view);  // world to view: x_view = R x_world
    v_form = rotation * a * transpose(rotation) / (u_radius * u_radius);
    radius *= a_particle.w;
  } else {
    v_form = mat3(1.0 / (u_radius * u_radius));
  }
  float d = length(center);
  // The sphere's nearest depth: a point's depth is its centre's, and every hit on the
  // sphere lies further (conservative depth in the fragment stages).
  float nearest = -center.z - radius;
  if (d <= radius * 1.001 || nearest <= 1e-4) {
    // The eye is inside this sphere, or it reaches behind the eye: drop it (a clip-space
    // point outside the volume), as sphere.vert does.
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    gl_PointSize = 1.0;
    return;
  }
  // The silhouette: the circle where the cone of rays touching the sphere (half angle
  // asin(r/d)) meets the plane that touches the sphere's front, within a square of half
  // size `half_size` in that plane (see sphere.vert). The square's corners, projected,
  // bound the silhouette on screen.
  vec3 axis = center / d;
  vec3 helper = abs(axis.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
  vec3 right = normalize(cross(axis, helper));
  vec3 up = cross(right, axis);
  float front = d - radius;
  float half_size = front * radius / sqrt(d * d - radius * radius);
  vec2 lo = vec2(1e30), hi = vec2(-1e30);
  for (int k = 0; k < 4; ++k) {
    vec2 c = vec2(k & 1, k >> 1) * 2.0 - 1.0;
    vec4 clip = u_projection * vec4(axis * front + (c.x * right + c.y * up) * half_size, 1.0);
    vec2 ndc = clip.xy / max(clip.w, 1e-6);
    lo = min(lo, ndc);
    hi = max(hi, ndc);
  }
  if (u_bounds_mode != 0) {
    // (Clamped a little beyond the screen: what lies further out is never drawn.)
    v_bounds = vec4(-clamp(lo, -1.1, 1.1), clamp(hi, -1.1, 1.1));
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
    gl_PointSize = 1.0;
    return;
  }
  v_bounds = vec4(0.0);
  vec2 pixels = (hi - lo) * 0.5 * u_viewport;
  gl_PointSize = max(pixels.x, pixels.y) + 1.0;
  vec4 near_clip = u_projection * vec4(0.0, 0.0, -nearest, 1.0);
  gl_Position = vec4(0.5 * (lo + hi) * near_clip.w, near_clip.z, near_clip.w);
}
