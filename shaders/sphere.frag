#version 330 core
// Sphere impostor, fragment stage: intersects the eye ray with the sphere, writes the
// depth of the hit so spheres interpenetrate correctly, and shades it.

// The quad touches the sphere's front, so the written depth is never less than the
// quad's: declaring it lets the GPU keep its early depth test (hidden spheres are then
// not shaded at all). GL 4.2 core; an extension on 3.3 drivers.
#extension GL_ARB_conservative_depth : enable
#ifdef GL_ARB_conservative_depth
layout(depth_greater) out float gl_FragDepth;
#endif

in vec3 v_view_position;
flat in vec3 v_center;
flat in vec3 v_color;

uniform mat4 u_projection;
uniform float u_radius;
uniform float u_alpha;
uniform vec3 u_light_dir;  // towards the light, view space, unit length
uniform int u_disc;        // 2D: a flat disc with a thin darker rim instead of a lit ball

out vec4 frag_color;

void main() {
  // Ray from the eye (origin of view space) through this fragment.
  vec3 dir = normalize(v_view_position);
  float b = dot(dir, v_center);
  float c = dot(v_center, v_center) - u_radius * u_radius;
  float disc = b * b - c;
  if (disc < 0.0) discard;
  float t = b - sqrt(disc);
  vec3 hit = dir * t;
  vec3 normal = (hit - v_center) / u_radius;

  vec4 clip = u_projection * vec4(hit, 1.0);
  float ndc_depth = clip.z / clip.w;
  gl_FragDepth = 0.5 * (gl_DepthRange.diff * ndc_depth + gl_DepthRange.near + gl_DepthRange.far);

  vec3 to_eye = -dir;
  if (u_disc != 0) {
    // A disc seen square-on: its colour, flat, and a thin rim (the outer fifth of the
    // radius, by the hit's distance from the centre across the view) darker, so that
    // neighbouring discs read as separate. The depth stays the sphere's: overlapping discs
    // meet along a clean line.
    float across = sqrt(max(1.0 - pow(dot(normal, to_eye), 2.0), 0.0));
    frag_color = vec4(v_color * mix(1.0, 0.6, smoothstep(0.75, 0.9, across)), u_alpha);
    return;
  }
  // Diffuse + Blinn-Phong specular + a little ambient; a soft rim darkening helps
  // neighbouring spheres read as separate even in flat colour.
  vec3 half_vector = normalize(u_light_dir + to_eye);
  float diffuse = max(dot(normal, u_light_dir), 0.0);
  float specular = pow(max(dot(normal, half_vector), 0.0), 60.0);
  float rim = mix(0.75, 1.0, max(dot(normal, to_eye), 0.0));
  vec3 color = v_color * (0.25 + 0.75 * diffuse) * rim + vec3(0.45) * specular;
  frag_color = vec4(color, u_alpha);
}
