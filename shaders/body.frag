#version 330 core
// Rigid bodies, lit as pale wood: Lambert's diffuse from the other passes' key light over
// a sky/ground ambient, with faint grain (bands along the body's own x) so that a
// turning body shows it turns, and on boxes darkened edges so their faces read. A
// highlighted body (under the cursor with ctrl held, or being dragged) is brightened and
// gets a light rim.

in vec3 v_world;
in vec3 v_local;
in vec3 v_normal;

uniform int u_kind;         // 0 sphere, 1 box, 2 capsule, 3 mesh
uniform vec3 u_scale;       // [m] half extents or radius
uniform vec3 u_eye;         // [m] camera position
uniform vec3 u_light_dir;   // towards the light, world space, unit length
uniform vec3 u_color;       // base colour
uniform int u_highlight;    // 1: highlighted

out vec4 frag_color;

void main() {
  vec3 n = normalize(v_normal);
  vec3 to_eye = normalize(u_eye - v_world);
  // Grain: rings about the body's own x axis, wobbling a little along it.
  float r = length(v_local.yz) * 90.0 + 2.0 * sin(v_local.x * 23.0);
  float grain = 0.9 + 0.1 * smoothstep(0.2, 0.8, abs(fract(r) - 0.5) * 2.0);
  float edge = 1.0;
  if (u_kind == 1) {
    // Distance to the nearest edge of this face [m], in the body's frame.
    vec3 local_n = abs(v_local) / u_scale;
    vec3 inside = u_scale - abs(v_local);
    vec3 across = mix(inside, vec3(1e9), step(vec3(0.999), local_n));
    float to_edge = min(across.x, min(across.y, across.z));
    float width = clamp(0.04 * min(u_scale.x, min(u_scale.y, u_scale.z)), 0.003, 0.015);
    edge = mix(0.6, 1.0, smoothstep(0.0, width, to_edge));
  }
  float diffuse = max(dot(n, u_light_dir), 0.0);
  vec3 ambient = mix(vec3(0.22, 0.19, 0.16), vec3(0.36, 0.36, 0.38), 0.5 + 0.5 * n.y);
  vec3 color = u_color * grain * (ambient + 0.8 * diffuse) * edge;
  if (u_highlight != 0) {
    vec3 glow = vec3(1.0, 0.85, 0.55);
    float rim = pow(1.0 - max(dot(n, to_eye), 0.0), 2.0);
    color = mix(color, glow * (0.5 + 0.5 * diffuse), 0.3) + glow * rim * 0.8;
  }
  frag_color = vec4(color, 1.0);
}
