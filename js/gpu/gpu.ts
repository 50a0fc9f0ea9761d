// Decoding on the GPU: a viewer uploads an array's stored values (getStored: 1 or 2 bytes a
// value) and a shader turns each into the float32 `get` gives, rounded. The decode is
// generated from the array's chain as GLSL ES 3.00 (WebGL2) and WGSL (WebGPU) functions over a
// table of the decoded value of every stored value (256 or 65,536 float32s), which the package's
// own decode computes here, once: scale_offset, cast_value's scalar_map (sentinels -> NaN or
// their value), rounding and the fill value are then the codec's by construction, with no
// float32 arithmetic on the GPU to differ from the CPU's float64 (an offset of 273.15 and a
// scale of 100 give 0 for the stored -27315 in float64, and not in float32 or double-float
// arithmetic). Stored types of 32 or 64 bits have no such table, and gain nothing over a
// float32 upload: they are refused (NOT_ON_GPU), as are chains whose stored values are not
// numbers (zfp and pcodec of floats store floats; strings, complex...).
import * as zarr from "zarrita";
import { codedError, naming } from "../common/errors.js";
import { exactJson, exactParse } from "../common/json.js";
import { get } from "../reading/read.js";
import type { CodecMeta } from "../reading/access.js";
import { storedTwin } from "../reading/stored.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/** A texture format, as WebGL2 (the names of `gl`'s constants) and WebGPU name it. */
export interface GpuTextureFormat {
  webgl2: { internalFormat: string; format: string; type: string };
  webgpu: string;
  bytesPerValue: number;
}

/** How a shader decodes an array's stored values (see `gpuDecoder`). */
export interface GpuDecoder {
  /** The array's data type (what `get` gives) and the stored values' (what `getStored` gives). */
  dataType: string;
  storedDataType: string;
  /** The value codecs the shader runs, as the array's metadata has them (none: `get`'s values). */
  codecs: CodecMeta[];
  /**
   * The stored values' texture: its format, and the GLSL sampler / WGSL texture type the code
   * declares. float16 is uploaded as its bits (R16UI: a Float16Array's buffer as a Uint16Array).
   */
  storedFormat: GpuTextureFormat & { signed: boolean; glslSampler: string; wgslTexture: string };
  /**
   * The decoded value (float32) of every stored value: entry `stored + tableOffset` (for float16,
   * of its bits). As a texture it is `tableShape` ([width, height]: 256 x 1 or 256 x 256) R32F; in
   * WGSL a storage buffer.
   */
  table: Float32Array;
  tableOffset: number;
  tableShape: [number, number];
  tableFormat: GpuTextureFormat;
  /** The array's fill value as float32, and the stored value of a missing chunk (getStored's). */
  fill: number;
  storedFill: number;
  /**
   * GLSL ES 3.00: the uniforms `<prefix>Stored` (stored values) and `<prefix>Table`, and
   * `float <prefix>Decode(int|uint stored)` and `float <prefix>DecodeAt(ivec2 texel)`.
   */
  glsl: string;
  /**
   * WGSL: `<prefix>_stored` (texture, `@binding(binding)`) and `<prefix>_table` (read-only storage
   * buffer, `@binding(binding + 1)`) in `@group(group)`, and `fn <prefix>_decode(stored: i32|u32) -> f32`
   * and `fn <prefix>_decode_at(texel: vec2<u32>) -> f32`.
   */
  wgsl: string;
}

/** Options of `gpuDecoder`: the names and bindings the generated code uses. */
export interface GpuDecoderOptions {
  /** The prefix of the generated names (default "zarr"): letters, digits and underscores. */
  prefix?: string;
  /** WGSL: the bind group and first binding (defaults 0 and 0). */
  group?: number;
  binding?: number;
}

interface StoredKind {
  Typed: Int8ArrayConstructor | Uint8ArrayConstructor | Int16ArrayConstructor | Uint16ArrayConstructor;
  min: number;
  count: number;
  format: GpuTextureFormat & { signed: boolean; glslSampler: string; wgslTexture: string };
}

