// The package's own read path: `get`, a drop-in for zarr.get. It reads the array's metadata
// text itself (zarr.json, or a v2 array's .zarray and .zattrs, so 64-bit integers in it are
// exact), fetches the chunks' stored bytes through the array's store (shard indexes
// included), undoes bytes -> bytes codecs in the compress wasm module (zarrita's registry for
// codecs that module does not have), decodes a pcodec or zfp chunk whole in its own module,
// and has the wasm decode each chunk's selected box a tile at a time, from where each tile is
// copied once into its place in the output (js/place.ts, shared with the pool's workers).
import * as zarr from "zarrita";
import { codedError, fromStore, naming, namingChunk, viaCodec } from "./errors.js";
import { readByZarrita } from "./open.js";
import {
  type Bindings, type PackingBindings, compiledOf, loadCompress, loadPacking, loadPcodec, loadWasm, loadZfp, memoryOf,
} from "./load.js";
import { isNode } from "./node.js";
import {
  type Decompressor, fillRuns, placeChunk, type Runs, type StageClasses, type StageSpec, stageOf, type TileReader,
  type TypedArray, type TypedArrayCtor, typedArrayFor, unpackAll,
} from "./place.js";
import { defaultPool, WorkerPool } from "./pool.js";
import type { ModuleKind } from "./protocol.js";
import { allocate, type Box, boxRuns, checkSelection, planSelection, type Plan, type Selection } from "./select.js";
import { cOrderStrides } from "./strides.js";

export { filled, type TypedArray, typedArrayFor } from "./place.js";

export type { Selection } from "./select.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;
type AnyStore = zarr.Readable & {
  get(key: zarr.AbsolutePath, opts?: unknown): Promise<Uint8Array | undefined>;
  getRange?: (key: zarr.AbsolutePath, range: { offset: number; length: number } | { suffixLength: number }, opts?: unknown) => Promise<Uint8Array | undefined>;
};

/** Options of `get` and `getDecoded`. */
export interface GetOptions {
  /**
   * Cancels the read: passed to the store's requests, and when it fires the read rejects at
   * once with its reason (an AbortError), decodes no further chunk and drops its jobs that
   * no pool worker has taken yet.
   */
  signal?: AbortSignal;
  /**
   * Decode chunks in a pool of workers: a `WorkerPool`, or `true` for the shared default
   * pool (`defaultPool()`). The result is the same, bit for bit, as without.
   */
  pool?: WorkerPool | boolean;
  /**
   * With a pool: whether the workers write straight into an output backed by a
   * SharedArrayBuffer (the result's `data.buffer` is then one). By default they do where
   * SharedArrayBuffer is usable: Node, and pages that are cross-origin isolated. Otherwise
   * one worker assembles the output and transfers it whole.
   */
  useSharedArrayBuffer?: boolean;
  /**
   * A typed array to read into, as a viewer re-reading time steps does: of the result's type
   * (`getDecoded`: a Float64Array) and exactly as long as the selection (C order). It is filled
   * and returned as the result's `data`; one of another type or length is refused before
   * anything is read. With a pool, one backed by a SharedArrayBuffer is written by the
   * workers directly; another is filled from the assembled result.
   */
  out?: TypedArray;
  /**
   * Called as each chunk of the selection is in place (`done` of `total` chunks; on
   * zarr.get's path, once at the end).
   */
  onProgress?: (done: number, total: number) => void;
  /**
   * How many of the read's chunks may be fetched at once (default `DEFAULT_CONCURRENCY`, 64;
   * `Infinity` for no limit). A chunk decodes as soon as its bytes arrive, while later chunks
   * are still being fetched; each further fetch starts as one ends (with a pool, as the
   * worker answers, so that no more stored bytes wait than this many chunks'). Arrays read
   * by zarr.get (e.g. a v2 delta filter) fetch as zarrita does.
   */
  concurrency?: number;
}

/**
 * How many chunks a read fetches at once by default: enough to keep an HTTP/2 connection's
 * streams busy (servers allow 100 or more) and far more than the six connections a browser
 * opens to an HTTP/1.1 host, while bounding the stored bytes waiting to be decoded.
 */
export const DEFAULT_CONCURRENCY = 64;

