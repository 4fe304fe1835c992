#version 330 core
// Rigid bodies (boxes, spheres, capsules, meshes at scale 1): a unit mesh scaled by the body's half extents
// (box) or radius (sphere, capsule), a capsule's halves moved apart along its own y by its
// half height, then turned and moved by the body's pose.

layout(location = 0) in vec3 a_position;  // unit shape
layout(location = 1) in vec3 a_normal;    // outward, unit shape
layout(location = 2) in float a_cap;      // capsule: +1 upper half, -1 lower half; else 0

uniform mat4 u_view_projection;
uniform mat4 u_model;         // the pose: rotation and the centre [m]
uniform vec3 u_scale;         // [m] half extents (box) or the radius on every axis
uniform float u_half_height;  // [m] capsule; 0 otherwise

out vec3 v_world;   // [m]
out vec3 v_local;   // [m] in the body's frame, relative to its centre
out vec3 v_normal;  // world space (the scaling is along the body's axes: the unit shape's
                    // normals are the box's face normals, the sphere's radial ones)

void main() {
  v_local = a_position * u_scale + vec3(0.0, a_cap * u_half_height, 0.0);
  v_world = vec3(u_model * vec4(v_local, 1.0));
  v_normal = mat3(u_model) * a_normal;
  gl_Position = u_view_projection * vec4(v_world, 1.0);
}
