#version 330 core
// Surface mode, pass 1: the particles' sphere (or ellipsoid splat) depth. Same impostor as
// sphere.frag, drawn as a point (the vertex stage is sphere_point.vert): the ray's hit's true depth goes
// to the depth buffer, and its linear eye depth [m] (positive, 0 = no fluid) to the colour
// target.
#extension GL_ARB_conservative_depth : enable
#ifdef GL_ARB_conservative_depth
layout(depth_greater) out float gl_FragDepth;
#endif

flat in vec3 v_center;
flat in mat3 v_form;  // the sphere, or the ellipsoid splat: (x - c)^T v_form (x - c) = 1

uniform mat4 u_projection;
uniform vec2 u_viewport;  // [px] the target's size

out float eye_depth;

void main() {
  // This pixel's eye ray, back through the projection (P20, P21 hold the screen shift).
  vec2 ndc = gl_FragCoord.xy / u_viewport * 2.0 - 1.0;
  vec3 dir = normalize(vec3((ndc.x + u_projection[2][0]) / u_projection[0][0],
                            (ndc.y + u_projection[2][1]) / u_projection[1][1], -1.0));
  // Along the ray x = t dir: a t^2 - 2 b t + c = 0.
  vec3 m_dir = v_form * dir;
  float a = dot(dir, m_dir);
  float b = dot(m_dir, v_center);
  float c = dot(v_center, v_form * v_center) - 1.0;
  float disc = b * b - a * c;
  if (disc < 0.0) discard;
  vec3 hit = dir * ((b - sqrt(disc)) / a);
  vec4 clip = u_projection * vec4(hit, 1.0);
  gl_FragDepth = 0.5 * (gl_DepthRange.diff * clip.z / clip.w + gl_DepthRange.near + gl_DepthRange.far);
  eye_depth = -hit.z;
}
