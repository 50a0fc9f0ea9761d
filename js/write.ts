// The package's own write path: `set`, a drop-in for zarr.set that checks what it is given
// before anything is written and writes all or nothing. Each chunk is assembled (read back
// first where the selection covers only part of it), encoded by the wasm from the exact
// zarr.json, compressed, and kept in memory; the store sees writes only once every chunk has
// encoded.
import * as zarr from "zarrita";
import { codedError, codedStore, fromStore, naming, viaCodec } from "./errors.js";
import { codecNames, requireRegistered } from "./open.js";
import { CODEC_NAMES, isOurs } from "./registry.js";
import { GzipCodec } from "./gzip.js";
import { chunkKey, decodeBytes, registryCodec } from "./fetch.js";
import { metadataText } from "./metadata.js";
import { filled, type TypedArray, type TypedArrayCtor, typedArrayFor, unpackAll } from "./place.js";
import { type ArrayAccess, coreAccess, type Layout, stage } from "./read.js";
import { progress } from "./schedule.js";
import { type Box, planSelection, type Plan, type Selection } from "./select.js";
import { cOrderStrides } from "./strides.js";
import { CODECS } from "./wasm/tables.js";

type Writable = zarr.Array<zarr.DataType, zarr.Mutable>;
type Scalar = number | bigint | boolean;
/** Values for `set`: a typed array of the array's data type, with the shape and element strides of the region it fills. */
export interface ChunkValue<D extends zarr.DataType = zarr.DataType> {
  data: zarr.DataType extends D ? TypedArray : zarr.TypedArray<D>;
  shape: number[];
  stride: number[];
}

/** An integer typed array's range (from its constructor: its width and sign); undefined for floats. */
function integerRange(Ctor: TypedArrayCtor): [bigint, bigint] | undefined {
  if (/^Float/.test(Ctor.name)) return undefined;
  const bits = BigInt(Ctor.BYTES_PER_ELEMENT * 8);
  return /^(Big)?Int/.test(Ctor.name) ? [-(2n ** (bits - 1n)), 2n ** (bits - 1n) - 1n] : [0n, 2n ** bits - 1n];
}

/** A scalar as one value of the array's type; integers must be exact and in range. */
function scalarArray(dataType: string, value: unknown): TypedArray {
  const Ctor = typedArrayFor(dataType);
  if (!Ctor) throw codedError("UNSUPPORTED_DATA_TYPE", `no typed array for ${dataType} here`);
  const range = integerRange(Ctor);
  const wide = Ctor.BYTES_PER_ELEMENT === 8 && range !== undefined;
  if (range) {
    const ok =
      (wide ? typeof value === "bigint" : typeof value === "number" && Number.isInteger(value)) &&
      BigInt(value as number | bigint) >= range[0] &&
      BigInt(value as number | bigint) <= range[1];
    if (!ok) {
      const want = wide ? "a bigint" : "an integer number";
      throw codedError("WRONG_ARRAY_TYPE", `a ${dataType} array takes ${want} in [${range[0]}, ${range[1]}], got ${String(value)} (${typeof value})`);
    }
  } else if (typeof value !== "number") {
    throw codedError("WRONG_ARRAY_TYPE", `a ${dataType} array takes a number, got ${typeof value}`);
  }
  const out = new Ctor(1);
  out[0] = value as never;
  return out;
}

/** Checks a value for `set` against the array's type and the selection's shape. */
function checkValue(dataType: string, plan: Plan, value: unknown): ChunkValue | TypedArray {
  if (typeof value !== "object" || value === null) return scalarArray(dataType, value);
  const Ctor = typedArrayFor(dataType);
  const { data, shape, stride } = value as Partial<ChunkValue>;
  const name = (data as object | undefined)?.constructor?.name ?? typeof data;
  if (!Ctor || !data || data.constructor !== Ctor) {
    throw codedError("WRONG_ARRAY_TYPE", `a ${dataType} array is written from a ${Ctor?.name ?? "typed array"}, got ${name}`);
  }
  if (!Array.isArray(shape) || shape.length !== plan.shape.length || shape.some((d, i) => d !== plan.shape[i])) {
    throw codedError("SHAPE_MISMATCH", `the selection has shape [${plan.shape}] but the value has shape [${shape}]`);
  }
  const size = shape.reduce((a, b) => a * b, 1);
  if (data.length !== size) {
    throw codedError("CHUNK_LENGTH", `the value's shape [${shape}] holds ${size} values but its data has ${data.length}`);
  }
  if (!Array.isArray(stride) || !denseStrides(shape, stride)) {
    throw codedError(
      "INVALID_STRIDE",
      `stride [${stride}] does not lay out shape [${shape}] over ${data.length} values ` +
        `(C order is [${cOrderStrides(shape)}])`,
    );
  }
  return { data, shape, stride };
}

