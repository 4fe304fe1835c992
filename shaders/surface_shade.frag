#version 330 core
// Surface mode, last pass: the water's colour, drawn over the scene where there is fluid.
//   refraction   the scene behind (tank floor, rendered to a texture first), looked up at
//                an offset along the normal that grows with the thickness
//   absorption   Beer-Lambert: transmittance exp(-absorption * thickness) per channel;
//                what is absorbed is partly replaced by the water's own scattered tint
//   reflection   Fresnel (Schlick, F0 = 0.02 for water) of an environment map
//   specular     Blinn-Phong highlight of the key light (the sun of the environment)
// The depth written is the smoothed surface's, so walls and the marker drawn later sit in
// front of or behind the water correctly.

in vec2 v_uv;

uniform sampler2D u_depth;      // smoothed eye depth [m]
uniform sampler2D u_normal;     // view-space normal
uniform sampler2D u_thickness;  // [m] summed sphere thickness
uniform sampler2D u_scene;      // what lies behind the water
uniform sampler2D u_environment;  // equirectangular, top row = up
uniform sampler2D u_opaque_depth; // the opaque scene's depth buffer (with u_check_opaque)
uniform int u_check_opaque;       // 1: obstacles may stand in front of the water
uniform mat4 u_projection;
uniform mat3 u_view_to_world;
uniform vec3 u_light_dir;  // towards the light, view space
uniform vec3 u_absorption;
uniform float u_thickness_scale;
uniform float u_reflectivity;
uniform float u_refraction;
uniform int u_debug;  // 0 shaded; 1 depth, 2 normal, 3 thickness (TIDEPOOL_SURFACE_DEBUG)

out vec4 frag_color;

const float kPi = 3.14159265;

vec3 environment(vec3 world_dir) {
  vec2 uv = vec2(atan(world_dir.z, world_dir.x) / (2.0 * kPi) + 0.5,
                 acos(clamp(world_dir.y, -1.0, 1.0)) / kPi);
  return textureLod(u_environment, uv, 0.0).rgb;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float d = texelFetch(u_depth, p, 0).r;
  if (d <= 0.0) discard;
  vec3 n = texelFetch(u_normal, p, 0).xyz;
  float thickness = texture(u_thickness, v_uv).r * u_thickness_scale;  // half resolution

  vec2 ndc = v_uv * 2.0 - 1.0;
  vec3 position = vec3(d * (ndc.x + u_projection[2][0]) / u_projection[0][0],
                       d * (ndc.y + u_projection[2][1]) / u_projection[1][1], -d);
  vec3 to_eye = normalize(-position);

  // Refraction: the scene where the refracted ray (index 1.33) has gone after crossing the
  // water, against where the straight ray would be, moves the lookup on screen.
  vec3 view_dir = -to_eye;
  vec3 bent = refract(view_dir, n, 1.0 / mix(1.0, 1.33, clamp(u_refraction, 0.0, 3.0)));
  float reach = min(thickness, 0.5);
  vec4 clip_bent = u_projection * vec4(position + bent * reach, 1.0);
  vec4 clip_straight = u_projection * vec4(position + view_dir * reach, 1.0);
  vec2 offset = 0.5 * (clip_bent.xy / clip_bent.w - clip_straight.xy / clip_straight.w);
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
    if (scene_depth < d) lookup = v_uv;
  }
  vec3 behind = texture(u_scene, lookup).rgb;
  vec3 transmittance = exp(-u_absorption * thickness);
  // Light scattered inside the water towards the eye: the sky's light, tinted by what the
  // water lets through over a short path, so thick water turns deep blue-green, not black.
  vec3 scatter = vec3(0.30, 0.55, 0.75) * exp(-u_absorption * 0.35) *
                 (0.55 + 0.45 * max((u_view_to_world * n).y, 0.0));
  vec3 refracted = behind * transmittance + scatter * (1.0 - transmittance);

  // Reflection of the environment, weighted by Fresnel.
  float cos_theta = clamp(dot(n, to_eye), 0.0, 1.0);
  float fresnel = 0.02 + 0.98 * pow(1.0 - cos_theta, 5.0);
  fresnel = clamp(fresnel * u_reflectivity, 0.0, 1.0);
  vec3 reflected = environment(u_view_to_world * reflect(-to_eye, n));

  vec3 half_vector = normalize(u_light_dir + to_eye);
  // Thin water at the outline (a lone particle, the last pixel of a silhouette) has the
  // least reliable normal: its highlight fades out rather than sparkle.
  float specular = pow(max(dot(n, half_vector), 0.0), 250.0) * 1.6 *
                   smoothstep(0.01, 0.06, thickness);

  vec3 color = mix(refracted, reflected, fresnel) + vec3(1.0, 0.97, 0.9) * specular;
  frag_color = vec4(color, 1.0);
  if (u_debug == 1) frag_color = vec4(vec3(fract(d * 4.0)), 1.0);
  if (u_debug == 2) frag_color = vec4(n * 0.5 + 0.5, 1.0);
  if (u_debug == 3) frag_color = vec4(vec3(thickness), 1.0);

  vec4 clip = u_projection * vec4(position, 1.0);
  gl_FragDepth = 0.5 * (gl_DepthRange.diff * clip.z / clip.w + gl_DepthRange.near + gl_DepthRange.far);
}