/** `options.concurrency`, checked (INVALID_ARGUMENT), or the default (`fallback`). */
export function concurrencyOf(options: GetOptions, fallback: number): number {
  const n = options.concurrency as unknown;
  if (n === undefined) return fallback;
  if (typeof n !== "number" || !(n >= 1) || (!Number.isInteger(n) && n !== Infinity)) {
    throw codedError("INVALID_ARGUMENT", `options.concurrency must be an integer >= 1 or Infinity, got ${typeof n === "number" ? n : typeof n}`);
  }
  return n;
}

/**
 * What the wasm says of an array's layout (crate::layout::ArrayLayout::to_json); the keys are
 * held to the Rust side's by tests/node/layout-contract.test.mjs.
 */
export interface Layout {
  zarr_format: 2 | 3;
  data_type: string;
  shape: number[];
  chunk_shape: number[];
  key_v2: boolean;
  key_separator: string;
  /** The (inner) chunk's bytes -> bytes codecs, configured as the compress module reads them. */
  codecs: CodecMeta[];
  /** null where the compress module runs `codecs`, else why zarrita's registry does. */
  codecs_fallback: string | null;
  /** For each of `codecs`, whether the compress module encodes it (writes). */
  codecs_encode_wasm: boolean[];
  /** What the bytes -> bytes codecs receive: the data type and chunk shape laid out as bytes. */
  stored_data_type: string;
  stored_chunk_shape: number[];
  stored_item_size: number;
  /**
   * The array -> bytes codec run on whole chunks in a module of its own, which decodes a
   * chunk to its values' little-endian bytes: the codec, its module, the data type it
   * receives and the chunk shape it sees.
   */
  serializer: null | { codec: CodecMeta; module: "pcodec" | "zfp"; data_type: string; chunk_shape: number[] };
  /** The size of an (inner) chunk once `codecs` are undone, where every chunk has the same. */
  decoded_bytes: number | null;
  /** The size of one (inner) chunk as the reader takes it (after `codecs` and `serializer`). */
  chunk_bytes: number;
  /** Whether a transpose lays the chunks out in another order than C (zarr v2's order F). */
  transposed: boolean;
  /** Whether `set` writes the array on the package's own path (else through zarr.set). */
  writes_here: boolean;
  shard: null | {
    chunk_shape: number[];
    index_endian: "little" | "big";
    index_codecs: CodecMeta[];
    index_fallback: string | null;
    /** The index's size once its codecs are undone (16 bytes an inner chunk). */
    index_decoded_bytes: number;
    /** Its stored size, where its codecs fix it. */
    index_bytes: number | null;
    index_at_end: boolean;
  };
  fill_bytes: number[];
}
export interface CodecMeta {
  name: string;
  configuration?: unknown;
}
interface BytesCodec {
  encode?(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  decode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  computeEncodedSize?(size: number): number;
}

/** Reading `arr` on this path: its reader, layout and codecs, or why it falls back. */
export interface ArrayAccess<R extends TileReader> {
  reader: R;
  layout: Layout;
  /** The (inner) chunk shape, the grid a selection is planned on. */
  chunkShape: number[];
  /** Bytes -> bytes codecs run through zarrita's registry (none when the compress module runs them). */
  compressors: BytesCodec[];
  /**
   * The steps in wasm from a chunk's stored bytes (after `compressors`) to what the reader
   * takes: the compress module's, then a serializer's (see `Layout.serializer`).
   */
  stages: Stage[];
  index: null | { unpack(raw: Uint8Array): Promise<Uint8Array>; bytes: number; perShard: number[] };
  memory: WebAssembly.Memory;
  /** For pool workers: the metadata text, which module reads it, the modules, a key. */
  text: string;
  kind: "core" | "packing";
  modules: Partial<Record<ModuleKind, WebAssembly.Module>>;
  key: number;
}

/** One step of a chunk's decoding in wasm (see `StageSpec`), built from its spec. */
export interface Stage {
  spec: StageSpec;
  decoder: Decompressor & { encode?(raw: Uint8Array): Uint8Array };
  memory: WebAssembly.Memory;
  /** Its module, compiled, for workers. */
  module: WebAssembly.Module;
}

/** Each step's module and its class. */
const MODULES = {
  compress: async () => ((wasm) => ({ wasm, classes: { compress: wasm.Decompressor } }))(await loadCompress()),
  pcodec: async () => ((wasm) => ({ wasm, classes: { pcodec: wasm.PcodecCodec } }))(await loadPcodec()),
  zfp: async () => ((wasm) => ({ wasm, classes: { zfp: wasm.ZfpCodec } }))(await loadZfp()),
} satisfies Record<StageSpec["kind"], () => Promise<{ wasm: object; classes: StageClasses }>>;

export async function stage(spec: StageSpec): Promise<Stage> {
  const { wasm, classes } = await MODULES[spec.kind]();
  return { spec, decoder: stageOf(spec, classes), memory: memoryOf(wasm), module: compiledOf(wasm) };
}

/** The compress module's step for a list of bytes -> bytes codecs. */
function compressStage(codecs: CodecMeta[], itemSize: number, expected: number | null): Promise<Stage> {
  return stage({ kind: "compress", codecs: JSON.stringify(codecs), itemSize, expected: expected ?? undefined });
}

let accessKeys = 0;

/**
 * Bytes -> bytes codecs from zarrita's registry (those the layout says the compress module
 * does not run), each built from the representation it receives: the data type and chunk
 * shape the array -> bytes codec lays out, as zarr-python hands them.
 */
async function bytesCodecs(list: CodecMeta[], dataType: string, chunkShape: number[]): Promise<BytesCodec[] | string> {
  const out: BytesCodec[] = [];
  for (const meta of list) {
    const load = zarr.registry.get(meta.name);
    if (!load) return `no codec ${meta.name} in zarrita's registry`;
    const Codec = (await load()) as unknown as { fromConfig(c: unknown, m: unknown): BytesCodec };
    const codec = Codec.fromConfig(meta.configuration, { dataType, shape: chunkShape, codecs: list, fillValue: 0 });
    out.push({
      decode: (bytes) => viaCodec(meta.name, "decode", () => codec.decode(bytes)),
      computeEncodedSize: codec.computeEncodedSize && ((size) => codec.computeEncodedSize!(size)),
    });
  }
  return out;
}

/**
 * The exact metadata text of a zarrita array: its zarr.json, or for a zarr v2 array its
 * .zarray and .zattrs as `{"zarr_format": 2, "zarray": ..., "zattrs": ...}` (joined as text,
 * so that the wasm reads their integers exactly); undefined when there is neither.
 */
const texts = new WeakMap<object, Promise<string | undefined>>();

export function metadataText(arr: zarr.Location<zarr.Readable>): Promise<string | undefined> {
  const known = texts.get(arr);
  if (known) return known;
  const text = readMetadataText(arr);
  text.catch(() => texts.delete(arr));
  texts.set(arr, text);
  return text;
}

async function readMetadataText(arr: zarr.Location<zarr.Readable>): Promise<string | undefined> {
  const store = arr.store as AnyStore;
  const read = async (name: string) => {
    const key = arr.resolve(name).path;
    const bytes = await fromStore(key, () => store.get(key));
    return bytes && new TextDecoder().decode(bytes);
  };
  const v3 = await read("zarr.json");
  if (v3 !== undefined) return v3;
  const zarray = await read(".zarray");
  if (zarray === undefined) return undefined;
  const zattrs = (await read(".zattrs")) ?? "{}";
  return `${V2_PREFIX}${zarray}, "zattrs": ${zattrs}}`;
}

/** How the metadata text of a zarr v2 array begins (see `metadataText`). */
const V2_PREFIX = '{"zarr_format": 2, "zarray": ';

/** Whether a metadata text is a zarr v2 array's (see `metadataText`). */
export function isV2Text(text: string | undefined): boolean {
  return text?.startsWith(V2_PREFIX) ?? false;
}

/** Remembers the metadata text an array was opened from (see open()). */
export function rememberText(arr: object, text: string): void {
  texts.set(arr, Promise.resolve(text));
}

async function access<R extends TileReader>(
  arr: Readable,
  make: (text: string) => R,
  kind: "core" | "packing",
  bindings: object,
): Promise<ArrayAccess<R> | string> {
  const memory = memoryOf(bindings);
  const text = await metadataText(arr);
  if (text === undefined) return "no zarr.json or .zarray";
  const reader = make(text);
  if (reader.fallback !== undefined) return reader.fallback;
  const layout = JSON.parse(reader.layoutJson) as Layout;
  if (!typedArrayFor(layout.data_type)) return `no typed array for ${layout.data_type} here`;
  const chunkShape = layout.shard?.chunk_shape ?? layout.chunk_shape;
  const modules: ArrayAccess<R>["modules"] = { [kind]: compiledOf(bindings) };
  let compressors: BytesCodec[] = [];
  const stages: Stage[] = [];
  const serializer = layout.serializer;
  // The core decided from its codec table which codecs the compress module runs (with the
  // item size they receive); the others are zarrita's, built from the same representation.
  // A failure to load a module is the read's error, not a reason to go elsewhere.
  if (layout.codecs.length && layout.codecs_fallback === null) {
    stages.push(await compressStage(layout.codecs, layout.stored_item_size, layout.decoded_bytes));
  } else if (layout.codecs.length) {
    const codecs = await bytesCodecs(layout.codecs, layout.stored_data_type, layout.stored_chunk_shape);
    if (typeof codecs === "string") return codecs;
    compressors = codecs;
  }
  if (serializer) {
    // A configuration the module refuses is the read's error (INVALID_CONFIG), as zarr.get's would be.
    stages.push(await stage({
      kind: serializer.module,
      configuration: JSON.stringify(serializer.codec.configuration ?? {}),
      dataType: serializer.data_type,
      chunkShape: JSON.stringify(serializer.chunk_shape),
    }));
  }
  for (const s of stages) modules[s.spec.kind] = s.module;
  let index: ArrayAccess<R>["index"] = null;
  if (layout.shard) {
    if (!(arr.store as AnyStore).getRange) return "the store has no getRange for shards";
    const perShard = layout.chunk_shape.map((s, i) => s / chunkShape[i]);
    const shard = layout.shard;
    const list = shard.index_codecs;
    if (shard.index_fallback === null && shard.index_bytes !== null) {
      const u = list.length ? await compressStage(list, 8, shard.index_decoded_bytes) : undefined;
      index = { bytes: shard.index_bytes, perShard, unpack: async (raw) => (u ? unpackAll([u], raw).slice() : raw) };
    } else {
      const codecs = await bytesCodecs(list, "uint64", [...perShard, 2]);
      if (typeof codecs === "string") return codecs;
      let bytes = shard.index_decoded_bytes;
      for (const c of codecs) {
        if (!c.computeEncodedSize) return "a shard index codec of unknown size";
        bytes = c.computeEncodedSize(bytes);
      }
      index = { bytes, perShard, unpack: (raw) => decodeBytes(codecs, raw) };
    }
  }
  return { reader, layout, chunkShape, compressors, stages, index, memory, text, kind, modules, key: accessKeys++ };
}

/** Per-array access, built once (a failure is not kept). */
function cached<R extends TileReader>(make: (arr: Readable) => Promise<ArrayAccess<R> | string>) {
  const cache = new WeakMap<object, Promise<ArrayAccess<R> | string>>();
  return (arr: Readable) => {
    let found = cache.get(arr);
    if (!found) {
      found = make(arr);
      found.catch(() => cache.delete(arr));
      cache.set(arr, found);
    }
    return found;
  };
}

export const coreAccess = cached(async (arr) => {
  const wasm: Bindings = await loadWasm();
  return access(arr, (text) => new wasm.ArrayReader(text), "core", wasm);
});

export const decodedAccess = cached(async (arr) => {
  const wasm: PackingBindings = await loadPacking();
  return access(arr, (text) => new wasm.DecodedReader(text), "packing", wasm);
});

/** The store key of a chunk (or shard) at `coords`, relative to the array. */
export function chunkKey(layout: Layout, coords: number[]): string {
  const sep = layout.key_separator;
  if (layout.key_v2) return coords.length ? coords.join(sep) : "0";
  return ["c", ...coords].join(sep);
}

/** Undoes bytes -> bytes codecs, last first. */
export async function decodeBytes(codecs: BytesCodec[], bytes: Uint8Array): Promise<Uint8Array> {
  for (let i = codecs.length - 1; i >= 0; i--) bytes = await codecs[i].decode(bytes);
  return bytes;
}

const MAX_U64 = 0xffffffffffffffffn;

/** One chunk's stored bytes and its store key (for errors). */
interface Fetched {
  key: string;
  bytes: Uint8Array | undefined;
  /** Whether the bytes are this read's alone (a fetch response's), to hand over uncopied. */
  owned?: boolean;
}

/**
 * A function giving each (inner) chunk's stored bytes: as they are where the compress module
 * undoes their codecs (here or in a worker), after the registry's codecs otherwise.
 */
function chunkFetcher<R extends TileReader>(arr: Readable, a: ArrayAccess<R>, options: GetOptions) {
  const store = arr.store as AnyStore;
  const opts = options.signal ? { signal: options.signal } : undefined;
  const { layout, index } = a;
  const registry = (key: string, bytes: Uint8Array | undefined) =>
    bytes && a.compressors.length ? namingChunk(key, () => decodeBytes(a.compressors, bytes)) : bytes;
  // zarrita's FetchStore answers each request with a new buffer of the response's body,
  // which nothing else holds: the pool may take it rather than a copy. Any other store may
  // keep what it returns (an in-memory store returns its own bytes).
  const owned = store instanceof zarr.FetchStore && !a.compressors.length;
  const fetchRegular = async (coords: number[]): Promise<Fetched> => {
    const key = chunkKey(layout, coords);
    const path = arr.resolve(key).path;
    const bytes = await fromStore(path, () => store.get(path, opts));
    return { key, bytes: await registry(key, bytes), owned };
  };
  if (!index || !layout.shard) return fetchRegular;
  const shard = layout.shard;
  const indexes = shardIndexesOf(arr);
  const getRange = store.getRange!.bind(store);
  return async (coords: number[]): Promise<Fetched> => {
    const shardCoords = coords.map((c, i) => Math.floor(c / index.perShard[i]));
    const shardKey = chunkKey(layout, shardCoords);
    const path = arr.resolve(shardKey).path;
    let table = indexes.get(path);
    if (!table) {
      const range = shard.index_at_end ? { suffixLength: index.bytes } : { offset: 0, length: index.bytes };
      // Not cancelled with this read: other reads may be waiting for the same index.
      table = fromStore(path, () => getRange(path, range)).then((raw: Uint8Array | undefined) =>
        namingChunk(`${shardKey} (shard index)`, async () => {
          if (!raw) return undefined;
          if (raw.length !== index.bytes) {
            throw codedError("CHUNK_LENGTH", `the shard index has ${raw.length} bytes, not ${index.bytes}`);
          }
          const bytes = await index.unpack(raw);
          return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        }),
      );
      indexes.set(path, table, index.bytes);
    }
    const view = await table;
    let position = 0;
    for (let i = 0; i < coords.length; i++) position = position * index.perShard[i] + (coords[i] % index.perShard[i]);
    const key = `${shardKey} (inner chunk ${position})`;
    if (!view) return { key, bytes: undefined };
    const little = shard.index_endian === "little";
    if (view.byteLength < (position + 1) * 16) throw codedError("CHUNK_LENGTH", `the shard index of ${shardKey} is too short`);
    const offset = view.getBigUint64(position * 16, little);
    const length = view.getBigUint64(position * 16 + 8, little);
    if (offset === MAX_U64 && length === MAX_U64) return { key, bytes: undefined };
    const bytes = await fromStore(path, () => getRange(path, { offset: Number(offset), length: Number(length) }, opts));
    if (!bytes || bytes.length !== Number(length)) {
      throw codedError("CHUNK_LENGTH", `chunk ${key} has ${bytes?.length ?? 0} bytes, its shard index says ${length}`);
    }
    return { key, bytes: await registry(key, bytes), owned };
  };
}

/** How many bytes of shard indexes an array keeps between reads (see `ShardIndexes`). */
export const SHARD_INDEX_BYTES = 16 * 1024 * 1024;

/**
 * The shard indexes read for one array, kept between reads up to SHARD_INDEX_BYTES in all
 * (the least recently used leave first), so that a viewer panning over a shard reads its index
 * once, as zarrita does. A read that fails (or is aborted) is not kept.
 */
class ShardIndexes {
  #entries = new Map<string, { table: Promise<DataView | undefined>; bytes: number }>();
  #bytes = 0;

