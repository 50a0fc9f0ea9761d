// The package's own write path: `set`, a drop-in for zarr.set that checks what it is given
// before anything is written and writes all or nothing. The input is sliced once into each
// chunk's box; each chunk is encoded by the wasm from the exact zarr.json (laid over its old
// values where the selection covers only part of it), compressed in the compress module, on
// this thread or in a pool's workers, and kept in memory; the store sees writes only once
// every chunk has encoded. Sharded arrays are written a shard at a time.
import { ownSignal } from "../common/abort.js";
import * as zarr from "zarrita";
import { itemised, laneSelection, valueAsLanes } from "../metadata/data-types.js";
import { codedError, codedStore, fromStore, naming, namingChunk, viaCodec } from "../common/errors.js";
import { type ChainSteps, type ChunkCoder, type ChunkInput, type CompressorClass, encodeChunk, layShard, type ShardLayout } from "../kernels/encode.js";
import { chunkKey, decodeBytes, forgetShardIndexes, indexPlaces, registryCodec } from "../reading/fetch.js";
import { compiledOf, loadModule, loadWasm } from "../loading/load.js";
import { metadataText } from "../metadata/metadata.js";
import { codecNames, requireRegistered } from "../metadata/open.js";
import { vlenAccess, vlenWrite } from "../reading/vlen.js";
import { type EncodeModule, encodeModuleOf } from "../modules.js";
import { fillsItsBuffer, isBytesStage, type TypedArray, type TypedArrayCtor, typedArrayFor } from "../kernels/place.js";
import type { WorkerPool } from "../pool/pool.js";
import type { CompressorSpec, EncodeJob, EncodeRowJob } from "../pool/protocol.js";
import { type ArrayAccess, coreAccess } from "../reading/access.js";
import { CODEC_NAMES, isOurs } from "../common/registry.js";
import { eachLimited, inTurn, poolOf, progress, untilAborted } from "../reading/schedule.js";
import { type Axis, type Box, planSelection, type Plan, regionOf, type Selection } from "../reading/select.js";
import { cOrderStrides } from "../common/strides.js";
import { serves } from "../common/spare.js";
import { writeInTurn } from "../stores/turns.js";

type Writable = zarr.Array<zarr.DataType, zarr.Mutable>;
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
  await commit(arr, staged, options.signal);
}

/**
 * Writes the staged chunks to the store of the array at `at`, unless `signal` has fired: the
 * last moment a write can be cancelled, for the store then sees every chunk (a store that fails
 * part way, e.g. a lost connection, keeps what it took before; the error, STORE_FAILED, names
 * the key). The shard indexes kept of what it wrote are dropped, whatever array object of this
 * store and path kept them (`anew`: the array was written anew, all of them).
 */
