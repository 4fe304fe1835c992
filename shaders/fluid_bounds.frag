#version 330 core
// Surface mode, bounds pass: each particle's silhouette rectangle on screen, as
// (-lo.x, -lo.y, hi.x, hi.y) in NDC, into a 1 x 1 target blended with MAX: the rectangle
// that holds every sphere (the vertex stage is sphere_point.vert in bounds mode).

flat in vec4 v_bounds;

out vec4 bounds;

void main() { bounds = v_bounds; }