const kind = (
  Typed: StoredKind["Typed"], min: number, internalFormat: string, type: string, webgpu: string, signed: boolean,
): StoredKind => ({
  Typed,
  min,
  count: 256 ** Typed.BYTES_PER_ELEMENT,
  format: {
    webgl2: { internalFormat, format: "RED_INTEGER", type },
    webgpu,
    bytesPerValue: Typed.BYTES_PER_ELEMENT,
    signed,
    glslSampler: signed ? "isampler2D" : "usampler2D",
    wgslTexture: signed ? "texture_2d<i32>" : "texture_2d<u32>",
  },
});

/** The stored types a table covers: every value of 8 or 16 bits. */
const STORED: Record<string, StoredKind> = {
  int8: kind(Int8Array, -128, "R8I", "BYTE", "r8sint", true),
  uint8: kind(Uint8Array, 0, "R8UI", "UNSIGNED_BYTE", "r8uint", false),
  int16: kind(Int16Array, -32768, "R16I", "SHORT", "r16sint", true),
  uint16: kind(Uint16Array, 0, "R16UI", "UNSIGNED_SHORT", "r16uint", false),
  // Its bits, as a uint16.
  float16: kind(Uint16Array, 0, "R16UI", "UNSIGNED_SHORT", "r16uint", false),
};

/** Array data types whose values a float32 holds as `get` gives them, rounded. */
const DECODED = new Set(["float64", "float32", "float16", "int8", "uint8", "int16", "uint16", "int32", "uint32"]);

const TABLE_FORMAT: GpuTextureFormat = {
  webgl2: { internalFormat: "R32F", format: "RED", type: "FLOAT" },
  webgpu: "r32float",
  bytesPerValue: 4,
};

const refuse = (why: string) => codedError("NOT_ON_GPU", `${why}: use get`);

/**
 * The decode of `arr`'s stored values (see `getStored`) as shader code: GLSL ES 3.00 and WGSL
 * functions that take a stored value and give the float32 `get` gives for it (rounded from
 * float64), with the textures and table to upload. Refused with NOT_ON_GPU where a shader
 * cannot reproduce the chain: stored values of 32 or 64 bits (zfp and pcodec of floats, float
 * arrays without cast_value), 64-bit or non-numeric array types, and a fill value that the
 * codecs do not give back (a missing chunk would draw as another value).
 */
export function gpuDecoder(arr: Readable, options: GpuDecoderOptions = {}): Promise<GpuDecoder> {
  return naming(arr.path, async () => {
    const prefix = options.prefix ?? "zarr";
    const group = options.group ?? 0;
    const binding = options.binding ?? 0;
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(prefix) || prefix.startsWith("gl_") || /__/.test(prefix)) {
      throw codedError("INVALID_ARGUMENT", `options.prefix must be a shader identifier, got ${JSON.stringify(prefix)}`);
    }
    for (const [name, v] of [["group", group], ["binding", binding]] as const) {
      if (!Number.isInteger(v) || v < 0) throw codedError("INVALID_ARGUMENT", `options.${name} must be an integer >= 0, got ${v}`);
    }
    // The twin get's stored reads use (undefined: no value codecs, the stored values are get's).
    const twin = await storedTwin(arr);
    const dataType = twin?.dataType ?? String(arr.dtype);
    const storedType = twin?.storedDataType ?? String(arr.dtype);
    if (!DECODED.has(dataType)) throw refuse(`the array's data type ${dataType} is not decoded to float32 on the GPU`);
    const stored = STORED[storedType];
    if (!stored) {
      throw refuse(`its stored values are ${storedType}: a shader decodes stored values of 8 or 16 bits (from a table of each); 32 or 64 bits a value gain nothing over a float32 upload`);
    }
    const codecs = twin?.codecs ?? [];
    const fillJson = twin?.fillJson ?? exactJson(arr.fillValue);
    const storedFillJson = twin?.storedFillJson ?? fillJson;
    const table = await decodeTable(dataType, fillJson, codecs, storedType, stored);
    const storedFill = storedValueOf(storedFillJson, storedType);
    const fill = Math.fround(fillValueOf(fillJson));
    const back = table[storedFill - stored.min];
    if (!(Object.is(back, fill) || (Number.isNaN(back) && Number.isNaN(fill)))) {
      throw refuse(`the fill value (${fillJson}) is stored as ${storedFillJson}, which decodes to ${back}: a missing chunk would draw as that`);
    }
    const offset = -stored.min;
    const tableShape: [number, number] = [256, stored.count / 256];
    const about = codecs.length ? codecs.map((c) => exactJson(c)).join(", ") : "no value codecs";
    return {
      dataType,
      storedDataType: storedType,
      codecs,
      storedFormat: stored.format,
      table,
      tableOffset: offset,
      tableShape,
      tableFormat: TABLE_FORMAT,
      fill,
      storedFill,
      glsl: glslOf(prefix, stored, offset, dataType, storedType, about),
      wgsl: wgslOf(prefix, stored, offset, group, binding, dataType, storedType, about),
    };
  });
}