export async function commit(at: zarr.Location<zarr.Mutable>, staged: Map<zarr.AbsolutePath, Uint8Array>, signal?: AbortSignal, anew = false) {
  signal?.throwIfAborted();
  try {
    for (const [key, bytes] of staged) await fromStore(key, () => at.store.set(key, bytes));
  } finally {
    forgetShardIndexes(at, anew ? undefined : staged.keys());
  }
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
  const signal = (options as SetOptions | null)?.signal;
  // (`options` is checked inside, so that a bad one is this array's INVALID_ARGUMENT.)
  const write = () => naming(arr.path, async () => {
    checkOptions(options);
    options.signal?.throwIfAborted();
    const pool = poolOf(options);
    const a = await coreAccess(arr as never);
    // The layout says which arrays zarr.set writes (zarr v2 filters that take values encode
    // with NumPy's rules; transposed chunks); there the pool is not used.
    if (typeof a !== "string" && a.layout.edges && !a.layout.writes_here) {
      // (zarrita's zarr.set has no rectilinear grid either.)
      throw codedError("UNSUPPORTED", "this chain is not written with a rectilinear chunk grid");
    }
    if (typeof a === "string") {
      // Strings and bytes of any length, on their own path (js/reading/vlen.ts).
      const v = await vlenAccess(arr as never);
      if (v) return commit(arr, await vlenWrite(arr, v, selection, value, options), options.signal);
    }
    if (typeof a === "string" || !a.layout.writes_here) {
      const plan = planSelection(selection, arr.shape, arr.chunks);
      if (typedArrayFor(arr.dtype)) checkValue(arr.dtype, plan, value);
      return stagedZarrSet(arr, selection, value, options, plan.boxes.length);
    }
    const info = a.layout.array_data_type;
    let plan: Plan;
    let checked: ChunkValue | TypedArray;
    if (itemised(info)) {
      // Items that are not one number each (bool, complex, datetime64, strings, fixed
      // bytes): written as their lanes.
      plan = planSelection(laneSelection(selection, arr.shape.length, a.layout.lanes), a.layout.shape, a.chunkShape, a.layout.edges);
      const items = a.layout.lanes > 1 ? plan.shape.slice(0, -1) : plan.shape;
      checked = checkValue(a.layout.data_type, plan, valueAsLanes(info, value, items, typedArrayFor(a.layout.data_type)!));
    } else {
      plan = planSelection(selection, a.layout.shape, a.chunkShape, a.layout.edges);
      checked = checkValue(a.layout.data_type, plan, value);
    }
    const encoder = pool ? await inPool(pool, a, plan.boxes.length, options.signal) : await onThisThread(a);
    const staged = a.layout.shard
      ? await encodeShards(arr, a, plan, checked, options, encoder)
      : await encodeChunks(arr, a, plan, checked, options, encoder);
    await commit(arr, staged, options.signal);
  }, signal);
  // In turn with the array's other reads and writes (js/stores/turns.ts). An abort while the write
  // waits rejects at once (and its turn then writes nothing).
  return untilAborted(signal instanceof AbortSignal ? signal : undefined, writeInTurn(arr.store, arr.path, write));
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
  /**
   * Encode chunks in a pool of workers: a `WorkerPool`, or `true` for the shared default pool
   * (`defaultPool()`). The main thread only slices the values into chunks and writes the
   * store; the stored bytes are the same as without. (Arrays written through zarr.set, see
   * `set`, are encoded on this thread.)
   */
  pool?: WorkerPool | boolean;
}

const SET_OPTIONS = ["onProgress", "signal", "pool"];

/** Refuses options `set` does not take (INVALID_ARGUMENT), rather than ignore them. */
export function checkOptions(options: unknown, known: readonly string[] = SET_OPTIONS): void {
  if (typeof options !== "object" || options === null) {
    throw codedError("INVALID_ARGUMENT", `options must be an object, got ${options === null ? "null" : typeof options}`);
  }
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw codedError("INVALID_ARGUMENT", `unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")} (known: ${known.join(", ")})`);
  }
  const { onProgress, signal } = options as SetOptions;
  if (onProgress !== undefined && typeof onProgress !== "function") {
    throw codedError("INVALID_ARGUMENT", "options.onProgress must be a function");
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw codedError("INVALID_ARGUMENT", "options.signal must be an AbortSignal");
  }
}

type Access = ArrayAccess<InstanceType<typeof import("../wasm/zarr_wasm_codecs.js").ArrayReader>>;

/** Where chunks are encoded: on this thread, or by a pool's workers. */
interface Encoder {
  /** How many chunks are under way at once. */
  concurrency: number;
  /** A buffer of at least `n` bytes, written before, for a chunk's values, where one is spare. */
  buffer?(n: number): ArrayBuffer | undefined;
  /**
   * Encodes the chunks of a row of chunks from their values side by side (the pool: one job,
   * one copy of the values on this thread); each chunk's stored bytes, in order.
   */
  encodeRow?(row: RowInput): Promise<Uint8Array[]>;
  /** How many chunks a row job holds at most. */
  perRow?: number;
  /**
   * How many row jobs are under way at once at least: as many as the workers take at once, so
   * that each has its next job waiting while it encodes one (the chunks a row job holds do not
   * count against `concurrency` here: with long rows that would leave workers idle).
   */
  rowsAtOnce?: number;
  /** A shard's bytes from its inner chunks' (see js/kernels/encode.ts `layShard`); `indexCodecs`: the index's bytes -> bytes codecs (JSON). */
  layShard(parts: (Uint8Array | undefined)[], shard: ShardLayout, indexCodecs?: string): Promise<Uint8Array>;
  encode(input: ChunkInput): Promise<Uint8Array>;
}

