#version 330 core
// u_mode 0: the floor, lit and subtly checkered so that depth and scale read.
// u_mode 1: a flat translucent colour (walls, edges).

in vec3 v_world;
in vec3 v_normal;

uniform int u_mode;
uniform vec4 u_color;
uniform vec3 u_light_dir;  // towards the light, world space, unit length
uniform float u_cell;      // [m] checker cell size

out vec4 frag_color;

void main() {
  if (u_mode == 1) {
    frag_color = u_color;
    return;
  }
  vec2 cell = floor(v_world.xz / u_cell);
  float checker = mod(cell.x + cell.y, 2.0);
  vec3 base = mix(vec3(0.50, 0.52, 0.55), vec3(0.58, 0.60, 0.63), checker);
  float diffuse = max(dot(normalize(v_normal), u_light_dir), 0.0);
  frag_color = vec4(base * (0.35 + 0.65 * diffuse), 1.0);
}
