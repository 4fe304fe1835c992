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

in vec2 v_uv;

uniform sampler2D u_depth;     // eye depth [m], 0 = no fluid
uniform ivec2 u_axis;          // (1, 0) or (0, 1)
uniform float u_world_radius;  // [m]
uniform float u_pixels_per_metre_at_1m;  // projection[1][1] * height / 2
uniform float u_depth_falloff;  // [m] depth difference at which a tap's weight is e^-0.5
uniform int u_max_radius;       // [px]

out float smoothed;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec2 size = textureSize(u_depth, 0);
  float d0 = texelFetch(u_depth, p, 0).r;
  if (d0 <= 0.0) {
    smoothed = 0.0;
    return;
  }
  float radius = clamp(u_world_radius * u_pixels_per_metre_at_1m / d0, 1.0, float(u_max_radius));
  int taps = int(ceil(radius));
  float sigma = max(radius * 0.5, 0.5);
  float inv_two_sigma2 = 1.0 / (2.0 * sigma * sigma);
  float inv_two_falloff2 = 1.0 / (2.0 * u_depth_falloff * u_depth_falloff);
  // A weighted straight-line fit through the taps, read at the centre, rather than their
  // weighted mean. Where the taps lie on both sides alike the two agree. At a silhouette
  // the taps come from one side only, and on a slanted surface their mean would shift the
  // depth by the slope times the reach, by a different amount in each column of a bumpy
  // outline, which the second axis draws out into streaks; the fit keeps the slope.
  float s0 = 0.0, s1 = 0.0, s2 = 0.0, t0 = 0.0, t1 = 0.0;
  float lo = d0, hi = d0;
  for (int i = -taps; i <= taps; ++i) {
    ivec2 q = clamp(p + u_axis * i, ivec2(0), size - 1);
    float d = texelFetch(u_depth, q, 0).r;
    if (d <= 0.0) continue;
    // narrow range: a tap far in front counts as lying at the front limit
    d = max(d, d0 - 2.0 * u_depth_falloff);
    float dz = d - d0;
    float w = exp(-float(i * i) * inv_two_sigma2 - dz * dz * inv_two_falloff2);
    float x = float(i);
    s0 += w;
    s1 += w * x;
    s2 += w * x * x;
    t0 += w * dz;  // relative to the centre: no float cancellation at depth
    t1 += w * x * dz;
    lo = min(lo, d);
    hi = max(hi, d);
  }
  float mean = d0 + t0 / s0;
  float det = s0 * s2 - s1 * s1;
  // Too few taps apart to fit a line (an isolated pixel): the mean. The fit never leaves
  // the range of its taps, so a few noisy ones at an outline cannot throw it far.
  smoothed = det > 1e-4 * s0 * s2 ? clamp(d0 + (s2 * t0 - s1 * t1) / det, lo, hi) : mean;
}