  get(path: string): Promise<DataView | undefined> | undefined {
    const entry = this.#entries.get(path);
    if (!entry) return undefined;
    // The most recently used last.
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    return entry.table;
  }

  set(path: string, table: Promise<DataView | undefined>, bytes: number): void {
    const entry = { table, bytes };
    this.#entries.set(path, entry);
    this.#bytes += bytes;
    table.catch(() => this.#drop(path, entry));
    for (const [oldest, e] of this.#entries) {
      if (this.#bytes <= SHARD_INDEX_BYTES || oldest === path) break;
      this.#drop(oldest, e);
    }
  }

  #drop(path: string, entry: { bytes: number }): void {
    if (this.#entries.get(path) !== entry) return;
    this.#entries.delete(path);
    this.#bytes -= entry.bytes;
  }
}

const shardIndexes = new WeakMap<object, ShardIndexes>();

function shardIndexesOf(arr: object): ShardIndexes {
  let found = shardIndexes.get(arr);
  if (!found) shardIndexes.set(arr, (found = new ShardIndexes()));
  return found;
}

/** The runs of the output a box's values go to. */
function runsOf(plan: Plan, box: Box, out: TypedArray): Runs {
  const { runLength, runs, runStart } = boxRuns(plan, box);
  const starts = new Float64Array(runs);
  for (let r = 0; r < runs; r++) starts[r] = runStart(r);
  return { out, runLength, starts };
}

/** The box of a chunk as the reader takes it: (first, step, count) per dimension. */
function regionOf(box: Box): Uint32Array {
  return new Uint32Array(box.pieces.flatMap((p) => [p.first, p.step, p.count]));
}

/**
 * Reads `selection` of `arr` into a new output of `Out`: each chunk's box decoded by the
 * reader a tile at a time and copied into place; missing chunks take `fill` (one value of
 * `Out`'s type, as bytes).
 */
async function readInto<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  selection: Selection,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
) {
  const pool = poolOf(options);
  const signal = options.signal;
  signal?.throwIfAborted();
  if (pool) return readWithPool(arr, a, selection, options, Out, fill, pool);
  const plan = planSelection(selection, a.layout.shape, a.chunkShape);
  const out = options.out ? checkOut(options.out, Out, plan.size) : allocate(plan.size, Out.BYTES_PER_ELEMENT, () => new Out(plan.size));
  const fetchChunk = chunkFetcher(arr, a, options);
  // A fetch's place goes to the next chunk when its bytes are in, before they decode.
  const paced = limiter(concurrencyOf(options, DEFAULT_CONCURRENCY));
  const placed = progress(options, plan.boxes.length);
  await untilAborted(signal, Promise.all(
    plan.boxes.map(async (box) => {
      const { key, bytes } = await paced(() => fetchChunk(box.coords));
      // An aborted read decodes nothing more.
      signal?.throwIfAborted();
      const to = runsOf(plan, box, out);
      if (!bytes) return placed(fillRuns(fill, to));
      // Unpacked and placed with nothing awaited between: the view is of wasm memory.
      await namingChunk(key, () => {
        placeChunk(a.reader, a.memory, unpackAll(a.stages, bytes), regionOf(box), Out, to);
      });
      placed();
    }),
  ));
  return { data: out, shape: plan.shape, stride: cOrderStrides(plan.shape) };
}

/** A function to call as each of `total` chunks is done: it reports to `onProgress`. */
export function progress(options: { onProgress?: (done: number, total: number) => void }, total: number) {
  let done = 0;
  return (_?: unknown) => options.onProgress?.(++done, total);
}

/** `out` if it is an `Out` of `length` values; refused otherwise (before anything is read). */
export function checkOut(out: unknown, Out: TypedArrayCtor, length: number): TypedArray {
  if (!(out instanceof Out)) {
    const name = (out as object | null)?.constructor?.name ?? typeof out;
    throw codedError("WRONG_ARRAY_TYPE", `options.out must be a ${Out.name} (the result's type), got ${name}`);
  }
  if (out.length !== length) {
    throw codedError("SHAPE_MISMATCH", `options.out has ${out.length} values but the selection has ${length}`);
  }
  return out;
}

/**
 * `work`, or its signal's reason (an AbortError) as soon as the signal fires: a read's
 * promise settles when it is aborted, not when its last fetch or decode ends.
 */
function untilAborted<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (!signal) return work;
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}

/** Whether a SharedArrayBuffer output can be shared with workers here. */
function sharedMemory(): boolean {
  if (typeof SharedArrayBuffer === "undefined") return false;
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated ?? isNode;
}

/**
 * `readInto` with the decoding done by a pool's workers: the main thread fetches each chunk
 * and sends a copy of its stored bytes, which the worker unpacks (compress module) and
 * decodes (codecs only zarrita's registry has are undone here first). With a shared output
 * the workers write each box into place. Without one, a worker assembles the output (see
 * `WorkerPool.assemble`) and transfers it here whole: the main thread passes boxes on but
 * copies no values.
 */
async function readWithPool<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  selection: Selection,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
  pool: WorkerPool,
) {
  const plan = planSelection(selection, a.layout.shape, a.chunkShape);
  const shared = options.useSharedArrayBuffer ?? sharedMemory();
  if (shared && !sharedMemory()) {
    throw codedError(
      "NO_SHARED_MEMORY",
      "useSharedArrayBuffer needs SharedArrayBuffer, which a browser gives only to cross-origin isolated pages " +
        "(Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp)",
    );
  }
  const given = options.out && checkOut(options.out, Out, plan.size);
  const bytes = plan.size * Out.BYTES_PER_ELEMENT;
  // The caller's output, when the workers can share it; else a new shared one, or none (one
  // worker assembles the values and the caller's output is filled from them at the end).
  let buffer: SharedArrayBuffer | undefined;
  let at = 0;
  if (given && typeof SharedArrayBuffer !== "undefined" && given.buffer instanceof SharedArrayBuffer) {
    [buffer, at] = [given.buffer, given.byteOffset];
  } else if (shared && !given) {
    buffer = allocate(plan.size, Out.BYTES_PER_ELEMENT, () => new SharedArrayBuffer(bytes));
  }
  const out = buffer ? (given?.buffer === buffer ? given : new Out(buffer, at, plan.size)) : undefined;
  const assembly = buffer ? undefined : await pool.assemble(Out.name, plan.size, fill);
  const fetchChunk = chunkFetcher(arr, a, options);
  const paced = limiter(concurrencyOf(options, Math.max(DEFAULT_CONCURRENCY, await pool.ahead())));
  const signal = options.signal;
  const placed = progress(options, plan.boxes.length);
  try {
    await untilAborted(signal, Promise.all(
      plan.boxes.map((box) => paced(async () => {
        // An aborted read fetches and decodes nothing more.
        signal?.throwIfAborted();
        const { key, bytes, owned } = await fetchChunk(box.coords);
        signal?.throwIfAborted();
        const { runLength, starts } = runsOf(plan, box, out ?? new Out(0));
        if (!bytes && out) return placed(fillRuns(fill, { out, runLength, starts }));
        if (!bytes) return placed(assembly!.fill(runLength, starts));
        const values = await namingChunk(key, () =>
          pool.run(
            {
              kind: a.kind,
              key: a.key,
              text: a.text,
              stages: a.stages.map((s) => s.spec),
              stored: bytes,
              owned: owned === true,
              region: regionOf(box),
              type: Out.name,
              out: buffer,
              outOffset: at,
              read: assembly?.read,
              runLength,
              starts,
            },
            a.modules,
            signal,
          ),
        );
        if (values) assembly!.place(values, runLength, starts);
        placed();
      })),
    ));
  } catch (e) {
    assembly?.abort();
    throw e;
  }
  let data = out ?? new Out(await assembly!.finish(), 0, plan.size);
  if (given && !buffer) data = (given.set(data as never), given);
  return { data, shape: plan.shape, stride: cOrderStrides(plan.shape) };
}

