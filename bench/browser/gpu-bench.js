// Time to the first drawn frame (bench/gpu.mjs runs this in headless Chromium, from
// tests/browser/gpu.html): a packed field drawn through WebGL2, by two routes over the same
// chunks (in memory, so that the network is not timed) into the same canvas:
//   stored: getStored, the stored values and the decode table uploaded, decoded in the fragment
//           shader by gpuDecoder's code;
//   float32: get (Float64Array), converted to a Float32Array, uploaded as R32F, drawn by a shader
//           that reads the value.
// Both shaders colour the value through the same colour map (NaN transparent), and a frame
// counts as drawn when a pixel of it is read back. The 4096^2 fields are read on the page's thread
// and, both routes alike, in the default worker pool. The decoder and both programs are made
// before timing (once per array, as a viewer keeps them); their one-time cost is reported.
import * as zarr from "zarrita";
import { get, getStored, gpuDecoder, set, webgl2Textures } from "zarr-wasm-codecs";
import { designField } from "/bench/util.mjs";
import { COLORMAP } from "/www/colormap.js";
import { colormapTexture, drawFull, floatTexture, PAINT, program } from "/www/gl.js";

/** Texel of the field under this fragment, the canvas showing the whole field. */
const TEXEL = `ivec2 texelOf(ivec2 size, vec2 canvas) {
  return ivec2(gl_FragCoord.xy / canvas * vec2(size));
}`;

const storedShader = (decoder) => `#version 300 es
precision highp float;
precision highp int;
${decoder.glsl}
${PAINT}
uniform highp vec2 canvas;
${TEXEL}
void main() { paint(zarrDecodeAt(texelOf(textureSize(zarrStored, 0), canvas))); }`;

const floatShader = `#version 300 es
precision highp float;
precision highp int;
uniform highp sampler2D field;
${PAINT}
uniform highp vec2 canvas;
${TEXEL}
void main() { paint(texelFetch(field, texelOf(textureSize(field, 0), canvas), 0).r); }`;

/** A 4096 x 4096 array in memory, written by the package's set: uint8 or int16, zstd or not. */
async function written(n, type, compressed) {
  const packed = type === "uint8"
    ? { scale: 255 / 25, offset: -10, sentinel: 255 }
    : { scale: 1000, offset: 0, sentinel: -32768 };
  const meta = {
    zarr_format: 3, node_type: "array", shape: [n, n], data_type: "float64",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [512, 512] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } }, fill_value: "NaN",
    codecs: [
      { name: "scale_offset", configuration: { offset: packed.offset, scale: packed.scale } },
      { name: "cast_value", configuration: { data_type: type, out_of_range: "clamp", scalar_map: { encode: [["NaN", packed.sentinel]], decode: [[packed.sentinel, "NaN"]] } } },
      { name: "bytes", configuration: { endian: "little" } },
      ...(compressed ? [{ name: "zstd", configuration: { level: 3, checksum: false } }] : []),
    ],
    attributes: {},
  };
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const arr = await zarr.open(zarr.root(store), { kind: "array" });
  await set(arr, null, { data: designField(n), shape: [n, n], stride: [n, 1] });
  return arr;
}

/** A demo form's chunks in memory (from the server), opened. */
async function demoForm(path) {
  const base = new URL(`/www/data/real/${path}/`, location.href);
  const meta = await (await fetch(new URL("zarr.json", base))).arrayBuffer();
  const doc = JSON.parse(new TextDecoder().decode(meta));
  const store = new Map([["/zarr.json", new Uint8Array(meta)]]);
  const grid = doc.shape.map((n, d) => Math.ceil(n / doc.chunk_grid.configuration.chunk_shape[d]));
  const keys = grid.reduce((acc, n) => acc.flatMap((p) => Array.from({ length: n }, (_, c) => [...p, c])), [[]]);
  await Promise.all(keys.map(async (k) => {
    const r = await fetch(new URL(`c/${k.join("/")}`, base));
    if (r.ok) store.set(`/c/${k.join("/")}`, new Uint8Array(await r.arrayBuffer()));
  }));
  return zarr.open(zarr.root(store), { kind: "array" });
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))];
};

/**
 * Times both routes on each field, `rounds` rounds after 2 untimed ones, alternating which
 * goes first: per field, the medians and quartiles (ms), the bytes each uploads, and the
 * one-time cost of the stored route's decoder and program.
 */
