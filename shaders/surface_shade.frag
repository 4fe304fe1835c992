#version 330 core
// Surface mode, shading, at the surface's resolution scale: the water's colour, less what
// lies behind it, which the composite (surface_composite.frag) interpolates to the
// window's resolution and combines as  colour = behind(uv + offset) * mul + add:
//   refraction   the scene behind (tank floor, rendered to a texture first), looked up at
//                an offset along the normal that grows with the thickness
//   absorption   Beer-Lambert: transmittance exp(-absorption * thickness) per channel;
//                what is absorbed is partly replaced by the water's own scattered tint
//   reflection   Fresnel (Schlick, F0 = 0.02 for water) of an environment map
//   specular     Blinn-Phong highlight of the key light (the sun of the environment)
// Everything here follows the smoothed depth, its normals and the thickness, which are
// at this resolution anyway; the floor seen through the water keeps the window's.

in vec2 v_uv;

uniform sampler2D u_depth;      // (smoothed eye depth [m], 0 = no fluid; coverage)
uniform sampler2D u_normal;     // view-space normal
uniform sampler2D u_thickness;  // [m] summed sphere thickness
uniform sampler2D u_environment;  // equirectangular, top row = up
uniform mat4 u_projection;
uniform mat3 u_view_to_world;
uniform vec3 u_light_dir;  // towards the light, view space
uniform vec3 u_absorption;
uniform float u_thickness_scale;
uniform float u_reflectivity;
uniform float u_refraction;
uniform int u_two_d;  // 2D: the water is seen through its side, with no top facing the sky
uniform float u_thickness_cap;  // 2D: the water's depth [m], the most any pixel has (0: none)
uniform int u_debug;  // 0 shaded; 1 depth, 2 normal, 3 thickness (TIDEPOOL_SURFACE_DEBUG)
uniform vec3 u_eye_world;     // [m]
uniform vec3 u_tank_lo, u_tank_hi;  // [m] the tank's inner faces (world)
uniform float u_glass_spacing;  // [m] the particle spacing; 0: no tank

// For the composite, which filters them linearly between texels: what it interpolates is
// weighted by `water` (1 with water, 0 without), so that dividing by the interpolated
// `water` leaves the texels with water alone (see surface_composite.frag).
//   a: (add.rgb * water, coverage)  b: (mul.rgb * water, water)
//   c: (offset * water, eye depth * water, 0); offset: the refracted lookup's shift in
//      texture coordinates
layout(location = 0) out vec4 shade_a;
layout(location = 1) out vec4 shade_b;
layout(location = 2) out vec4 shade_c;

const float kPi = 3.14159265;