/** Resolvers waiting for a task of their own (browsers: one message each on `taskChannel`). */
const waitingTasks: (() => void)[] = [];
let taskChannel: MessageChannel | undefined;

/** A promise that resolves in a later task of the event loop (not a microtask). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;
    if (immediate) return void immediate(resolve);
    if (!taskChannel) {
      taskChannel = new MessageChannel();
      taskChannel.port1.onmessage = () => waitingTasks.shift()?.();
    }
    waitingTasks.push(resolve);
    taskChannel.port2.postMessage(null);
  });
}

/**
 * Runs at most `n` of the functions given to it at once; the others wait their turn, in
 * order, and each starts in the task that ended the one before it. The first `n` start in a
 * task each, so that a store answering at once (from memory) does not do all their work in
 * one long task.
 */
function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(f: () => Promise<T>): Promise<T> => {
    if (active < n) {
      if (active++) await nextTask();
    } else {
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    try {
      return await f();
    } finally {
      // The place goes to the next waiting function, if any.
      const next = queue.shift();
      if (next) next();
      else active--;
    }
  };
}

/** The pool a read's options ask for, if any. */
function poolOf(options: GetOptions): WorkerPool | undefined {
  const pool = options.pool as unknown;
  if (pool === true) return defaultPool();
  if (pool === undefined || pool === null || pool === false) return undefined;
  if (!(pool instanceof WorkerPool)) {
    throw codedError("INVALID_ARGUMENT", `options.pool must be a WorkerPool, true (the default pool) or false, got ${typeof pool === "string" ? JSON.stringify(pool) : typeof pool}`);
  }
  return pool;
}