/** Every stored value of `stored`, decoded by the package's `get` through `codecs`, as float32. */
async function decodeTable(dataType: string, fillJson: string, codecs: CodecMeta[], storedType: string, stored: StoredKind): Promise<Float32Array> {
  const values = new stored.Typed(stored.count);
  for (let i = 0; i < stored.count; i++) values[i] = stored.min + i;
  const n = stored.count;
  const metadata = `{"zarr_format":3,"node_type":"array","shape":[${n}],"data_type":${JSON.stringify(dataType)},` +
    `"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[${n}]}},` +
    `"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":${fillJson},` +
    `"codecs":${exactJson([...codecs, { name: "bytes", configuration: { endian: "little" } }])},"attributes":{}}`;
  // Typed arrays are little-endian on every engine the package runs on (its read path relies on it too).
  const files = new Map<string, Uint8Array>([["/zarr.json", new TextEncoder().encode(metadata)], ["/c/0", new Uint8Array(values.buffer)]]);
  const store = { get: async (key: string) => files.get(key) };
  const table = await zarr.open(zarr.root(store), { kind: "array" }).then((a) => get(a)).catch((e: unknown) => {
    throw refuse(`its codecs do not decode every stored ${storedType} value (${(e as Error).message})`);
  });
  return Float32Array.from(table.data as ArrayLike<number>);
}

/** A stored fill value's JSON as the table's index (float16: its bits). */
function storedValueOf(json: string, storedType: string): number {
  const v = exactParse(json);
  if (storedType !== "float16") return Number(v);
  if (typeof v === "string" && /^0x[0-9a-f]{4}$/i.test(v)) return parseInt(v.slice(2), 16);
  const f = fillValueOf(json);
  return float16Bits(f);
}

/** A fill value's JSON as a number (v3's "NaN", "Infinity", "-Infinity"). */
function fillValueOf(json: string): number {
  const v = exactParse(json);
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return Number(v);
}

/** The float16 bits of a number a float16 holds exactly (a stored fill value). */
function float16Bits(f: number): number {
  if (Number.isNaN(f)) return 0x7e00;
  const sign = f < 0 || Object.is(f, -0) ? 0x8000 : 0;
  const a = Math.abs(f);
  if (a === Infinity) return sign | 0x7c00;
  if (a < 2 ** -14) return sign | Math.round(a / 2 ** -24);
  const e = Math.floor(Math.log2(a));
  return sign | ((e + 15) << 10) | Math.round((a / 2 ** e - 1) * 1024);
}

const comment = (text: string) => text.replace(/[\r\n]/g, " ");

