#version 330 core
// Mesh mode: the water's thickness along each eye ray, additive: back faces add their eye
// depth, front faces subtract theirs, so the sum is the length of the ray inside the
// (closed) mesh.

in vec3 v_view_position;

out float thickness;

void main() { thickness = gl_FrontFacing ? v_view_position.z : -v_view_position.z; }
