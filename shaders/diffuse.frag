#version 330 core
// Diffuse particles, fragment stage: a soft round sprite per kind, premultiplied alpha
// (blend ONE, ONE_MINUS_SRC_ALPHA), no depth written.
//   spray    bright white-blue droplets, brightest in the middle
//   foam     white, slightly transparent, lit a little as a round blob
//   bubble   a pale ring; under the water's surface dimmed and tinted by the water in
//            front of it, Beer-Lambert exp(-absorption * depth below the surface), so it
//            reads as under water and fades out with depth
//
// Spheres mode: the depth test does the hiding (see diffuse.vert). Surface mode
// (u_surface_mode): the depth buffer holds the water's surface, in front of the bubbles,
// so the test is done here instead, with the depth test off: against the opaque scene
// (u_opaque_depth, the floor) for every kind, and for spray and foam against the water's
// smoothed surface, u_depth_pull nearer as in the spheres mode.

flat in int v_kind;
flat in float v_alpha;
flat in float v_eye_depth;  // [m]

uniform int u_surface_mode;
uniform sampler2D u_opaque_depth;  // window-sized depth of the opaque scene, [0, 1]
uniform sampler2D u_water_depth;   // smoothed eye depth of the water's surface [m], 0 = none,
                                   // at the surface's resolution scale
uniform int u_have_water;          // 0: no water drawn this frame (u_water_depth is stale)
uniform vec3 u_depth_pull;         // [m] per kind
uniform vec3 u_absorption;         // [1/m] per channel
uniform vec3 u_light_dir;          // towards the light, view space

out vec4 frag_color;

const vec3 kSpray = vec3(0.88, 0.95, 1.0);
const vec3 kFoam = vec3(0.96, 0.97, 1.0);
const vec3 kBubble = vec3(0.82, 0.92, 1.0);

void main() {
  // Across the sprite in [-1, 1]^2, y up (gl_PointCoord's origin is the upper left).
  vec2 corner = vec2(2.0 * gl_PointCoord.x - 1.0, 1.0 - 2.0 * gl_PointCoord.y);
  float r2 = dot(corner, corner);
  if (r2 >= 1.0 || v_alpha <= 0.0) discard;

  float below = 0.0;  // [m] under the water's surface, along the view direction
  if (u_surface_mode == 1) {
    ivec2 p = ivec2(gl_FragCoord.xy);
    if (gl_FragCoord.z >= texelFetch(u_opaque_depth, p, 0).r) discard;  // behind the floor
    float surface = 0.0;
    if (u_have_water == 1) {
      // The water's texel under this pixel (at the surface's resolution scale).
      ivec2 size = textureSize(u_water_depth, 0);
      vec2 per_pixel = vec2(size) / vec2(textureSize(u_opaque_depth, 0));
      surface = texelFetch(u_water_depth, min(ivec2(gl_FragCoord.xy * per_pixel), size - 1), 0).r;
    }
    if (surface > 0.0) {
      if (v_kind == 2)
        below = max(v_eye_depth - surface, 0.0);
      else if (v_eye_depth - u_depth_pull[v_kind] >= surface)
        discard;  // spray or foam behind the water
    }
  }

  float r = sqrt(r2);
  vec3 color;
  float alpha;
  if (v_kind == 0) {
    alpha = 0.95 * (1.0 - smoothstep(0.35, 1.0, r));
    color = kSpray * (1.0 + 0.25 * (1.0 - r2));
  } else if (v_kind == 1) {
    // A blob lit from the key light: the normal of a sphere seen through the sprite.
    vec3 normal = vec3(corner, sqrt(1.0 - r2));
    alpha = 0.8 * (1.0 - smoothstep(0.55, 1.0, r));
    color = kFoam * (0.82 + 0.18 * max(dot(normal, u_light_dir), 0.0));
  } else {
    alpha = (0.35 + 0.5 * smoothstep(0.45, 0.8, r)) * (1.0 - smoothstep(0.8, 1.0, r));
    color = kBubble;
  }
  alpha *= v_alpha;

  if (u_surface_mode == 1 && v_kind == 2) {
    vec3 transmittance = exp(-u_absorption * below);
    // What the water absorbs is replaced by its own scattered tint (as surface_shade.frag
    // does for the floor), so a deep bubble fades into the water rather than darkening it.
    // The surface reflects part of the light too: even a bubble just under it is dimmer
    // than foam on top.
    vec3 scatter = vec3(0.30, 0.55, 0.75) * exp(-u_absorption * 0.35);
    color = 0.8 * color * transmittance + scatter * (1.0 - transmittance);
    alpha *= mix(0.2, 1.0, dot(transmittance, vec3(1.0 / 3.0)));
  }
  frag_color = vec4(color * alpha, alpha);
}
