#version 330 core
// A 2D gas grid's sheet, per pixel: the field between the cells (linear), its light rgb
// (already lit by the simulation) at the opacity 1 - exp(-u_opacity * density),
// premultiplied; nothing over a solid cell (density -1), where the obstacle is drawn.

in vec2 v_uv;

uniform sampler3D u_field;  // one cell thick: rgb light, a density (-1 solid)
uniform float u_opacity;    // per unit density

out vec4 frag_color;

void main() {
  vec4 s = texture(u_field, vec3(v_uv, 0.5));
  if (s.a < -0.5) discard;  // solid
  float alpha = 1.0 - exp(-u_opacity * max(s.a, 0.0));
  if (alpha <= 0.0) discard;
  frag_color = vec4(s.rgb * alpha, alpha);
}
