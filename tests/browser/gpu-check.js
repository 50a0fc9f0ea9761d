// The GPU decode, measured on the GPU (tests/node/gpu/gpu.test.mjs runs this page): arrays whose
// one stored chunk holds every value of its stored type (int8, uint8, int16, uint16, float16),
// with a second chunk missing (the fill value), under several chains each: scale_offset +
// cast_value with a NaN sentinel on float64, the same on float32, cast_value alone with a
// sentinel mapped to a number, integer arrays, and no value codecs. Each is read with
// getStored, uploaded as stored, decoded by gpuDecoder's generated code (WebGL2: a fragment
// shader writing the float32's bits to an R32UI target; WebGPU: a compute shader writing them
// to a buffer) and compared, value by value, with the CPU's get rounded to float32.
import * as zarr from "zarrita";
import { get, getStored, gpuDecoder, webgl2Textures, webgpuResources } from "zarr-wasm-codecs";
import { drawFull, program } from "/www/gl.js";

/** Every value of a stored type, in order (float16: every bit pattern). */
const TYPES = {
  int8: { Typed: Int8Array, min: -128, count: 256, shape: [16, 16] },
  uint8: { Typed: Uint8Array, min: 0, count: 256, shape: [16, 16] },
  int16: { Typed: Int16Array, min: -32768, count: 65536, shape: [256, 256] },
  uint16: { Typed: Uint16Array, min: 0, count: 65536, shape: [256, 256] },
  float16: { Typed: Uint16Array, min: 0, count: 65536, shape: [256, 256] },
};

/** The chains each stored type is decoded through: [name, data_type, fill_value, value codecs]. */
function chainsOf(type) {
  const sentinel = { int8: -128, uint8: 255, int16: -32768, uint16: 65535 }[type];
  const packed = {
    int8: { offset: 0.5, scale: 3 },
    uint8: { offset: -7.59499951203664, scale: 5.457291182525317 },
    int16: { offset: 273.15, scale: 100 },
    uint16: { offset: -40, scale: 333.3333333333333 },
    float16: { offset: 1013.25, scale: 0.1 },
  }[type];
  const nan = type === "float16" ? {} : { scalar_map: { encode: [["NaN", sentinel]], decode: [[sentinel, "NaN"]] } };
  const cast = (extra = {}) => ({ name: "cast_value", configuration: { data_type: type, out_of_range: "clamp", ...extra } });
  const chains = [
    ["float64 scale_offset + cast_value", "float64", "NaN", [{ name: "scale_offset", configuration: packed }, cast(nan)]],
    ["float32 scale_offset + cast_value", "float32", -1.5, [{ name: "scale_offset", configuration: { offset: -1.5, scale: 7 } }, cast()]],
  ];
  if (type !== "float16") {
    const mapped = type.startsWith("u") ? 200 : -100;
    chains.push(["float32 cast_value, a sentinel mapped to -1.25", "float32", 0, [cast({ scalar_map: { encode: [[-1.25, mapped]], decode: [[mapped, -1.25]] } })]]);
    chains.push(["int32 scale_offset + cast_value", "int32", 1000, [{ name: "scale_offset", configuration: { offset: 1000 } }, cast()]]);
    chains.push(["no value codecs", type, 3, []]);
  } else {
    chains.push(["float32 cast_value", "float32", "NaN", [cast()]]);
  }
  return chains;
}

/** An in-memory array of the chain, its first chunk every stored value, its second missing. */
async function arrayOf(type, [, dataType, fill, codecs]) {
  const { Typed, min, count, shape } = TYPES[type];
  const values = new Typed(count);
  for (let i = 0; i < count; i++) values[i] = min + i;
  const meta = {
    zarr_format: 3, node_type: "array", shape: [shape[0] * 2, shape[1]], data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: shape } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: fill, codecs: [...codecs, { name: "bytes", configuration: { endian: "little" } }], attributes: {},
  };
  const files = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))], ["/c/0/0", new Uint8Array(values.buffer)]]);
  return zarr.open(zarr.root({ get: async (k) => files.get(k) }), { kind: "array" });
}

/** Compares decoded float32 bits with the CPU's values: equal bits, or both NaN. */
function compare(bits, cpu) {
  const want = new Uint32Array(Float32Array.from(cpu).buffer);
  let equal = 0;
  let nan = 0;
  const wrong = [];
  for (let i = 0; i < want.length; i++) {
    const a = bits[i];
    const b = want[i];
    const aNaN = (a & 0x7f800000) === 0x7f800000 && (a & 0x7fffff) !== 0;
    const bNaN = (b & 0x7f800000) === 0x7f800000 && (b & 0x7fffff) !== 0;
    if (a === b && !aNaN) equal++;
    else if (aNaN && bNaN) nan++;
    else if (wrong.length < 5) wrong.push({ index: i, gpu: new Float32Array(Uint32Array.of(a).buffer)[0], cpu: new Float32Array(Uint32Array.of(b).buffer)[0] });
    else wrong.push(null);
  }
  return { values: want.length, equal, nan, wrong: wrong.length, examples: wrong.filter(Boolean) };
}

/** The largest distance in float32 ulps between decoded bits and the CPU's values (NaNs aside). */
function ulpsOff(bits, cpu) {
  const want = Float32Array.from(cpu);
  const got = new Float32Array(bits.buffer, bits.byteOffset, bits.length);
  const order = (f) => {
    const u = new Int32Array(Float32Array.of(f).buffer)[0];
    return u < 0 ? -(u & 0x7fffffff) : u;
  };
  let most = 0;
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i]) || Number.isNaN(got[i])) continue;
    most = Math.max(most, Math.abs(order(got[i]) - order(want[i])));
  }
  return most;
}