/** Whether `stride` lays out `shape` densely, each value once, in some order of the axes. */
function denseStrides(shape: number[], stride: number[]): boolean {
  if (stride.length !== shape.length || !stride.every((s) => Number.isInteger(s) && s >= 0)) return false;
  const axes = shape.map((d, i) => ({ d, s: stride[i] })).filter((a) => a.d > 1);
  axes.sort((a, b) => a.s - b.s);
  let expected = 1;
  for (const { d, s } of axes) {
    if (s !== expected) return false;
    expected *= d;
  }
  return true;
}

/** Copies the box's part of `value` into a whole chunk's values. */
function overlay(chunk: TypedArray, chunkShape: number[], box: Box, plan: Plan, value: ChunkValue | TypedArray) {
  const n = chunkShape.length;
  const chunkStride = cOrderStrides(chunkShape);
  // The value's stride per array dimension (0 for dropped ones, and for a scalar).
  const valueStride = new Array<number>(n).fill(0);
  if (!ArrayBuffer.isView(value)) {
    let k = 0;
    plan.dims.forEach((d, i) => {
      if (!d.dropped) valueStride[i] = value.stride[k++];
    });
  }
  const data = ArrayBuffer.isView(value) ? value : value.data;
  const index = new Array<number>(n).fill(0);
  const last = n - 1;
  if (n === 0) {
    chunk[0] = data[0];
    return;
  }
  const counts = box.pieces.map((p) => p.count);
  for (;;) {
    let src = 0;
    let dst = 0;
    for (let k = 0; k < last; k++) {
      const p = box.pieces[k];
      src += (p.outStart + index[k]) * valueStride[k];
      dst += (p.first + index[k] * p.step) * chunkStride[k];
    }
    const p = box.pieces[last];
    src += p.outStart * valueStride[last];
    dst += p.first;
    if (ArrayBuffer.isView(value)) {
      for (let i = 0; i < p.count; i++) chunk[dst + i * p.step] = data[0];
    } else if (p.step === 1 && valueStride[last] === 1) {
      chunk.set(data.subarray(src, src + p.count) as never, dst);
    } else {
      for (let i = 0; i < p.count; i++) chunk[dst + i * p.step] = data[src + i * valueStride[last]];
    }
    let k = last - 1;
    while (k >= 0 && ++index[k] === counts[k]) index[k--] = 0;
    if (k < 0) return;
  }
}

/**
 * The bytes -> bytes codecs that encode a chunk, in order: the compress module's where the
 * layout says it encodes them, else the package's gzip, else zarrita's registry's, each built
 * from the representation it receives (the data type and chunk shape laid out as bytes).
 */
async function encoders(layout: Layout) {
  const out = [];
  for (const meta of layout.codecs) {
    if (layout.codecs_fallback === null && CODECS.find((row) => row.v3_names.includes(meta.name))?.encodes_in_wasm) {
      const { decoder } = await stage({ kind: "compress", codecs: JSON.stringify([meta]), itemSize: layout.stored_item_size });
      out.push({ encode: (bytes: Uint8Array) => decoder.encode!(bytes) });
      continue;
    }
    if (meta.name === "gzip") {
      out.push(GzipCodec.fromConfig(meta.configuration as never));
      continue;
    }
    const codec = await registryCodec(meta, layout.codecs, layout.stored_data_type, layout.stored_chunk_shape);
    if (!codec) throw new zarr.UnknownCodecError(meta.name);
    out.push({ encode: (bytes: Uint8Array) => viaCodec(meta.name, "encode", () => codec.encode(bytes)) });
  }
  return out;
}

/**
 * A store that keeps writes in memory (reads see them, and fall through to `base` for the
 * rest), for writes that must reach the real store all at once or not at all.
 */
export function stagingStore(base?: zarr.Readable) {
  const staged = new Map<zarr.AbsolutePath, Uint8Array>();
  const get = base?.get as ((k: zarr.AbsolutePath, o?: unknown) => Promise<Uint8Array | undefined>) | undefined;
  const store: zarr.AsyncMutable = {
    get: async (key: zarr.AbsolutePath, opts?: unknown) => (staged.has(key) ? staged.get(key) : get?.call(base, key, opts)),
    set: async (key: zarr.AbsolutePath, bytes: Uint8Array) => {
      staged.set(key, bytes);
    },
  };
  return { store, staged };
}

/** zarr.set run against a staging store, so that it too writes all or nothing. */
async function stagedZarrSet(arr: Writable, selection: Selection, value: unknown, options: SetOptions, chunks: number) {
  const found = await metadataText(arr as never);
  const names = codecNames(found?.text);
  // zarrita's own array -> array codecs do not encode, and it has no whole-chunk codecs of ours.
  for (const name of names.filter((n) => (CODEC_NAMES as readonly string[]).includes(n))) {
    if (!isOurs(zarr.registry.get(name))) {
      throw codedError(
        "UNKNOWN_CODEC",
        `${name} is encoded by this package's codec, which is not in zarrita's registry: call registerCodecs() ` +
          "(from zarr-wasm-codecs) before opening arrays",
      );
    }
  }
  requireRegistered(names);
  const { store, staged } = stagingStore(codedStore(arr.store));
  const location = new zarr.Location(store, arr.path);
  const twin = await (found?.zarrFormat === 2 ? zarr.open.v2 : zarr.open.v3)(location, { kind: "array" });
  options.signal?.throwIfAborted();
  await zarr.set(twin as Writable, selection, value as never);
  options.onProgress?.(chunks, chunks);
  await commit(arr.store, staged, options.signal);
}