export async function bench({ rounds = 15, big = 4096 } = {}) {
  const canvas = document.createElement("canvas");
  document.body.append(canvas);
  const gl = canvas.getContext("webgl2", { preserveDrawingBuffer: false, antialias: false });
  const colormap = colormapTexture(gl, COLORMAP);
  const fields = [];
  for (const [name, path, sel, scale] of [
    ["OISST SST int16 (90 x 180)", "oisst/sst/scale_offset.zarr", null, [-2, 32]],
    ["OISST SST uint8", "oisst/sst/uint8.zarr", null, [-2, 32]],
    ["precipitation int16 (33 x 81, a month)", "bcsd/pr/scale_offset.zarr", [8, null, null], [0, 500]],
    ["precipitation uint8", "bcsd/pr/uint8.zarr", [8, null, null], [0, 500]],
  ]) fields.push({ name, arr: await demoForm(path), sel, scale, view: null });
  for (const [type, compressed] of [["uint8", false], ["uint8", true], ["int16", false], ["int16", true]]) {
    const arr = await written(big, type, compressed);
    const name = `${big} x ${big} ${type}${compressed ? " + zstd" : ""} (512^2 chunks)`;
    fields.push({ name, arr, sel: null, scale: [-10, 15], view: 1024 });
    // Both reads in the default worker pool.
    fields.push({ name: `${name}, pool`, arr, sel: null, scale: [-10, 15], view: 1024, options: { pool: true } });
  }
  const results = [];
  for (const f of fields) {
    const t0 = performance.now();
    const decoder = await gpuDecoder(f.arr);
    const storedProgram = program(gl, storedShader(decoder));
    const oneTime = performance.now() - t0;
    const floatProgram = program(gl, floatShader);
    const [h, w] = f.arr.shape.slice(-2);
    const [cw, ch] = f.view ? [f.view, f.view] : [w, h];
    canvas.width = cw;
    canvas.height = ch;
    gl.viewport(0, 0, cw, ch);
    const uniforms = (p) => {
      gl.uniform1i(gl.getUniformLocation(p, "colormap"), 2);
      gl.uniform1f(gl.getUniformLocation(p, "lo"), f.scale[0]);
      gl.uniform1f(gl.getUniformLocation(p, "hi"), f.scale[1]);
      gl.uniform2f(gl.getUniformLocation(p, "canvas"), cw, ch);
    };
    const finish = () => {
      gl.activeTexture(gl.TEXTURE2);
      gl.bindTexture(gl.TEXTURE_2D, colormap);
      drawFull(gl);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    };
    const uploaded = {};
    // The table, uploaded once per array (as the decoder and program are made once).
    const first = webgl2Textures(gl, decoder, await getStored(f.arr, f.sel), { unit: 0 });
    gl.deleteTexture(first.stored);
    const routes = {
      async stored() {
        const chunk = await getStored(f.arr, f.sel, f.options);
        gl.useProgram(storedProgram);
        const t = webgl2Textures(gl, decoder, chunk, { unit: 0, program: storedProgram, table: first.table });
        uniforms(storedProgram);
        finish();
        uploaded.stored = chunk.data.byteLength;
        gl.deleteTexture(t.stored);
      },
      async float32() {
        const { data } = await get(f.arr, f.sel, f.options);
        const values = Float32Array.from(data);
        gl.useProgram(floatProgram);
        const t = floatTexture(gl, values, w, h, 0);
        gl.uniform1i(gl.getUniformLocation(floatProgram, "field"), 0);
        uniforms(floatProgram);
        finish();
        uploaded.float32 = values.byteLength;
        gl.deleteTexture(t);
      },
    };
    const times = { stored: [], float32: [] };
    for (let r = 0; r < rounds + 2; r++) {
      const order = r % 2 ? ["float32", "stored"] : ["stored", "float32"];
      for (const k of order) {
        const s = performance.now();
        await routes[k]();
        if (r >= 2) times[k].push(performance.now() - s);
      }
    }
    const summary = (xs) => ({ median: quantile(xs, 0.5), q1: quantile(xs, 0.25), q3: quantile(xs, 0.75) });
    results.push({
      field: f.name,
      values: w * h,
      canvas: [cw, ch],
      stored: summary(times.stored),
      float32: summary(times.float32),
      ratio: quantile(times.float32, 0.5) / quantile(times.stored, 0.5),
      uploaded,
      tableBytes: decoder.table.byteLength,
      oneTimeMs: oneTime,
    });
    gl.deleteTexture(first.table);
    gl.deleteProgram(storedProgram);
    gl.deleteProgram(floatProgram);
  }
  // The floor under every frame here: a draw of one colour at the demo's size and a pixel read back.
  canvas.width = 180;
  canvas.height = 90;
  gl.viewport(0, 0, 180, 90);
  const plain = program(gl, "#version 300 es\nprecision highp float;\nout vec4 c;\nvoid main() { c = vec4(1.0); }");
  gl.useProgram(plain);
  const frames = [];
  for (let r = 0; r < rounds + 2; r++) {
    const s = performance.now();
    drawFull(gl);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    if (r >= 2) frames.push(performance.now() - s);
  }
  canvas.remove();
  return { renderer: gl.getParameter(gl.VERSION), rounds, results, emptyFrameMs: quantile(frames, 0.5) };
}
