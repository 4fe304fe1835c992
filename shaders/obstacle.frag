#version 330 core
// Rigid obstacles, lit like a matte sandstone so they read as solid and stay apart from
// the blue water and the grey tank: the key light of the other passes (the sky's sun),
// a sky/ground ambient, a faint sheen, and on boxes darkened edges so their faces read.
// A highlighted obstacle (under the cursor with ctrl held, or being dragged) is warmed
// and gets a bright rim.

in vec3 v_world;
in vec3 v_local;
in vec3 v_normal;

uniform int u_kind;         // 0 box, 1 sphere
uniform vec3 u_center;      // [m]
uniform vec3 u_scale;       // [m] half extents or radius
uniform vec3 u_eye;         // [m] camera position
uniform vec3 u_light_dir;   // towards the light, world space, unit length
uniform vec3 u_color;       // base colour
uniform int u_highlight;    // 1: highlighted

out vec4 frag_color;

void main() {
  // The sphere's normal per fragment: smooth at any tessellation.
  vec3 n = u_kind == 1 ? normalize(v_world - u_center) : normalize(v_normal);
  vec3 to_eye = normalize(u_eye - v_world);
  vec3 base = u_color;
  float edge = 1.0;
  if (u_kind == 0) {
    // Distance to the nearest edge of this face [m]: the two axes across the face.
    vec3 inside = u_scale - abs(v_local);
    vec3 across = mix(inside, vec3(1e9), abs(n));
    float to_edge = min(across.x, min(across.y, across.z));
    float width = clamp(0.04 * min(u_scale.x, min(u_scale.y, u_scale.z)), 0.003, 0.015);
    edge = mix(0.55, 1.0, smoothstep(0.0, width, to_edge));
  }
  float diffuse = max(dot(n, u_light_dir), 0.0);
  vec3 ambient = mix(vec3(0.20, 0.18, 0.16), vec3(0.34, 0.36, 0.40), 0.5 + 0.5 * n.y);
  vec3 half_vector = normalize(u_light_dir + to_eye);
  float sheen = 0.18 * pow(max(dot(n, half_vector), 0.0), 24.0);
  vec3 color = base * (ambient + 0.85 * diffuse) * edge + vec3(sheen);
  if (u_highlight != 0) {
    vec3 glow = vec3(1.0, 0.78, 0.32);
    float rim = pow(1.0 - max(dot(n, to_eye), 0.0), 2.0);
    color = mix(color, glow * (0.45 + 0.55 * diffuse), 0.35) + glow * rim * 0.9;
    if (u_kind == 0 && edge < 0.9) color = mix(color, glow, 0.6);  // outlined edges
  }
  frag_color = vec4(color, 1.0);
}