function glslOf(p: string, s: StoredKind, offset: number, dataType: string, storedType: string, about: string): string {
  const arg = s.format.signed ? "int" : "uint";
  const index = s.format.signed ? `stored + ${offset}` : "int(stored)";
  const { internalFormat, format, type } = s.format.webgl2;
  return [
    `// Decode of an array's stored ${storedType} values to its ${dataType} values as float32 (zarr-wasm-codecs):`,
    `// ${comment(about)}.`,
    `// ${p}Stored: the stored values, ${internalFormat} (${format}, ${type}${storedType === "float16" ? ", the float16 bits" : ""}).`,
    `// ${p}Table: the decoded value of every stored value, R32F (RED, FLOAT), ${256} x ${s.count / 256}.`,
    `uniform highp ${s.format.glslSampler} ${p}Stored;`,
    `uniform highp sampler2D ${p}Table;`,
    `highp float ${p}Decode(highp ${arg} stored) {`,
    `  highp int i = ${index};`,
    `  return texelFetch(${p}Table, ivec2(i & 255, i >> 8), 0).r;`,
    `}`,
    `highp float ${p}DecodeAt(ivec2 texel) {`,
    `  return ${p}Decode(texelFetch(${p}Stored, texel, 0).r);`,
    `}`,
    ``,
  ].join("\n");
}

function wgslOf(p: string, s: StoredKind, offset: number, group: number, binding: number, dataType: string, storedType: string, about: string): string {
  const arg = s.format.signed ? "i32" : "u32";
  const index = s.format.signed ? `u32(stored + ${offset})` : "stored";
  return [
    `// Decode of an array's stored ${storedType} values to its ${dataType} values as float32 (zarr-wasm-codecs):`,
    `// ${comment(about)}.`,
    `// ${p}_stored: the stored values, ${s.format.webgpu}${storedType === "float16" ? " (the float16 bits)" : ""}.`,
    `// ${p}_table: the decoded value of every stored value (${s.count} f32).`,
    `@group(${group}) @binding(${binding}) var ${p}_stored: ${s.format.wgslTexture};`,
    `@group(${group}) @binding(${binding + 1}) var<storage, read> ${p}_table: array<f32, ${s.count}>;`,
    `fn ${p}_decode(stored: ${arg}) -> f32 {`,
    `  return ${p}_table[${index}];`,
    `}`,
    `fn ${p}_decode_at(texel: vec2<u32>) -> f32 {`,
    `  return ${p}_decode(textureLoad(${p}_stored, texel, 0).r);`,
    `}`,
    ``,
  ].join("\n");
}

/** A 2-D chunk (`getStored`'s result for a 2-D selection): its width and height, and its values as a texture takes them. */
function plane(decoder: GpuDecoder, chunk: { data: ArrayBufferView; shape: number[] }) {
  if (!chunk || typeof chunk !== "object" || !ArrayBuffer.isView(chunk.data) || !Array.isArray(chunk.shape) || chunk.shape.length !== 2) {
    throw codedError("INVALID_ARGUMENT", "a texture is made from getStored's result for a 2-D selection ({ data, shape: [height, width] })");
  }
  const [height, width] = chunk.shape;
  const per = decoder.storedFormat.bytesPerValue;
  if (chunk.data.byteLength !== width * height * per) {
    throw codedError("SHAPE_MISMATCH", `the chunk has ${chunk.data.byteLength} bytes, not ${width * height} values of ${per} bytes`);
  }
  const Typed = STORED[decoder.storedDataType].Typed;
  if (!(chunk.data instanceof Typed) && !(decoder.storedDataType === "float16" && chunk.data.constructor.name === "Float16Array")) {
    throw codedError("WRONG_ARRAY_TYPE", `the chunk's values must be getStored's ${decoder.storedDataType} values, got a ${chunk.data.constructor.name}`);
  }
  const values = new Typed(chunk.data.buffer as ArrayBuffer, chunk.data.byteOffset, width * height);
  return { width, height, values };
}

/** WebGL2's constants, by the names a `GpuTextureFormat` gives. */
type GL = WebGL2RenderingContext;
const glConstant = (gl: GL, name: string) => (gl as unknown as Record<string, number>)[name];

/**
 * WebGL2 textures for `decoder` and a 2-D `getStored` result: the stored values (its format,
 * nearest texels) on texture unit `unit`, and the table (R32F) on `unit + 1`: made here, or
 * `options.table` (the `table` a previous call gave for this decoder) bound again, as a viewer
 * drawing each time step of an array does, uploading only the stored values. Sets the program's
 * `<prefix>Stored` and `<prefix>Table` uniforms when `program` is given (and in use). It leaves
 * those units' textures bound and UNPACK_ALIGNMENT at 1 (rows of any width). The caller deletes
 * the textures it no longer draws with.
 */
