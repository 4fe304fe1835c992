#version 330 core
// The gas ray march's result (gas_volume.frag, at the volume's reduced resolution),
// upsampled bilinearly to the framebuffer over the box's pixels: premultiplied colour
// and opacity, blended with ONE, ONE_MINUS_SRC_ALPHA over what is drawn.

uniform sampler2D u_gas;
uniform vec4 u_viewport;  // the framebuffer's viewport: x, y, width, height [pixels]

out vec4 frag_color;

void main() {
  vec4 gas = textureLod(u_gas, (gl_FragCoord.xy - u_viewport.xy) / u_viewport.zw, 0.0);
  if (gas.a <= 0.0) discard;  // no smoke: leave the pixel alone
  frag_color = gas;
}
