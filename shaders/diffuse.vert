#version 330 core
// Diffuse particles (spray, foam, bubbles), vertex stage: one point sprite per particle
// (a square facing the screen; points rather than instanced quads, because at a few pixels
// wide a sprite is all per-instance overhead: one vertex each is the cheapest on any GL,
// software GL most of all). Its radius is u_radius [m], never under u_min_pixels on screen
// (a smaller one is drawn at that size, fainter by the area it lacks, so a far droplet
// dims rather than flickers in and out between pixels).
//
// In the spheres mode the depth it is tested at is pulled towards the eye (u_depth_pull,
// per kind): foam and spray sit at the centres of the surface's particles, behind the
// spheres' caps, and would otherwise be hidden by the water they float on. Only the depth
// moves; the sprite stays where the particle is on screen. (The surface mode tests the
// depth in diffuse.frag, with the same pull.)

layout(location = 0) in vec4 a_particle;  // xyz position [m], w = kind + fade

uniform mat4 u_view;
uniform mat4 u_projection;
uniform float u_radius;          // [m]
uniform float u_pixels_per_metre_at_1m;  // projection[1][1] * framebuffer height / 2
uniform float u_min_pixels;      // [px] smallest drawn radius
uniform float u_max_pixels;      // [px] largest (the driver's point size limit)
uniform vec3 u_depth_pull;       // [m] per kind
uniform int u_surface_mode;      // 1: the depth is tested in diffuse.frag, not pulled here

flat out int v_kind;       // 0 spray, 1 foam, 2 bubble
flat out float v_alpha;    // fade, times the coverage lost to the minimum size
flat out float v_eye_depth;  // [m]

// Sizes of spray, foam and bubbles relative to u_radius; foam also shrinks a little as it
// dissolves.
const vec3 kSize = vec3(0.9, 1.0, 0.8);

void main() {
  int kind = clamp(int(floor(a_particle.w)), 0, 2);
  float fade = clamp(a_particle.w - float(kind), 0.0, 1.0);
  vec3 center = (u_view * vec4(a_particle.xyz, 1.0)).xyz;
  v_kind = kind;
  float eye_depth = -center.z;
  v_eye_depth = eye_depth;
  if (eye_depth <= 1e-3 || fade <= 0.0) {
    // Behind the eye or gone: a point outside the clip volume.
    v_alpha = 0.0;
    gl_PointSize = 1.0;
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  float radius = u_radius * kSize[kind] * (kind == 1 ? mix(0.6, 1.0, fade) : 1.0);
  float pixels = radius * u_pixels_per_metre_at_1m / eye_depth;
  v_alpha = fade;
  if (pixels < u_min_pixels) v_alpha *= (pixels * pixels) / (u_min_pixels * u_min_pixels);
  gl_PointSize = 2.0 * clamp(pixels, u_min_pixels, u_max_pixels);

  gl_Position = u_projection * vec4(center, 1.0);
  float pull = u_surface_mode == 1 ? 0.0 : u_depth_pull[kind];
  if (pull > 0.0) {
    // Along the eye ray, at most half way to the eye.
    float distance = length(center);
    vec3 nearer = center * (max(distance - pull, 0.5 * distance) / distance);
    vec4 clip = u_projection * vec4(nearer, 1.0);
    gl_Position.z = clip.z / clip.w * gl_Position.w;
  }
}