/**
 * Writes the staged chunks to the store, unless `signal` has fired: the last moment a write
 * can be cancelled, for the store then sees every chunk (a store that fails part way, e.g. a
 * lost connection, keeps what it took before; the error, STORE_FAILED, names the key).
 */
export async function commit(store: zarr.Mutable, staged: Map<zarr.AbsolutePath, Uint8Array>, signal?: AbortSignal) {
  signal?.throwIfAborted();
  for (const [key, bytes] of staged) await fromStore(key, () => store.set(key, bytes));
}

/**
 * `zarr.set(arr, selection, value)` on the package's own path, all or nothing: it refuses,
 * before anything is written, a typed array that is not the array's own type, data whose
 * length or shape does not match the selection, and a stride that does not lay the data out;
 * when any chunk fails to encode, it throws and the store is unchanged. Chains this path does
 * not run (and zarr v2 arrays) are written by zarr.set, through the same staging; sharded
 * arrays cannot be written (UNSUPPORTED).
 */
export function set<D extends zarr.DataType>(
  arr: zarr.Array<D, zarr.Mutable>,
  selection: Selection,
  value: zarr.Scalar<D> | ChunkValue<D>,
  options?: SetOptions,
): Promise<void>;
export function set(arr: Writable, selection: Selection, value: unknown, options: SetOptions = {}): Promise<void> {
  return naming(arr.path, async () => {
    const a = await coreAccess(arr as never);
    if (typeof a !== "string" && a.layout.shard) {
      planSelection(selection, a.layout.shape, a.chunkShape);
      throw codedError("UNSUPPORTED", "sharded arrays cannot be written (zarrita's zarr.set cannot write them either); nothing was written");
    }
    // The layout says which arrays zarr.set writes (zarr v2 filters that take values encode
    // with NumPy's rules).
    if (typeof a === "string" || !a.layout.writes_here) {
      const plan = planSelection(selection, arr.shape, arr.chunks);
      if (typedArrayFor(arr.dtype)) checkValue(arr.dtype, plan, value);
      return stagedZarrSet(arr, selection, value, options, plan.boxes.length);
    }
    const plan = planSelection(selection, a.layout.shape, a.chunkShape);
    const checked = checkValue(a.layout.data_type, plan, value);
    const staged = await encodeBoxes(arr, a, plan, checked, options);
    await commit(arr.store, staged, options.signal);
  }, options.signal);
}

/** Options of `set`. */
export interface SetOptions {
  /**
   * Called as each chunk is encoded (`done` of `total` chunks; the store is written once all
   * have; through zarr.set, once at the end).
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * Cancels the write: when it fires before the store is written (every chunk is encoded
   * first), `set` rejects with its reason (an AbortError) and the store is unchanged.
   */
  signal?: AbortSignal;
}

async function encodeBoxes(
  arr: Writable,
  a: ArrayAccess<InstanceType<typeof import("./wasm/zarr_wasm_codecs.js").ArrayReader>>,
  plan: Plan,
  value: ChunkValue | TypedArray,
  options: SetOptions,
) {
  const encoded = progress(options, plan.boxes.length);
  const layout = a.layout;
  const Ctor = typedArrayFor(layout.data_type)!;
  const size = a.chunkShape.reduce((x, y) => x * y, 1);
  const fill = Uint8Array.from(layout.fill_bytes);
  const codecs = await encoders(layout);
  const serializer = a.stages.find((s) => s.spec.kind !== "compress")?.decoder;
  const staged = new Map<zarr.AbsolutePath, Uint8Array>();
  for (const box of plan.boxes) {
    options.signal?.throwIfAborted();
    const path = arr.resolve(chunkKey(layout, box.coords)).path;
    // Whole unless the selection leaves some of the chunk's elements inside the array out.
    const whole = box.pieces.every((p, k) => {
      const inArray = Math.min(a.chunkShape[k], layout.shape[k] - box.coords[k] * a.chunkShape[k]);
      return p.first === 0 && (p.step === 1 || p.count === 1) && p.count === inArray;
    });
    let chunk: TypedArray | undefined;
    if (!whole) {
      const stored = await fromStore(path, () => arr.store.get(path, options.signal ? { signal: options.signal } : undefined));
      if (stored) {
        const bytes = unpackAll(a.stages, await decodeBytes(a.compressors, stored));
        chunk = a.reader.decodeChunk(bytes) as TypedArray;
      }
    }
    chunk ??= filled(Ctor, fill, size);
    overlay(chunk, a.chunkShape, box, plan, value);
    let bytes: Uint8Array = a.reader.encodeChunk(chunk);
    // A serializer run on whole chunks encodes the chain's little-endian bytes.
    if (serializer) bytes = serializer.encode!(bytes);
    for (const c of codecs) bytes = await c.encode(bytes);
    staged.set(path, bytes);
    encoded();
  }
  return staged;
}