/** An array's write steps (see `ChainSteps`) and what a worker needs to build the same. */
interface WriteSteps {
  steps: ChainSteps;
  /** The bytes -> bytes codecs the encode (or archive) module runs (none: the chain has none). */
  compressor?: CompressorSpec;
  /** That module, compiled, for workers. */
  module?: WebAssembly.Module;
  /**
   * The bytes -> bytes codecs zarrita's registry runs, where the package has no kernel for one
   * of them (the layout's `codecs_fallback`): run on this thread, after the rest of the chain.
   */
  registry: ((bytes: Uint8Array) => Promise<Uint8Array>)[];
}

/** Stored bytes the chain's steps in wasm gave, through the codecs zarrita's registry runs (`WriteSteps.registry`). */
async function throughRegistry(registry: WriteSteps["registry"], bytes: Uint8Array): Promise<Uint8Array> {
  for (const encode of registry) bytes = await encode(bytes);
  return bytes;
}

/** The module that encodes a shard index's codecs (JSON). */
function indexModuleOf(indexCodecs: string): EncodeModule {
  return encodeModuleOf(JSON.parse(indexCodecs) as { name: string }[]);
}

/** Per array access, its write steps, built once (a failure is not kept). */
const writeSteps = new WeakMap<object, Promise<WriteSteps>>();

function writeStepsOf(a: Access): Promise<WriteSteps> {
  let found = writeSteps.get(a);
  if (!found) {
    found = (async () => {
      const serializer = a.stages.find((s) => !isBytesStage(s.spec));
      const encode: ChainSteps["encode"][number][] = [];
      if (serializer) encode.push({ encode: (raw) => serializer.decoder.encode!(raw) });
      const registry: WriteSteps["registry"] = [];
      if (a.layout.codecs.length && a.layout.codecs_fallback !== null) {
        for (const meta of a.layout.codecs) {
          const codec = await registryCodec(meta, a.layout.codecs, a.layout.stored_data_type, a.layout.stored_chunk_shape);
          if (!codec) throw codedError("UNKNOWN_CODEC", `no codec "${meta.name}" in zarrita's registry`);
          registry.push(async (bytes) => viaCodec(meta.name, "encode", () => codec.encode(bytes)));
        }
      }
      if (!a.layout.codecs.length || registry.length) return { steps: { decode: a.stages, encode }, registry };
      const compressor: CompressorSpec = {
        codecs: JSON.stringify(a.layout.codecs),
        itemSize: a.layout.stored_item_size,
        module: encodeModuleOf(a.layout.codecs),
      };
      const glue = await loadModule(compressor.module);
      // A configuration the module refuses is the write's error (INVALID_CONFIG), before anything is written.
      encode.push(new (glue.Compressor as CompressorClass)(compressor.codecs, compressor.itemSize));
      return { steps: { decode: a.stages, encode }, compressor, module: compiledOf(glue), registry };
    })();
    found.catch(() => writeSteps.delete(a));
    writeSteps.set(a, found);
  }
  return found;
}

/** Encodes on this thread, a chunk at a time, in turn with the event loop. */
async function onThisThread(a: Access): Promise<Encoder> {
  const coder = a.reader as unknown as ChunkCoder;
  const { steps, registry } = await writeStepsOf(a);
  // One buffer for every chunk's values, a chunk at a time: the encoders copy the values
  // into their module's memory, so the buffer is free again once a chunk has encoded (unless
  // the stored bytes are the values themselves). Memory written before costs several times
  // less to write than new, and the write leaves one buffer to collect rather than one a chunk.
  let spare: ArrayBuffer | undefined;
  return {
    concurrency: 1,
    buffer: (n) => {
      const found = spare && serves(spare, n) ? spare : undefined;
      if (found) spare = undefined;
      return found;
    },
    layShard: async (parts, shard, indexCodecs) => {
      // The index holds uint64 values.
      const index = indexCodecs ? new ((await loadModule(indexModuleOf(indexCodecs))).Compressor as CompressorClass)(indexCodecs, 8) : undefined;
      try {
        return layShard(parts, shard, index && ((raw) => index.encode(raw)));
      } finally {
        index?.free();
      }
    },
    encode: async (input) => {
      // (A rectilinear grid's chunk with the reader of its shape.)
      const by = input.chunk ? (a.readerAt(input.chunk.coords).reader as unknown as ChunkCoder) : coder;
      const bytes = await inTurn(() => encodeChunk(by, steps, input.chunk?.shape ?? a.chunkShape, input, a.layout.order));
      const used = input.values.buffer;
      if (used !== bytes.buffer && used instanceof ArrayBuffer && (!spare || used.byteLength > spare.byteLength)) spare = used;
      return throughRegistry(registry, bytes);
    },
  };
}

