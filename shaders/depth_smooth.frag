#version 330 core
// Surface mode, pass 2: smoothing of the eye depth, one axis per draw (x, then y).
//
// A separable bilateral filter (Gaussian in screen space times a Gaussian in depth), one
// draw per axis. Chosen over the narrow-range filter (Truong & Yuksel 2018), whose better
// behaviour at depth discontinuities comes from a full 2D kernel: (2r+1)^2 taps, about
// 20 times the 2(2r+1) taps here at r = 20 px, which Mesa's software GL cannot afford per
// frame; and over curvature flow (van der Laan et al. 2009), which needs tens of
// iterations. The separable bilateral's known artefact, streaks along the axes where one
// side of the kernel is empty, is removed by fitting a line to the taps rather than
// averaging them (below); empty pixels are never sampled, so the silhouette is not pulled
// towards the far plane (which would show as a halo). Taps more than twice u_depth_falloff
// in front of the centre are clamped to that distance, narrow-range style, so a near blob
// does not drag the water behind it forward.
//
// The radius follows the world: u_world_radius [m] projected at this pixel's depth, so the
// surface looks equally smooth near and far.

// The outline is smoothed too. Spheres at the silhouette leave it scalloped, one bump per
// particle; a Gaussian blur of the fluid mask (x in the first pass, y in the second, the
// coverage carried in the first pass's second channel) cut at one half draws it as a
// smooth curve instead. Its width, u_outline_radius, is under a particle radius, so a
// sheet one particle thick or a lone droplet stays. Pixels it adds get their depth from
// the same line fit, extrapolated from the water beside them.

in vec2 v_uv;

uniform sampler2D u_depth;     // pass 0: eye depth [m], 0 = no fluid; pass 1: (depth, coverage)
uniform int u_pass;            // 0 along x, 1 along y
uniform float u_world_radius;  // [m]
uniform float u_outline_radius;  // [m] sigma of the outline's blur
uniform float u_pixels_per_metre_at_1m;  // projection[1][1] * height / 2
uniform float u_depth_falloff;  // [m] depth difference at which a tap's weight is e^-0.5
uniform int u_max_radius;       // [px]
uniform int u_outline_search;   // [px] how far an empty pixel looks for water

out vec2 smoothed;  // (depth, coverage)

// A tap: its depth (0 = none) and how much of it is fluid.
vec2 tap(ivec2 q) {
  vec2 t = texelFetch(u_depth, q, 0).rg;
  return u_pass == 0 ? vec2(t.r, t.r > 0.0 ? 1.0 : 0.0) : t;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 size = textureSize(u_depth, 0);
  ivec2 axis = u_pass == 0 ? ivec2(1, 0) : ivec2(0, 1);
  vec2 center = tap(p);
  // The depth the filter's widths are projected at: this pixel's, or for a pixel just
  // outside the water the nearest water's along the axis, within u_outline_search pixels
  // (the outline blur's reach at the nearest depth water can have).
  float d0 = center.x;
  for (int i = 1; d0 <= 0.0 && i <= u_outline_search; ++i) {
    float da = tap(clamp(p + axis * i, ivec2(0), size - 1)).x;
    float db = tap(clamp(p - axis * i, ivec2(0), size - 1)).x;
    d0 = da > 0.0 ? da : db;
  }
  if (d0 <= 0.0) {
    smoothed = vec2(0.0);
    return;
  }
  float pixels_per_metre = u_pixels_per_metre_at_1m / d0;
  float radius = clamp(u_world_radius * pixels_per_metre, 1.0, float(u_max_radius));
  float outline_sigma = max(u_outline_radius * pixels_per_metre, 0.3);
  int outline_taps = min(int(ceil(2.5 * outline_sigma)), u_max_radius);
  int taps = max(int(ceil(radius)), outline_taps);
  float sigma = max(radius * 0.5, 0.5);
  float inv_two_sigma2 = 1.0 / (2.0 * sigma * sigma);
  float inv_two_outline2 = 1.0 / (2.0 * outline_sigma * outline_sigma);
  float inv_two_falloff2 = 1.0 / (2.0 * u_depth_falloff * u_depth_falloff);
  // A weighted straight-line fit through the taps, read at the centre, rather than their
  // weighted mean. Where the taps lie on both sides alike the two agree. At a silhouette
  // the taps come from one side only, and on a slanted surface their mean would shift the
  // depth by the slope times the reach, by a different amount in each column of a bumpy
  // outline, which the second axis draws out into streaks; the fit keeps the slope.
  float s0 = 0.0, s1 = 0.0, s2 = 0.0, t0 = 0.0, t1 = 0.0;
  float cover = 0.0, cover_weight = 0.0;
  float lo = 1e30, hi = 0.0;
  for (int i = -taps; i <= taps; ++i) {
    vec2 t = tap(clamp(p + axis * i, ivec2(0), size - 1));
    float x = float(i);
    if (i >= -outline_taps && i <= outline_taps) {
      float g = exp(-x * x * inv_two_outline2);
      cover += g * t.y;
      cover_weight += g;
    }
    if (t.x <= 0.0 || abs(i) > int(ceil(radius))) continue;
    // narrow range: a tap far in front counts as lying at the front limit
    float d = max(t.x, d0 - 2.0 * u_depth_falloff);
    float dz = d - d0;
    float w = t.y * exp(-x * x * inv_two_sigma2 - dz * dz * inv_two_falloff2);
    s0 += w;
    s1 += w * x;
    s2 += w * x * x;
    t0 += w * dz;  // relative to d0: no float cancellation at depth
    t1 += w * x * dz;
    lo = min(lo, d);
    hi = max(hi, d);
  }
  cover /= cover_weight;
  // The second pass holds the blur of the whole mask: below one half is outside. Its
  // coverage stays, under one half wherever there is no depth, for the composite, which
  // interpolates it between texels and cuts it at one half again: at any resolution scale
  // the outline is then as smooth as this blur drew it, never a staircase of texels.
  if (s0 <= 0.0 || (u_pass == 1 && cover < 0.5)) {
    smoothed = vec2(0.0, u_pass == 0 ? cover : min(cover, 0.49));
    return;
  }
  float mean = d0 + t0 / s0;
  float det = s0 * s2 - s1 * s1;
  // Too few taps apart to fit a line (an isolated pixel): the mean. The fit never leaves
  // the range of its taps, so a few noisy ones at an outline cannot throw it far.
  float depth = det > 1e-4 * s0 * s2 ? clamp(d0 + (s2 * t0 - s1 * t1) / det, lo, hi) : mean;
  smoothed = vec2(depth, cover);
}
