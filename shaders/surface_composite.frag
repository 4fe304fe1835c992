#version 330 core
// Surface mode, last pass, at the window's resolution: the water drawn over the scene from
// the shading done at the surface's resolution scale (surface_shade.frag), as
//   colour = behind(uv + offset) * mul + add
// with the scene behind the water (the refracted floor) looked up at full resolution, so
// the floor seen through the water stays sharp at any scale.
//
// Upsampling that keeps the edges, with three linear (bilinear) lookups:
//  - Outline: the smoothing's coverage (a blurred fluid mask, carried in a.a) interpolated
//    and cut at one half, as the smoothing cuts it at its own resolution: the outline is a
//    smooth curve between the texels, not their staircase, and no wider or narrower than
//    at full resolution.
//  - Colour, refraction and depth: interpolated over the texels with water only. The
//    shading wrote them times `water` (1 or 0) and `water` itself; the interpolated sums
//    divided by the interpolated `water` are the bilinear weights renormalised over the
//    texels with water (a joint-bilateral weight that is 0 for a texel without water).
//    Nothing of the background is blended into the water's edge: no dark or bright rim.
// At scale 1 each pixel falls on a texel's centre and this is a copy of the shading.
// The depth written is the smoothed surface's, so walls and the marker drawn later sit in
// front of or behind the water correctly.

in vec2 v_uv;

uniform sampler2D u_a;            // scaled: (add.rgb * water, coverage)
uniform sampler2D u_b;            // scaled: (mul.rgb * water, water)
uniform sampler2D u_c;            // scaled: (offset * water, eye depth * water, 0)
uniform sampler2D u_scene;        // what lies behind the water, window-sized
uniform sampler2D u_opaque_depth; // the opaque scene's depth buffer (with u_check_opaque)
uniform int u_check_opaque;       // 1: obstacles may stand in front of the water
uniform mat4 u_projection;

out vec4 frag_color;

void main() {
  vec4 a = texture(u_a, v_uv);
  if (a.a < 0.5) discard;  // outside the outline
  vec4 b = texture(u_b, v_uv);
  if (b.a < 1e-3) discard;  // (inside it, but no texel with water around: none)
  vec4 c = texture(u_c, v_uv);
  float inv_water = 1.0 / b.a;
  vec3 add = a.rgb * inv_water, mul = b.rgb * inv_water;
  vec2 offset = c.xy * inv_water;
  float depth = c.z * inv_water;

  vec2 lookup = v_uv + offset;
  if (u_check_opaque != 0) {
    // The scene texture holds the obstacles in front of the water too: a lookup that lands
    // on one (its eye depth, z_ndc = -P22 - P32 / z_view, nearer than the water's) would
    // show it inside the water beside its silhouette. The straight lookup is behind the
    // water: this fragment passed the depth test against the same scene.
    // The nearest of the four texels the colour lookup blends (it filters linearly).
    vec2 texel = 0.5 / vec2(textureSize(u_opaque_depth, 0));
    float z = min(min(texture(u_opaque_depth, lookup + vec2(-texel.x, -texel.y)).r,
                      texture(u_opaque_depth, lookup + vec2(texel.x, -texel.y)).r),
                  min(texture(u_opaque_depth, lookup + vec2(-texel.x, texel.y)).r,
                      texture(u_opaque_depth, lookup + vec2(texel.x, texel.y)).r));
    float scene_depth = u_projection[3][2] / (2.0 * z - 1.0 + u_projection[2][2]);
    if (scene_depth < depth) lookup = v_uv;
  }
  vec3 behind = texture(u_scene, lookup).rgb;
  frag_color = vec4(behind * mul + add, 1.0);

  vec2 ndc = v_uv * 2.0 - 1.0;
  vec3 position = vec3(depth * (ndc.x + u_projection[2][0]) / u_projection[0][0],
                       depth * (ndc.y + u_projection[2][1]) / u_projection[1][1], -depth);
  vec4 clip = u_projection * vec4(position, 1.0);
  gl_FragDepth = 0.5 * (gl_DepthRange.diff * clip.z / clip.w + gl_DepthRange.near + gl_DepthRange.far);
}