/** Encodes in a pool's workers: each chunk's values are handed over, its stored bytes come back. */
async function inPool(pool: WorkerPool, a: Access, boxes: number, signal?: AbortSignal): Promise<Encoder> {
  const stages = a.stages.map((s) => s.spec);
  const type = typedArrayFor(a.layout.data_type)!.name;
  const { compressor, module, registry } = await writeStepsOf(a);
  const modules = module ? { ...a.modules, [compressor!.module]: module } : a.modules;
  const ahead = await pool.ahead();
  // Rows of at most this many chunks: about four jobs a worker for the whole write (a few
  // copies of long rows on this thread, rather than one per chunk row by row), at most 16.
  const perRow = Math.max(1, Math.min(16, Math.floor((boxes * 8) / ahead / 4)));
  // What every job of this array says of it.
  const array = { key: a.key, text: a.text, stages, compressor, type, chunkShape: a.chunkShape, order: a.layout.order ?? undefined };
  return {
    concurrency: ahead,
    buffer: (n) => pool.spareBuffer(n),
    // Laid out by a worker: the inner chunks' buffers are handed over (a view of a bigger
    // buffer, an old shard's untouched chunk, is copied first).
    layShard: async (parts, shard, indexCodecs) => {
      const own = parts.map((p) => (p && !fillsItsBuffer(p) ? new Uint8Array(p) : p));
      const indexModule = indexCodecs ? indexModuleOf(indexCodecs) : undefined;
      const compiled = indexModule ? compiledOf(await loadModule(indexModule)) : undefined;
      return new Uint8Array(await pool.layShard({ parts: own, shard, indexCodecs, indexModule }, indexModule ? { [indexModule]: compiled } : {}, signal));
    },
    encode: async (input) => {
      const job: EncodeJob = {
        ...array,
        ...(input.chunk ? { chunkShape: input.chunk.shape, readerShape: input.chunk.readerShape } : {}),
        values: input.values.buffer as ArrayBuffer,
        count: input.values.length,
        region: input.region,
        stored: input.stored,
        fill: input.fill,
      };
      return throughRegistry(registry, new Uint8Array(await pool.encode(job, modules, signal)));
    },
    perRow,
    // (ahead() is four times what the workers take at once.)
    rowsAtOnce: Math.max(1, ahead / 4),
    encodeRow: async (row) => {
      const job: EncodeRowJob = {
        ...array,
        fill: row.fill,
        slab: row.slab.buffer as ArrayBuffer,
        rows: row.rows,
        width: row.width,
        members: row.members,
      };
      const buffers = await pool.encodeRow(job, modules, signal);
      return Promise.all(buffers.map((buffer) => throughRegistry(registry, new Uint8Array(buffer))));
    },
  };
}

/**
 * The values of `box` in the input (the selection's values, or a scalar), in the box's C
 * order; in `buffer` where one is given (large enough).
 */
function boxValues(Ctor: TypedArrayCtor, box: Box, plan: Plan, value: ChunkValue | TypedArray, buffer?: ArrayBuffer): TypedArray {
  const counts = box.pieces.map((p) => p.count);
  const n = counts.reduce((x, y) => x * y, 1);
  const out = buffer ? new Ctor(buffer, 0, n) : new Ctor(n);
  if (ArrayBuffer.isView(value)) {
    out.fill(value[0] as never);
    return out;
  }
  const rebased: Box = { coords: box.coords, pieces: box.pieces.map((p) => ({ ...p, first: 0, step: 1 })) };
  overlay(out, counts, rebased, plan, value);
  return out;
}

/** Whether the box is all of its chunk that lies inside the array (the rest needs no values). */
function wholeChunk(box: Box, axes: Axis[], shape: number[]): boolean {
  return box.pieces.every((p, k) => {
    const c = box.coords[k];
    const inArray = Math.min(axes[k].size(c), shape[k] - axes[k].start(c));
    return p.first === 0 && (p.step === 1 || p.count === 1) && p.count === inArray;
  });
}

