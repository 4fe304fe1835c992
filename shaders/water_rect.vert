#version 330 core
// The rectangle of the screen where the water is: FluidBoundsPass's rectangle (NDC),
// grown by u_grow (NDC units), as a triangle strip of four vertices made from gl_VertexID
// (no vertex buffer). The surface's full-screen passes draw it instead of the whole
// screen: they then shade the water and its margin, not the empty rest of the window.
// No water (an empty rectangle): nothing is drawn.

uniform sampler2D u_bounds;  // 1 x 1: (-lo.x, -lo.y, hi.x, hi.y)
uniform vec2 u_grow;

out vec2 v_uv;

void main() {
  vec4 b = texelFetch(u_bounds, ivec2(0), 0);
  vec2 lo = max(-b.xy - u_grow, vec2(-1.0));
  vec2 hi = min(b.zw + u_grow, vec2(1.0));
  vec2 corner = vec2(float(gl_VertexID & 1), float(gl_VertexID >> 1));
  vec2 ndc = mix(lo, hi, corner);
  if (lo.x >= hi.x || lo.y >= hi.y) ndc = vec2(-2.0);  // all four outside: nothing drawn
  v_uv = ndc * 0.5 + 0.5;
  gl_Position = vec4(ndc, 0.0, 1.0);
}
