// WebGL2 plumbing the demo, its GPU test page and the GPU benchmark share: a program from a
// fragment shader drawn over the whole viewport (one triangle), a value's colour from a colour
// map (as colormap.js's colorOf gives it), and a float32 field uploaded as an R32F texture (the
// route without the package's shader decode, to compare with).

const VERTEX = `#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`;

/** A linked program of the full-viewport vertex shader and `fragment` (GLSL ES 3.00). */
export function program(gl, fragment) {
  const compile = (type, source) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, source);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`shader: ${gl.getShaderInfoLog(s)}\n${source}`);
    return s;
  };
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(p, compile(gl.FRAGMENT_SHADER, fragment));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(`program: ${gl.getProgramInfoLog(p)}`);
  return p;
}

/** Draws the bound program over the viewport (one triangle covering it). */
export function drawFull(gl) {
  gl.drawArrays(gl.TRIANGLES, 0, 3);
}

/** A float32 field of `width` x `height` as an R32F texture on unit `unit` (nearest texels). */
export function floatTexture(gl, values, width, height, unit = 0) {
  const t = gl.createTexture();
  gl.activeTexture(gl.TEXTURE0 + unit);
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
  for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T]) gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32F, width, height, 0, gl.RED, gl.FLOAT, values);
  return t;
}

/**
 * GLSL ES 3.00 for a fragment shader: `paint(v)` sets the output `color` to `v`'s colour on the
 * scale [lo, hi] (uniforms) from the colour map texture `colormap` (see `colormapTexture`), as
 * colorOf does; NaN is transparent.
 */
export const PAINT = `
uniform highp sampler2D colormap;
uniform highp float lo;
uniform highp float hi;
out highp vec4 color;
void paint(float v) {
  if ((floatBitsToUint(v) & 0x7fffffffu) > 0x7f800000u) {
    color = vec4(0.0);
    return;
  }
  float i = clamp(floor((v - lo) / (hi - lo) * 255.0 + 0.5), 0.0, 255.0);
  color = texelFetch(colormap, ivec2(int(i), 0), 0);
}`;

/** A colour map (256 RGB triples, colormap.js) as a 256 x 1 RGBA8 texture, opaque. */
export function colormapTexture(gl, rgb) {
  const rgba = new Uint8Array(256 * 4);
  for (let i = 0; i < 256; i++) rgba.set([rgb[i * 3], rgb[i * 3 + 1], rgb[i * 3 + 2], 255], i * 4);
  const t = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, t);
  for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, 256, 1, 0, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
  return t;
}