/** A rectilinear grid's chunk: its coordinates, shape and reader's shape (none for a regular grid, whose chunks have one). */
function chunkOf(a: Access, coords: number[]): ChunkInput["chunk"] {
  const { shape, chunkShape } = a.readerAt(coords);
  return shape && { coords, shape, readerShape: chunkShape };
}

/**
 * One chunk's input to the encoder: its box's values, and where the box is not the whole
 * chunk, its place and the chunk's old stored bytes (`old`, fetched only then).
 */
async function chunkInput(
  a: Access,
  box: Box,
  plan: Plan,
  value: ChunkValue | TypedArray,
  old: () => Promise<Uint8Array | undefined>,
  encoder: Encoder,
): Promise<ChunkInput> {
  const Ctor = typedArrayFor(a.layout.data_type)!;
  const fill = Uint8Array.from(a.layout.fill_bytes);
  const size = box.pieces.reduce((x, p) => x * p.count, Ctor.BYTES_PER_ELEMENT);
  const values = boxValues(Ctor, box, plan, value, encoder.buffer?.(size));
  const chunk = chunkOf(a, box.coords);
  return { values, fill, ...(chunk ? { chunk } : {}), ...(await placeOf(a, plan, box, old)) };
}

/**
 * Where a box lies in its chunk, where it is not the whole chunk, and the chunk's old stored
 * bytes (`old`, fetched only then) where its values are laid over them: an edge chunk the box
 * fills takes the fill value outside the array; any other box is laid over the old values.
 */
async function placeOf(a: Access, plan: Plan, box: Box, old: () => Promise<Uint8Array | undefined>): Promise<{ region?: Uint32Array; stored?: Uint8Array }> {
  const inArray = wholeChunk(box, plan.axes, a.layout.shape);
  if (inArray && box.pieces.every((p, k) => p.count === plan.axes[k].size(box.coords[k]))) return {};
  return { region: regionOf(box), stored: inArray ? undefined : await old() };
}

/** The chunks of a row of chunks, their boxes' values side by side (see `EncodeRowJob`). */
interface RowInput {
  slab: TypedArray;
  rows: number;
  width: number;
  members: EncodeRowJob["members"];
  fill: Uint8Array;
}

/**
 * The selection's boxes in runs that lie in one row of chunks (the same chunk in every
 * dimension but the last, the next chunk in the last, their values next to each other in
 * the input), at most `per` to a run.
 */
function rowsOf(boxes: readonly Box[], per: number): Box[][] {
  const out: Box[][] = [];
  for (const box of boxes) {
    const run = out[out.length - 1];
    const prev = run?.[run.length - 1];
    const last = box.coords.length - 1;
    const next =
      prev !== undefined &&
      run.length < per &&
      last >= 0 &&
      box.coords.every((c, k) => (k === last ? c === prev.coords[k] + 1 : c === prev.coords[k])) &&
      box.pieces[last].outStart === prev.pieces[last].outStart + prev.pieces[last].count;
    if (next) run.push(box);
    else out.push([box]);
  }
  return out;
}

/**
 * A row of boxes' input to the encoder: their values side by side, copied once from the
 * input (a row of the slab per row of the boxes), and per box its place in its chunk and its
 * chunk's old stored bytes where the box is not the whole chunk (`old(i)`).
 */
async function rowInput(
  a: Access,
  run: Box[],
  keys: string[],
  plan: Plan,
  value: ChunkValue,
  old: (i: number) => Promise<Uint8Array | undefined>,
  encoder: Encoder,
): Promise<RowInput> {
  const Ctor = typedArrayFor(a.layout.data_type)!;
  const last = run[0].pieces.length - 1;
  const counts = run.map((b) => b.pieces[last].count);
  const width = counts.reduce((x, y) => x + y, 0);
  const rows = run[0].pieces.slice(0, last).reduce((x, p) => x * p.count, 1);
  // The run's union: its boxes' pieces, the last dimension's joined.
  const union: Box = {
    coords: run[0].coords,
    pieces: run[0].pieces.map((p, k) => ({ ...p, first: 0, step: 1, count: k === last ? width : p.count })),
  };
  const buffer = encoder.buffer?.(rows * width * Ctor.BYTES_PER_ELEMENT);
  const slab = buffer ? new Ctor(buffer, 0, rows * width) : new Ctor(rows * width);
  overlay(slab, union.pieces.map((p) => p.count), union, plan, value);
  let offset = 0;
  const members = await Promise.all(
    run.map(async (box, i) => {
      const at = offset;
      offset += counts[i];
      return { key: keys[i], offset: at, count: counts[i], ...(await placeOf(a, plan, box, () => old(i))) };
    }),
  );
  return { slab, rows, width, members, fill: Uint8Array.from(a.layout.fill_bytes) };
}