/**
 * What `get` answers for a selection, as zarr.get: the chunk of the array's typed array, or
 * the one value (`number`, `bigint`) when every entry of the selection is an integer.
 */
export type GetResult<D extends zarr.DataType, Sel extends (number | zarr.Slice | null)[]> = null extends Sel[number]
  ? zarr.Chunk<D>
  : zarr.Slice extends Sel[number]
    ? zarr.Chunk<D>
    : zarr.Scalar<D>;

/** A zarr.get result: the chunk, or the one value when every dimension is an integer. */
function result<T extends { data: TypedArray; shape: number[] }>(chunk: T): T | number | bigint {
  return chunk.shape.length === 0 ? (chunk.data[0] as number | bigint) : chunk;
}

/**
 * `zarr.get(arr, selection)`, on the package's own path: the same result (the array's typed
 * array, shape, C-order stride; a single value when every dimension is an integer), decoded
 * straight into the output, with zarr.json's 64-bit integers exact. Arrays whose codecs this
 * path does not run (e.g. a v2 `delta` filter, float16 where there is no Float16Array) are
 * read by `zarr.get` instead.
 */
export function get<
  D extends zarr.DataType,
  Store extends zarr.Readable,
  Sel extends (number | zarr.Slice | null)[] = (number | zarr.Slice | null)[],
