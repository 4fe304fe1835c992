#version 330 core
// Surface mode, thickness pass: each sphere (or ellipsoid splat) adds the length of the eye ray inside it
// (additive blending), so the sum is the water's thickness along the ray [m] (about half
// of it, as spheres fill about half of the space: thickness_scale corrects for it).
// The vertex stage is sphere_point.vert; drawn at half the resolution scale's without a
// depth test. With u_clip_to_scene (obstacles in the tank) a chord ends at the opaque
// scene's depth: the water behind an obstacle is not counted in front of it.

flat in vec3 v_center;
flat in mat3 v_form;  // the sphere, or the ellipsoid splat: (x - c)^T v_form (x - c) = 1

uniform mat4 u_projection;
uniform vec2 u_viewport;  // [px] the target's size
uniform int u_clip_to_scene;
uniform sampler2D u_scene_depth;  // the opaque scene's depth buffer, window-sized
uniform vec2 u_scene_per_texel;   // its texels per texel of this target (2 at scale 1)

out float thickness;

void main() {
  // This pixel's eye ray, back through the projection (P20, P21 hold the screen shift).
  vec2 ndc = gl_FragCoord.xy / u_viewport * 2.0 - 1.0;
  vec3 dir = normalize(vec3((ndc.x + u_projection[2][0]) / u_projection[0][0],
                            (ndc.y + u_projection[2][1]) / u_projection[1][1], -1.0));
  // Along the ray x = t dir: a t^2 - 2 b t + c = 0; the hits at (b -+ sqrt(disc)) / a.
  vec3 m_dir = v_form * dir;
  float a = dot(dir, m_dir);
  float c = dot(v_center, v_form * v_center) - 1.0;
  float b_raw = dot(m_dir, v_center);
  float disc = b_raw * b_raw - a * c;
  if (disc < 0.0) discard;
  float half_chord = sqrt(disc) / a;
  float b = b_raw / a;  // the chord's middle
  if (u_clip_to_scene == 0) {
    thickness = 2.0 * half_chord;
    return;
  }
  // The scene's eye depth from its depth buffer: z_ndc = -P22 - P32 / z_view.
  // One texel of those this pixel covers: an unfiltered fetch, the cheapest read.
  ivec2 texel = min(ivec2(floor(gl_FragCoord.xy) * u_scene_per_texel),
                    textureSize(u_scene_depth, 0) - 1);
  float z_ndc = 2.0 * texelFetch(u_scene_depth, texel, 0).r - 1.0;
  float scene_depth = u_projection[3][2] / (z_ndc + u_projection[2][2]);
  float scene_t = scene_depth / max(-dir.z, 1e-6);  // along this ray
  thickness = max(min(b + half_chord, scene_t) - (b - half_chord), 0.0);
}