/** Encodes every chunk the selection touches (read back first where it covers part of one). */
async function encodeChunks(arr: Writable, a: Access, plan: Plan, value: ChunkValue | TypedArray, options: SetOptions, encoder: Encoder) {
  const encoded = progress(options, plan.boxes.length);
  const staged = new Map<zarr.AbsolutePath, Uint8Array>();
  const opts = options.signal ? { signal: ownSignal(options.signal) } : undefined;
  const stored = (path: zarr.AbsolutePath) => async () => {
    const bytes = await fromStore(path, () => arr.store.get(path, opts));
    return bytes && a.compressors.length ? decodeBytes(a.compressors, bytes) : bytes;
  };
  const pathOf = (box: Box) => arr.resolve(chunkKey(a.layout, box.coords)).path;
  await encodeEach(a, plan.boxes, plan, value, encoder, options.signal, {
    keyOf: (box) => chunkKey(a.layout, box.coords),
    oldOf: (box) => stored(pathOf(box))(),
    done: (box, bytes) => {
      staged.set(pathOf(box), bytes);
      encoded();
    },
  });
  return staged;
}

/**
 * Encodes each box's chunk: in rows of chunks where the encoder takes rows and the value is
 * an array (as many rows at once as keep its workers busy), else one box at a time (as many
 * at once as the encoder says). `keyOf` names a box's chunk in errors, `oldOf` gives its
 * chunk's old stored bytes (asked only where the box is laid over them), `done` takes its
 * stored bytes.
 */
function encodeEach(
  a: Access,
  boxes: readonly Box[],
  plan: Plan,
  value: ChunkValue | TypedArray,
  encoder: Encoder,
  signal: AbortSignal | undefined,
  chunk: { keyOf(box: Box): string; oldOf(box: Box): Promise<Uint8Array | undefined>; done(box: Box, bytes: Uint8Array): void },
) {
  // (Not in rows for a rectilinear grid: a row's chunks may differ in shape.)
  const rowValue = encoder.encodeRow && !a.layout.edges && !ArrayBuffer.isView(value) ? value : undefined;
  const per = rowValue ? (encoder.perRow ?? 1) : 1;
  const runs = per > 1 ? rowsOf(boxes, per) : boxes.map((b) => [b]);
  const atOnce = per > 1 ? Math.max(Math.ceil(encoder.concurrency / per), encoder.rowsAtOnce ?? 1) : encoder.concurrency;
  return eachLimited(runs, Math.max(1, atOnce), async (run) => {
    signal?.throwIfAborted();
    const keys = run.map(chunk.keyOf);
    if (run.length === 1 || !rowValue) {
      const input = await chunkInput(a, run[0], plan, value, () => chunk.oldOf(run[0]), encoder);
      chunk.done(run[0], await namingChunk(keys[0], () => encoder.encode(input)));
      return;
    }
    const row = await rowInput(a, run, keys, plan, rowValue, (i) => chunk.oldOf(run[i]), encoder);
    (await encoder.encodeRow!(row)).forEach((bytes, i) => chunk.done(run[i], bytes));
  });
}

/**
 * Encodes every shard the selection touches: each inner chunk it touches encoded as an
 * unsharded chunk would be, the others kept as stored (a shard the selection covers entirely
 * is not read), then the shard laid out with its index (at the end or the start, through the
 * index's codecs). Inner chunks no write has touched stay missing.
 */
