#version 330 core
// Surface mode, pass 3: view-space normals from the smoothed eye depth. Each pixel's view
// position comes back through the projection; the tangents are differences to the
// neighbour on the side whose depth is closer (the smaller difference), so a pixel at a
// silhouette takes its slope from the water it belongs to, not from the jump to what lies
// behind. No neighbour with fluid on an axis: that tangent is flat.

in vec2 v_uv;

uniform sampler2D u_depth;  // smoothed eye depth [m], 0 = no fluid
uniform mat4 u_projection;

out vec4 normal_out;

vec3 view_position(ivec2 p, float d) {
  vec2 size = vec2(textureSize(u_depth, 0));
  vec2 ndc = (vec2(p) + 0.5) / size * 2.0 - 1.0;
  // clip.x = P00 x + P20 z, clip.w = -z = d (P20 holds the screen shift).
  return vec3(d * (ndc.x + u_projection[2][0]) / u_projection[0][0],
              d * (ndc.y + u_projection[2][1]) / u_projection[1][1], -d);
}

vec3 tangent(ivec2 p, vec3 center, ivec2 axis) {
  ivec2 size = textureSize(u_depth, 0);
  ivec2 pa = clamp(p + axis, ivec2(0), size - 1), pb = clamp(p - axis, ivec2(0), size - 1);
  float da = texelFetch(u_depth, pa, 0).r, db = texelFetch(u_depth, pb, 0).r;
  bool a_ok = da > 0.0 && pa != p, b_ok = db > 0.0 && pb != p;
  vec3 forward = a_ok ? view_position(pa, da) - center : vec3(0.0);
  vec3 backward = b_ok ? center - view_position(pb, db) : vec3(0.0);
  if (a_ok && b_ok) return abs(forward.z) < abs(backward.z) ? forward : backward;
  if (a_ok) return forward;
  if (b_ok) return backward;
  // Flat along this axis: the screen axis at this depth.
  return axis.x != 0 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float d = texelFetch(u_depth, p, 0).r;
  if (d <= 0.0) {
    normal_out = vec4(0.0);
    return;
  }
  vec3 center = view_position(p, d);
  vec3 n = normalize(cross(tangent(p, center, ivec2(1, 0)), tangent(p, center, ivec2(0, 1))));
  if (dot(n, center) > 0.0) n = -n;  // towards the eye
  normal_out = vec4(n, 1.0);
}
