#version 330 core
// Surface mode, thickness pass: each sphere adds the length of the eye ray inside it
// (additive blending), so the sum is the water's thickness along the ray [m] (about half
// of it, as spheres fill about half of the space: thickness_scale corrects for it).
// The vertex stage is sphere.vert; drawn at half resolution without a depth test. With
// u_clip_to_scene (obstacles in the tank) a chord ends at the opaque scene's depth: the
// water behind an obstacle is not counted in front of it.

in vec3 v_view_position;
flat in vec3 v_center;
flat in vec3 v_color;

uniform float u_radius;
uniform mat4 u_projection;
uniform int u_clip_to_scene;
uniform sampler2D u_scene_depth;  // the opaque scene's depth buffer, twice this target's size

out float thickness;

void main() {
  vec3 dir = normalize(v_view_position);
  float b = dot(dir, v_center);
  float c = dot(v_center, v_center) - u_radius * u_radius;
  float disc = b * b - c;
  if (disc < 0.0) discard;
  float half_chord = sqrt(disc);
  if (u_clip_to_scene == 0) {
    thickness = 2.0 * half_chord;
    return;
  }
  // The scene's eye depth from its depth buffer: z_ndc = -P22 - P32 / z_view.
  // One texel of the 2 x 2 this pixel covers: an unfiltered fetch, the cheapest read.
  ivec2 texel = min(ivec2(gl_FragCoord.xy) * 2, textureSize(u_scene_depth, 0) - 1);
  float z_ndc = 2.0 * texelFetch(u_scene_depth, texel, 0).r - 1.0;
  float scene_depth = u_projection[3][2] / (z_ndc + u_projection[2][2]);
  float scene_t = scene_depth / max(-dir.z, 1e-6);  // along this ray
  thickness = max(min(b + half_chord, scene_t) - (b - half_chord), 0.0);
}