async function encodeShards(arr: Writable, a: Access, plan: Plan, value: ChunkValue | TypedArray, options: SetOptions, encoder: Encoder) {
  const layout = a.layout;
  const shard = layout.shard!;
  const perShard = layout.chunk_shape.map((s, i) => s / a.chunkShape[i]);
  const inner = perShard.reduce((x, y) => x * y, 1);
  const opts = options.signal ? { signal: ownSignal(options.signal) } : undefined;
  // The selection's boxes by shard, each at its inner chunk's place (C order) in the shard.
  const shards = new Map<string, { coords: number[]; boxes: Map<number, Box> }>();
  for (const box of plan.boxes) {
    const coords = box.coords.map((c, i) => Math.floor(c / perShard[i]));
    const id = coords.join(",");
    let entry = shards.get(id);
    if (!entry) shards.set(id, (entry = { coords, boxes: new Map() }));
    let position = 0;
    for (let i = 0; i < coords.length; i++) position = position * perShard[i] + (box.coords[i] % perShard[i]);
    entry.boxes.set(position, box);
  }
  const encoded = progress(options, plan.boxes.length);
  const staged = new Map<zarr.AbsolutePath, Uint8Array>();
  // Each level's index layout and codecs (nested sharding has several levels, outermost first).
  const levels: ShardLevel[] = shard.levels.map((level, k) => ({
    per: a.index!.levels[k].per,
    places: indexPlaces(a.index!.levels[k].per, a.index!.levels[k].order),
    layout: { little: level.index_endian === "little", atEnd: level.index_at_end, indexBytes: a.index!.levels[k].bytes },
    codecs: level.index_codecs.length ? JSON.stringify(level.index_codecs) : undefined,
  }));
  // With a pool, the next shard's inner chunks start while the last of this one's encode, so
  // that the workers do not wait between shards.
  const atOnce = encoder.concurrency > 1 ? 2 : 1;
  // The row jobs the workers take at once, shared between the shards under way.
  const inShard = encoder.rowsAtOnce ? { ...encoder, rowsAtOnce: Math.ceil(encoder.rowsAtOnce / atOnce) } : encoder;
  const layouts: Promise<void>[] = [];
  await eachLimited([...shards.values()], atOnce, async ({ coords, boxes }) => {
    options.signal?.throwIfAborted();
    const key = chunkKey(layout, coords);
    const path = arr.resolve(key).path;
    // The old shard is read unless every inner chunk inside the array is wholly written.
    let inArray = 0;
    for (let p = 0; p < inner; p++) if (innerInArray(p, coords, perShard, a.chunkShape, layout.shape)) inArray++;
    const complete = boxes.size === inArray && [...boxes.values()].every((b) => wholeChunk(b, plan.axes, layout.shape));
    const old = complete ? undefined : await namingChunk(key, async () => oldShard(a, await fromStore(path, () => arr.store.get(path, opts)), inner));
    const parts: (Uint8Array | undefined)[] = old ?? new Array(inner);
    const positions = new Map([...boxes].map(([position, box]) => [box, position]));
    await encodeEach(a, [...boxes.values()], plan, value, inShard, options.signal, {
      keyOf: (box) => `${key} (inner chunk ${positions.get(box)!})`,
      oldOf: async (box) => {
        const stored = old?.[positions.get(box)!];
        return stored && a.compressors.length ? decodeBytes(a.compressors, stored) : stored;
      },
      done: (box, bytes) => {
        parts[positions.get(box)!] = bytes;
        encoded();
      },
    });
    // Laid out while the next shard's inner chunks encode: the workers do not wait for it.
    const laid = namingChunk(key, async () => void staged.set(path, (await layLevels(encoder, parts, perShard, levels, 0))!));
    laid.catch(() => {}); // (Handled below, once every shard is under way.)
    layouts.push(laid);
  });
  await Promise.all(layouts);
  return staged;
}

/** Whether the inner chunk at `position` of the shard at `coords` has any element inside the array. */
function innerInArray(position: number, coords: number[], perShard: number[], chunkShape: number[], shape: number[]): boolean {
  for (let i = perShard.length - 1; i >= 0; i--) {
    const local = position % perShard[i];
    position = Math.floor(position / perShard[i]);
    if ((coords[i] * perShard[i] + local) * chunkShape[i] >= shape[i]) return false;
  }
  return true;
}

/** One level of an array's shards as a write lays it out (see `ShardIndex` in fetch.ts). */
interface ShardLevel {
  per: number[];
  /** Each chunk's place in the index, by its place in C order (`indexPlaces`); null where they are the same. */
  places: Int32Array | null;
  layout: ShardLayout;
  /** The index's bytes -> bytes codecs (JSON), if any. */
  codecs?: string;
}