/** The decoded float32 bits of a stored chunk, by WebGL2. */
function viaWebGL2(gl, decoder, chunk, uniforms = () => {}) {
  const [height, width] = chunk.shape;
  const p = program(gl, `#version 300 es
precision highp float;
precision highp int;
${decoder.glsl}
out highp uvec4 bits;
void main() {
  bits = uvec4(floatBitsToUint(zarrDecodeAt(ivec2(gl_FragCoord.xy))), 0u, 0u, 1u);
}`);
  gl.useProgram(p);
  const { stored, table } = webgl2Textures(gl, decoder, chunk, { unit: 0, program: p });
  uniforms(p);
  const target = gl.createTexture();
  gl.activeTexture(gl.TEXTURE2);
  gl.bindTexture(gl.TEXTURE_2D, target);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.R32UI, width, height, 0, gl.RED_INTEGER, gl.UNSIGNED_INT, null);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, target, 0);
  if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE) throw new Error("R32UI target incomplete");
  gl.viewport(0, 0, width, height);
  drawFull(gl);
  const rgba = new Uint32Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA_INTEGER, gl.UNSIGNED_INT, rgba);
  const error = gl.getError();
  if (error) throw new Error(`WebGL error ${error}`);
  for (const o of [stored, table, target]) gl.deleteTexture(o);
  gl.deleteFramebuffer(fb);
  gl.deleteProgram(p);
  return rgba.filter((_, i) => i % 4 === 0);
}

/** The decoded float32 bits of a stored chunk, by WebGPU (a compute shader). */
async function viaWebGPU(device, decoder, chunk) {
  const [height, width] = chunk.shape;
  const module = device.createShaderModule({
    code: `${decoder.wgsl}
@group(0) @binding(2) var<storage, read_write> bits: array<u32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < ${width}u && id.y < ${height}u) {
    bits[id.y * ${width}u + id.x] = bitcast<u32>(zarr_decode_at(id.xy));
  }
}`,
  });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  if (errors.length) throw new Error(`WGSL: ${errors.map((m) => m.message).join("; ")}`);
  const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
  const resources = webgpuResources(device, decoder, chunk);
  const size = width * height * 4;
  const out = device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const group = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [...resources.entries, { binding: 2, resource: { buffer: out } }],
  });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(Math.ceil(width / 8), Math.ceil(height / 8));
  pass.end();
  encoder.copyBufferToBuffer(out, 0, read, 0, size);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const bits = new Uint32Array(read.getMappedRange().slice(0));
  read.unmap();
  for (const b of [out, read, resources.table]) b.destroy();
  resources.stored.destroy();
  return bits;
}

/**
 * For comparison (not the package's decode): the chain's scale_offset done in float32 arithmetic
 * in the shader, `float(stored) / scale + offset` with the sentinel as NaN, as viewers applying
 * `scale_factor` / `add_offset` by hand do; its float32 bits, by WebGL2.
 */
function naiveWebGL2(gl, decoder, chunk, { offset, scale }, sentinel) {
  const signed = decoder.storedFormat.signed;
  const naive = {
    ...decoder,
    glsl: `uniform highp ${decoder.storedFormat.glslSampler} zarrStored;
uniform highp sampler2D zarrTable;
uniform highp float scale;
uniform highp float offset;
highp float zarrDecodeAt(ivec2 texel) {
  highp ${signed ? "int" : "uint"} v = texelFetch(zarrStored, texel, 0).r;
  if (v == ${sentinel}${signed ? "" : "u"}) return uintBitsToFloat(0x7fc00000u);
  return float(v) / scale + offset;
}`,
  };
  return viaWebGL2(gl, naive, chunk, (p) => {
    gl.uniform1f(gl.getUniformLocation(p, "scale"), scale);
    gl.uniform1f(gl.getUniformLocation(p, "offset"), offset);
  });
}

/** Every case through every API this browser offers: one result per case and API. */
export async function check() {
  const gl = document.createElement("canvas").getContext("webgl2");
  const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
  const device = adapter ? await adapter.requestDevice() : null;
  const results = [];
  for (const type of Object.keys(TYPES)) {
    for (const chain of chainsOf(type)) {
      const arr = await arrayOf(type, chain);
      const decoder = await gpuDecoder(arr);
      const chunk = await getStored(arr);
      const cpu = (await get(arr)).data;
      const name = `${type}: ${chain[0]}`;
      if (gl) results.push({ name, api: "webgl2", ...compare(viaWebGL2(gl, decoder, chunk), cpu) });
      if (device) results.push({ name, api: "webgpu", ...compare(await viaWebGPU(device, decoder, chunk), cpu) });
      if (gl) {
        // A control: the same comparison of a table one entry off finds every changed value.
        const shifted = { ...decoder, table: decoder.table.map((_, i, t) => t[(i + 1) % t.length]) };
        results.push({ name, api: "webgl2, control: table one entry off", ...compare(viaWebGL2(gl, shifted, chunk), cpu) });
        const so = chain[3].find((c) => c.name === "scale_offset");
        const map = chain[3].find((c) => c.name === "cast_value")?.configuration.scalar_map;
        if (so && map && chain[1] === "float64") {
          const bits = naiveWebGL2(gl, decoder, chunk, so.configuration, map.decode[0][0]);
          results.push({ name, api: "webgl2, float32 arithmetic (not the package's)", ...compare(bits, cpu), ulps: ulpsOff(bits, cpu) });
        }
      }
    }
  }
  return {
    webgl2: gl ? `${gl.getParameter(gl.VERSION)}` : null,
    webgpu: adapter ? `${adapter.info?.vendor ?? ""} ${adapter.info?.architecture ?? ""}`.trim() || "adapter" : null,
    results,
  };
}
