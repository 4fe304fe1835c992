#version 330 core
// The gas ray march, one pixel of the box's back faces (at the volume's reduced
// resolution): the eye ray from where it enters the box (or the eye, inside it) to this
// back face, in equal steps of at most u_step metres, front to back. Per sample, with the
// cell's light rgb (already lit by the simulation) and density a,
//   alpha = 1 - exp(-extinction * a * step),  C += T * alpha * rgb,  T *= 1 - alpha
// stopping at a solid cell (a = -1: the obstacle is already drawn, opaque, and smoke
// behind it must not show) or once T < 0.01. Writes (C, 1 - T), premultiplied, for the
// composite.
// The samples are offset per pixel by a fixed noise of up to one step, so the steps do not
// show as bands (slices) where the density changes fast; the bilinear upsampling in the
// composite blurs the noise.

in vec3 v_world;

uniform sampler3D u_field;     // rgb: light, a: density (-1 solid)
uniform vec3 u_lo;             // [m] the box
uniform vec3 u_hi;
uniform vec3 u_eye;            // [m] camera position
uniform float u_step;          // [m] the longest step
uniform float u_optical_step;  // extinction * u_step / ln 2: alpha = 1 - exp2(-a * this)
uniform int u_max_steps;       // the box's diagonal in steps (bounds a broken input)

out vec4 frag_color;

// A fixed noise in [0, 1) per pixel from its coordinates, no texture to fetch: interleaved
// gradient noise (Jimenez 2014), whose neighbours differ most, so the blur evens it out.
float pixel_noise(vec2 pixel) {
  return fract(52.9829189 * fract(dot(pixel, vec2(0.06711056, 0.00583715))));
}

void main() {
  vec3 to_back = v_world - u_eye;
  float t_far = length(to_back);
  vec3 dir = to_back / max(t_far, 1e-20);
  // Where the ray enters the box (the last of its entries into the three slabs): an axis it
  // is parallel to gets a tiny slope instead (its entry then lies far behind the eye).
  vec3 slope = mix(dir, vec3(1e-12), lessThan(abs(dir), vec3(1e-12)));
  vec3 t_lo = (u_lo - u_eye) / slope, t_hi = (u_hi - u_eye) / slope;
  vec3 t_enter = min(t_lo, t_hi);
  float t_near = max(max(t_enter.x, t_enter.y), max(t_enter.z, 0.0));

  // The path through the box in n equal steps of at most u_step (at least one where the
  // box is crossed at all): a ray grazing the box's silhouette gets one short step, not a
  // whole one or none, which would show as speckles along the box's edges.
  float path = t_far - t_near;
  int steps = path > 0.0 ? int(clamp(ceil(path / u_step), 1.0, float(u_max_steps))) : 0;
  float step = path / float(max(steps, 1));
  float optical_step = u_optical_step * (step / u_step);

  // In texture coordinates: the box is [0, 1]^3 and texel centres are the cells'.
  vec3 to_texture = 1.0 / (u_hi - u_lo);
  float t = t_near + pixel_noise(gl_FragCoord.xy) * step;
  vec3 p = (u_eye + dir * t - u_lo) * to_texture;
  vec3 dp = dir * step * to_texture;

  vec3 color = vec3(0.0);
  float transmit = 1.0;
  for (int i = 0; i < 8192; ++i) {  // (a constant bound as well, whatever the uniforms)
    if (i >= steps) break;
    vec4 s = textureLod(u_field, p, 0.0);  // (level 0: no derivatives in a loop that exits early)
    if (s.a < -0.5) break;  // solid
    float alpha = 1.0 - exp2(-max(s.a, 0.0) * optical_step);
    color += transmit * alpha * s.rgb;
    transmit *= 1.0 - alpha;
    if (transmit < 0.01) break;
    p += dp;
  }
  frag_color = vec4(color, 1.0 - transmit);
}
