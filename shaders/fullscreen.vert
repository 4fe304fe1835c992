#version 330 core
// One triangle that covers the viewport, made from gl_VertexID (no vertex buffer): for
// passes that compute every pixel of their target (the video's colour conversion).

void main() {
  vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