export function webgl2Textures(
  gl: GL,
  decoder: GpuDecoder,
  chunk: { data: ArrayBufferView; shape: number[] },
  options: { unit?: number; program?: WebGLProgram; prefix?: string; table?: WebGLTexture } = {},
): { stored: WebGLTexture; table: WebGLTexture } {
  const { width, height, values } = plane(decoder, chunk);
  const unit = options.unit ?? 0;
  const bind = (at: number, t: WebGLTexture | null) => {
    if (!t) throw codedError("INTERNAL", "WebGL2 made no texture (is the context lost?)");
    gl.activeTexture(gl.TEXTURE0 + at);
    gl.bindTexture(gl.TEXTURE_2D, t);
    return t;
  };
  const make = (at: number, f: GpuTextureFormat, w: number, h: number, data: ArrayBufferView) => {
    const t = bind(at, gl.createTexture());
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
    for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T]) gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
    const { internalFormat, format, type } = f.webgl2;
    gl.texImage2D(gl.TEXTURE_2D, 0, glConstant(gl, internalFormat), w, h, 0, glConstant(gl, format), glConstant(gl, type), data);
    return t;
  };
  const stored = make(unit, decoder.storedFormat, width, height, values);
  const table = options.table
    ? bind(unit + 1, options.table)
    : make(unit + 1, decoder.tableFormat, decoder.tableShape[0], decoder.tableShape[1], decoder.table);
  if (options.program) {
    const p = options.prefix ?? "zarr";
    gl.uniform1i(gl.getUniformLocation(options.program, `${p}Stored`), unit);
    gl.uniform1i(gl.getUniformLocation(options.program, `${p}Table`), unit + 1);
  }
  return { stored, table };
}

/** The WebGPU objects `webgpuResources` makes (structural: no WebGPU types are needed to use it). */
export interface WebGPUResources {
  stored: unknown;
  table: unknown;
  /** Bind group entries for the generated code's bindings (`binding` and `binding + 1`). */
  entries: { binding: number; resource: unknown }[];
}

interface GPUDeviceLike {
  createTexture(d: object): { createView(): unknown };
  createBuffer(d: object): unknown;
  queue: { writeTexture(dest: object, data: ArrayBufferView, layout: object, size: object): void; writeBuffer(b: unknown, at: number, data: ArrayBufferView): void };
}

/**
 * WebGPU resources for `decoder` and a 2-D `getStored` result: the stored values' texture and
 * the table's storage buffer (made and written here, or `options.table`, the `table` a previous
 * call gave for this decoder), with the bind group entries for bindings `binding` and
 * `binding + 1` (as given to `gpuDecoder`; default 0).
 */
export function webgpuResources(
  device: GPUDeviceLike,
  decoder: GpuDecoder,
  chunk: { data: ArrayBufferView; shape: number[] },
  options: { binding?: number; table?: unknown } = {},
): WebGPUResources {
  const { width, height, values } = plane(decoder, chunk);
  const binding = options.binding ?? 0;
  // GPUTextureUsage.TEXTURE_BINDING | COPY_DST; GPUBufferUsage.STORAGE | COPY_DST.
  const stored = device.createTexture({ size: [width, height], format: decoder.storedFormat.webgpu, usage: 0x04 | 0x02 });
  device.queue.writeTexture({ texture: stored }, values, { bytesPerRow: width * decoder.storedFormat.bytesPerValue, rowsPerImage: height }, [width, height]);
  let table = options.table;
  if (!table) {
    table = device.createBuffer({ size: decoder.table.byteLength, usage: 0x80 | 0x08 });
    device.queue.writeBuffer(table, 0, decoder.table);
  }
  return {
    stored,
    table,
    entries: [
      { binding, resource: stored.createView() },
      { binding: binding + 1, resource: { buffer: table } },
    ],
  };
}
