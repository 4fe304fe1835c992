#version 330 core
// The video's frame as ffmpeg's yuv420p, computed here so that the encoder has no colour
// conversion to do and a third of the bytes to read (render/frame_readback.h): the target
// is W x (3H/2) bytes of one channel, its rows in the order ffmpeg reads them, top first:
// H rows of luma (Y), then the two chroma planes (U, then V), each (W/2) x (H/2), two of
// their rows to each row of the target. BT.709, limited range (16 to 235 and 240), as the
// encoder tags the stream; chroma is the mean of each 2 x 2 block. u_frame is the window's
// frame (GL's rows, bottom first), W x H.

uniform sampler2D u_frame;
uniform ivec2 u_size;  // W, H (W even, H a multiple of 4)

out float o_value;

vec3 rgb(ivec2 top_left_pixel) {
  // (x, y) counted from the top-left corner
  return texelFetch(u_frame, ivec2(top_left_pixel.x, u_size.y - 1 - top_left_pixel.y), 0).rgb;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  int w = u_size.x, h = u_size.y;
  if (p.y < h) {
    vec3 c = rgb(p);
    o_value = (16.0 + 219.0 * dot(c, vec3(0.2126, 0.7152, 0.0722))) / 255.0;
    return;
  }
  // A chroma row: which plane, and which two of its rows.
  int row = p.y - h;              // 0 .. H/2 - 1 (U: 0 .. H/4 - 1, V: the rest)
  bool v_plane = row >= h / 4;
  int pair = v_plane ? row - h / 4 : row;
  int half_w = w / 2;
  ivec2 q = ivec2(p.x % half_w, 2 * pair + (p.x >= half_w ? 1 : 0));  // in the (W/2) x (H/2) plane
  // The block's top-left pixel is (2 q.x, 2 q.y) from the top: its centre lies between GL
  // columns 2 q.x and 2 q.x + 1 and GL rows h - 2 - 2 q.y and h - 1 - 2 q.y.
  vec2 centre = vec2(float(2 * q.x + 1) / float(w), float(h - 1 - 2 * q.y) / float(h));
  vec3 c = textureLod(u_frame, centre, 0.0).rgb;
  float value = v_plane ? dot(c, vec3(0.5, -0.4542, -0.0458)) : dot(c, vec3(-0.1146, -0.3854, 0.5));
  o_value = (128.0 + 224.0 * value) / 255.0;
}
