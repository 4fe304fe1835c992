#version 330 core
// The grid overlay's lines: the cell's colour, nearly opaque (1-pixel lines hide little).

flat in vec3 v_color;

out vec4 frag_color;

void main() { frag_color = vec4(v_color, 0.9); }