>(arr: zarr.Array<D, Store>, selection?: Sel | null, options?: GetOptions): Promise<GetResult<D, Sel>>;
export function get(arr: Readable, selection: Selection = null, options: GetOptions = {}) {
  return naming(arr.path, async () => {
    checkSelection(selection, arr.shape.length);
    concurrencyOf(options, DEFAULT_CONCURRENCY);
    const a = await coreAccess(arr);
    if (typeof a === "string") {
      return intoOut(arr, selection, options, typedArrayFor(arr.dtype), () => readByZarrita(arr, (twin) => zarr.get(twin, selection, options as never)));
    }
    const Out = typedArrayFor(a.layout.data_type)!;
    return result(await readInto(arr, a, selection, options, Out, Uint8Array.from(a.layout.fill_bytes)));
  }, options.signal);
}

/**
 * A read by another path (`read`, e.g. zarr.get): with `options.out`, the output is checked
 * before the read and filled after it; `onProgress` hears of every chunk at once, at its end.
 */
export async function intoOut<T>(
  arr: Readable,
  selection: Selection,
  options: GetOptions,
  Out: TypedArrayCtor | undefined,
  read: () => Promise<T>,
): Promise<T> {
  if (!options.out && !options.onProgress) return read();
  const plan = planSelection(selection, arr.shape, arr.chunks);
  let out: TypedArray | undefined;
  if (options.out) {
    if (!Out) throw codedError("WRONG_ARRAY_TYPE", `options.out: no typed array for ${arr.dtype} here`);
    out = checkOut(options.out, Out, plan.size);
  }
  const got = await read();
  options.onProgress?.(plan.boxes.length, plan.boxes.length);
  if (!out) return got;
  if (typeof got === "object" && got !== null && "data" in got) {
    out.set((got as { data: TypedArray }).data as never);
    return { ...got, data: out };
  }
  out[0] = got as never;
  return got;
}

/** `getDecoded`'s path: tiles decoded, masked and scaled into float64 as they are placed. */
export async function getDecodedDirect(arr: Readable, selection: Selection, options: GetOptions) {
  const a = await decodedAccess(arr);
  if (typeof a === "string") return undefined;
  const fill = new Uint8Array(Float64Array.of(a.reader.decodedFill).buffer);
  const chunk = await readInto(arr, a, selection, options, Float64Array, fill);
  return chunk as { data: Float64Array; shape: number[]; stride: number[] };
}