vec3 environment(vec3 world_dir) {
  vec2 uv = vec2(atan(world_dir.z, world_dir.x) / (2.0 * kPi) + 0.5,
                 acos(clamp(world_dir.y, -1.0, 1.0)) / kPi);
  return textureLod(u_environment, uv, 0.0).rgb;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec2 depth_cover = texelFetch(u_depth, p, 0).rg;
  float d = depth_cover.r;
  if (d <= 0.0) {
    // Written, not left: the composite reads the texels beside the water too, and the
    // outline's coverage reaches beyond it.
    shade_a = vec4(0.0, 0.0, 0.0, depth_cover.g);
    shade_b = vec4(0.0);
    shade_c = vec4(0.0);
    return;
  }
  vec3 n = texelFetch(u_normal, p, 0).xyz;
  float thickness = texture(u_thickness, v_uv).r * u_thickness_scale;  // half resolution
  if (u_thickness_cap > 0.0) thickness = min(thickness, u_thickness_cap);

  vec2 ndc = v_uv * 2.0 - 1.0;
  vec3 position = vec3(d * (ndc.x + u_projection[2][0]) / u_projection[0][0],
                       d * (ndc.y + u_projection[2][1]) / u_projection[1][1], -d);
  vec3 to_eye = normalize(-position);

  // Against the glass (SurfaceGlass, surface_shade_pass.h): water within two spacings of a
  // tank face that the eye looks through (the eye outside its plane: the front glass, a
  // side seen from beyond it, the floor seen from below; in 2D not the front and back
  // faces, which hold the whole layer) is seen through the glass, not open to the sky:
  // neither the sun nor the sky is reflected there. The edge that the screen-space
  // smoothing rounds where the top meets the glass lies within a spacing and a half of it
  // (measured on the pool); from two and a half on, the free surface is whole. Faces the
  // eye looks at from inside (the floor under shallow water, the back wall) do not count:
  // water there is open to the sky.
  float open_water = 1.0;
  if (u_glass_spacing > 0.0) {
    vec3 w = u_view_to_world * position + u_eye_world;
    vec3 lo = w - u_tank_lo, hi = u_tank_hi - w;
    bvec3 out_lo = lessThan(u_eye_world, u_tank_lo), out_hi = greaterThan(u_eye_world, u_tank_hi);
    float gap = 1e30;
    if (out_lo.x) gap = min(gap, lo.x);
    if (out_hi.x) gap = min(gap, hi.x);
    if (out_lo.y) gap = min(gap, lo.y);
    if (u_two_d == 0 && out_lo.z) gap = min(gap, lo.z);
    if (u_two_d == 0 && out_hi.z) gap = min(gap, hi.z);
    open_water = smoothstep(1.5 * u_glass_spacing, 2.5 * u_glass_spacing, gap);
  }

  // Refraction: the scene where the refracted ray (index 1.33) has gone after crossing the
  // water, against where the straight ray would be, moves the lookup on screen.
  vec3 view_dir = -to_eye;
  vec3 bent = refract(view_dir, n, 1.0 / mix(1.0, 1.33, clamp(u_refraction, 0.0, 3.0)));
  float reach = min(thickness, 0.5);
  vec4 clip_bent = u_projection * vec4(position + bent * reach, 1.0);
  vec4 clip_straight = u_projection * vec4(position + view_dir * reach, 1.0);
  vec2 offset = 0.5 * (clip_bent.xy / clip_bent.w - clip_straight.xy / clip_straight.w);
  vec3 transmittance = exp(-u_absorption * thickness);
  // Light scattered inside the water towards the eye: the sky's light, tinted by what the
  // water lets through over a short path, so thick water turns deep blue-green, not black.
  // (In 2D every normal lies across the view, none up: the water, seen through its side
  // as through an aquarium's, is taken as lit as a top facing the sky would be.)
  float sky = u_two_d != 0 ? 1.0 : 0.55 + 0.45 * max((u_view_to_world * n).y, 0.0);
  vec3 scatter = vec3(0.30, 0.55, 0.75) * exp(-u_absorption * 0.35) * sky;

  // Reflection of the environment, weighted by Fresnel.
  float cos_theta = clamp(dot(n, to_eye), 0.0, 1.0);
  float fresnel = 0.02 + 0.98 * pow(1.0 - cos_theta, 5.0);
  fresnel = clamp(fresnel * u_reflectivity, 0.0, 1.0) * open_water;
  vec3 reflected = environment(u_view_to_world * reflect(-to_eye, n));

  vec3 half_vector = normalize(u_light_dir + to_eye);
  // Thin water at the outline (a lone particle, the last pixel of a silhouette) has the
  // least reliable normal: its highlight fades out rather than sparkle.
  float specular = pow(max(dot(n, half_vector), 0.0), 250.0) * 1.6 *
                   smoothstep(0.01, 0.06, thickness) * open_water;

  // mix(behind * T + scatter * (1 - T), reflected, F) + specular, split into what
  // multiplies the scene behind and what adds to it.
  vec3 mul = transmittance * (1.0 - fresnel);
  vec3 add = scatter * (1.0 - transmittance) * (1.0 - fresnel) + reflected * fresnel +
             vec3(1.0, 0.97, 0.9) * specular;
  if (u_debug != 0) {
    mul = vec3(0.0);
    offset = vec2(0.0);
    if (u_debug == 1) add = vec3(fract(d * 4.0));
    if (u_debug == 2) add = n * 0.5 + 0.5;
    if (u_debug == 3) add = vec3(thickness);
  }
  shade_a = vec4(add, depth_cover.g);
  shade_b = vec4(mul, 1.0);
  shade_c = vec4(offset, d, 0.0);
}