/** Where the inner chunk at place `q` of the chunk at place `g` of a level is among all of a shard's inner chunks (C order each). */
function flatPosition(g: number, q: number, per: number[], below: number[]): number {
  const coords = new Array<number>(per.length);
  for (let i = per.length - 1; i >= 0; i--) {
    coords[i] = (g % per[i]) * below[i] + (q % below[i]);
    g = Math.floor(g / per[i]);
    q = Math.floor(q / below[i]);
  }
  let p = 0;
  for (let i = 0; i < per.length; i++) p = p * per[i] * below[i] + coords[i];
  return p;
}

/**
 * A shard's bytes from its inner chunks (`parts`, C order over `span` inner chunks along each
 * dimension) at level `k`: with nested sharding, each of its chunks is a shard of the next
 * level, laid out first (one with no inner chunk is missing, as zarr-python leaves it).
 */
async function layLevels(encoder: Encoder, parts: (Uint8Array | undefined)[], span: number[], levels: ShardLevel[], k: number): Promise<Uint8Array | undefined> {
  const level = levels[k];
  if (k === levels.length - 1) return encoder.layShard(inIndexOrder(parts, level.places), level.layout, level.codecs);
  const below = span.map((s, i) => s / level.per[i]);
  const count = level.per.reduce((x, y) => x * y, 1);
  const size = below.reduce((x, y) => x * y, 1);
  const groups = Array.from({ length: count }, (_, g) => Array.from({ length: size }, (_, q) => parts[flatPosition(g, q, level.per, below)]));
  const children = await Promise.all(groups.map((group) => (group.some(Boolean) ? layLevels(encoder, group, below, levels, k + 1) : undefined)));
  return encoder.layShard(inIndexOrder(children, level.places), level.layout, level.codecs);
}

/** A level's chunks, given in C order, in the order of its index. */
function inIndexOrder<T>(chunks: T[], places: Int32Array | null): T[] {
  if (!places) return chunks;
  const out = new Array<T>(chunks.length);
  for (let p = 0; p < chunks.length; p++) out[places[p]] = chunks[p];
  return out;
}

/** A stored shard's inner chunks (undefined: missing), read through its indexes; none for no shard. */
async function oldShard(a: Access, bytes: Uint8Array | undefined, inner: number): Promise<(Uint8Array | undefined)[] | undefined> {
  if (!bytes) return undefined;
  const index = a.index!;
  const wasm = await loadWasm();
  // The chunks a level's index lists in `bytes` (a shard, or a chunk of one that is a shard).
  const read = async (bytes: Uint8Array, k: number, span: number[], name: string): Promise<(Uint8Array | undefined)[]> => {
    const level = index.levels[k];
    if (bytes.length < level.bytes) {
      throw codedError("CHUNK_LENGTH", `${name} has ${bytes.length} bytes, fewer than its index's ${level.bytes}`);
    }
    const raw = level.atEnd ? bytes.subarray(bytes.length - level.bytes) : bytes.subarray(0, level.bytes);
    const count = level.per.reduce((x, y) => x * y, 1);
    const entries = wasm.shardIndexEntries(await level.unpack(raw), level.little, count);
    const places = indexPlaces(level.per, level.order);
    // In C order: the chunk at C place p is at place places[p] of the index.
    const children = Array.from({ length: count }, (_, c) => {
      const p = places ? places[c] : c;
      const [offset, length] = [entries[2 * p], entries[2 * p + 1]];
      if (offset === 2 ** 64) return undefined;
      if (offset + length > bytes.length) {
        throw codedError("CHUNK_LENGTH", `inner chunk ${p} of ${name}: its index says bytes ${offset} to ${offset + length}, but it has ${bytes.length}`);
      }
      return bytes.subarray(offset, offset + length);
    });
    if (k === index.levels.length - 1) return children;
    const below = span.map((s, i) => s / level.per[i]);
    const size = below.reduce((x, y) => x * y, 1);
    const out = new Array<Uint8Array | undefined>(span.reduce((x, y) => x * y, 1));
    for (const [g, child] of children.entries()) {
      if (!child) continue;
      const inside = await read(child, k + 1, below, `inner shard ${g} of ${name}`);
      for (let q = 0; q < size; q++) out[flatPosition(g, q, level.per, below)] = inside[q];
    }
    return out;
  };
  const parts = await read(bytes, 0, index.perShard, "the shard");
  if (parts.length !== inner) throw codedError("INTERNAL", `the shard has ${parts.length} inner chunks, not ${inner}`);
  return parts;
}
