// The package's own read path: `get`, a drop-in for zarr.get. It reads the array's zarr.json
// text itself (so 64-bit integers in it are exact), fetches the chunks' stored bytes through
// the array's store (shard indexes included), runs bytes -> bytes codecs through zarrita's
// registry, and has the wasm decode each chunk's selected box a tile at a time into its own
// memory, from where each tile is copied once into its place in the output. No chunk is
// decoded into an array of its own.
import * as zarr from "zarrita";
import { codedError, naming } from "./errors.js";
import { type Bindings, type PackingBindings, compiledOf, loadPacking, loadWasm, memoryOf } from "./load.js";
import { isNode } from "./node.js";
import { defaultPool, WorkerPool } from "./pool.js";
import { type Box, boxRuns, planSelection, type Plan, type Selection } from "./select.js";
import { cOrderStrides } from "./strides.js";

export type { Selection } from "./select.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;
type AnyStore = zarr.Readable & {
  get(key: zarr.AbsolutePath, opts?: unknown): Promise<Uint8Array | undefined>;
  getRange?: (key: zarr.AbsolutePath, range: { offset: number; length: number } | { suffixLength: number }, opts?: unknown) => Promise<Uint8Array | undefined>;
};

/** Options of `get` and `getDecoded`. */
export interface GetOptions {
  /** Passed to the store's requests. */
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
}

/** A typed array over a buffer, as the output types are. */
export type TypedArray =
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Float32Array | Float64Array;
type TypedArrayCtor = {
  new (length: number): TypedArray;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray;
  BYTES_PER_ELEMENT: number;
};

const CTORS: Record<string, TypedArrayCtor | undefined> = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: globalThis.BigInt64Array as TypedArrayCtor,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: globalThis.BigUint64Array as TypedArrayCtor,
  float16: (globalThis as { Float16Array?: TypedArrayCtor }).Float16Array,
  float32: Float32Array, float64: Float64Array,
};

/** The typed array zarr.get gives for a data type (undefined: none in this engine). */
export function typedArrayFor(dataType: string): TypedArrayCtor | undefined {
  return CTORS[dataType];
}

/** What the wasm says of an array's layout (crate::layout::ArrayLayout::to_json). */
interface Layout {
  data_type: string;
  shape: number[];
  chunk_shape: number[];
  key_v2: boolean;
  key_separator: string;
  codecs: CodecMeta[];
  shard: null | { chunk_shape: number[]; index_endian: "little" | "big"; index_codecs: CodecMeta[]; index_at_end: boolean };
  fill_bytes: number[];
}
interface CodecMeta {
  name: string;
  configuration?: unknown;
}
interface BytesCodec {
  encode?(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  decode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  computeEncodedSize?(size: number): number;
}

/** Either reader the wasm modules export: ArrayReader (core) and DecodedReader (packing). */
interface TileReader {
  readonly fallback: string | undefined;
  readonly layoutJson: string;
  setChunk(stored: Uint8Array, region: Uint32Array): number;
  decodeTile(from: number, n: number): number;
}

/** Reading `arr` on this path: its reader, layout and codecs, or why it falls back. */
export interface ArrayAccess<R extends TileReader> {
  reader: R;
  layout: Layout;
  /** The (inner) chunk shape, the grid a selection is planned on. */
  chunkShape: number[];
  compressors: BytesCodec[];
  index: null | { compressors: BytesCodec[]; bytes: number; perShard: number[] };
  memory: WebAssembly.Memory;
  /** For pool workers: the zarr.json text, which module reads it, the module, a key. */
  text: string;
  kind: "core" | "packing";
  module: WebAssembly.Module;
  key: number;
}

let accessKeys = 0;

async function bytesCodecs(list: CodecMeta[], chunkShape: number[]): Promise<BytesCodec[] | string> {
  const out: BytesCodec[] = [];
  for (const meta of list) {
    const load = zarr.registry.get(meta.name);
    if (!load) return `no codec ${meta.name} in zarrita's registry`;
    const Codec = (await load()) as unknown as { fromConfig(c: unknown, m: unknown): BytesCodec };
    out.push(Codec.fromConfig(meta.configuration, { dataType: "uint8", shape: chunkShape, codecs: list, fillValue: 0 }));
  }
  return out;
}

/** The exact zarr.json text of a zarrita array (undefined when it has none: a v2 array). */
const texts = new WeakMap<object, Promise<string | undefined>>();

export function metadataText(arr: zarr.Location<zarr.Readable>): Promise<string | undefined> {
  const known = texts.get(arr);
  if (known) return known;
  const store = arr.store as AnyStore;
  const text = Promise.resolve(store.get(arr.resolve("zarr.json").path)).then((bytes) =>
    bytes ? new TextDecoder().decode(bytes) : undefined,
  );
  text.catch(() => texts.delete(arr));
  texts.set(arr, text);
  return text;
}

/** Remembers the zarr.json text an array was opened from (see open()). */
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
  if (text === undefined) return "no zarr.json (a zarr v2 array)";
  const reader = make(text);
  if (reader.fallback !== undefined) return reader.fallback;
  const layout = JSON.parse(reader.layoutJson) as Layout;
  if (!typedArrayFor(layout.data_type)) return `no typed array for ${layout.data_type} here`;
  const chunkShape = layout.shard?.chunk_shape ?? layout.chunk_shape;
  const compressors = await bytesCodecs(layout.codecs, chunkShape);
  if (typeof compressors === "string") return compressors;
  let index: ArrayAccess<R>["index"] = null;
  if (layout.shard) {
    if (!(arr.store as AnyStore).getRange) return "the store has no getRange for shards";
    const perShard = layout.chunk_shape.map((s, i) => s / chunkShape[i]);
    const codecs = await bytesCodecs(layout.shard.index_codecs, [...perShard, 2]);
    if (typeof codecs === "string") return codecs;
    let bytes = 16 * perShard.reduce((a, b) => a * b, 1);
    for (const c of codecs) {
      if (!c.computeEncodedSize) return "a shard index codec of unknown size";
      bytes = c.computeEncodedSize(bytes);
    }
    index = { compressors: codecs, bytes, perShard };
  }
  const module = compiledOf(bindings);
  return { reader, layout, chunkShape, compressors, index, memory, text, kind, module, key: accessKeys++ };
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

/** A function giving each (inner) chunk's stored bytes, after bytes -> bytes codecs. */
function chunkFetcher<R extends TileReader>(arr: Readable, a: ArrayAccess<R>, options: GetOptions, raw = false) {
  // `raw`: the stored bytes as they are (a pool worker removes their gzip).
  const unpack = raw ? async (_codecs: BytesCodec[], bytes: Uint8Array) => bytes : decodeBytes;
  const store = arr.store as AnyStore;
  const opts = options.signal ? { signal: options.signal } : undefined;
  const { layout, index } = a;
  const fetchRegular = async (coords: number[]) => {
    const bytes = await Promise.resolve(store.get(arr.resolve(chunkKey(layout, coords)).path, opts));
    return bytes && unpack(a.compressors, bytes);
  };
  if (!index || !layout.shard) return fetchRegular;
  const shard = layout.shard;
  const indexes = new Map<string, Promise<DataView | undefined>>();
  const getRange = store.getRange!.bind(store);
  return async (coords: number[]) => {
    const shardCoords = coords.map((c, i) => Math.floor(c / index.perShard[i]));
    const path = arr.resolve(chunkKey(layout, shardCoords)).path;
    let table = indexes.get(path);
    if (!table) {
      const range = shard.index_at_end ? { suffixLength: index.bytes } : { offset: 0, length: index.bytes };
      table = Promise.resolve(getRange(path, range, opts)).then(async (raw: Uint8Array | undefined) => {
        if (!raw) return undefined;
        if (raw.length !== index.bytes) {
          throw codedError("CHUNK_LENGTH", `the shard index of ${path} has ${raw.length} bytes, not ${index.bytes}`);
        }
        const bytes = await decodeBytes(index.compressors, raw);
        return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      });
      indexes.set(path, table);
    }
    const view = await table;
    if (!view) return undefined;
    let position = 0;
    for (let i = 0; i < coords.length; i++) position = position * index.perShard[i] + (coords[i] % index.perShard[i]);
    const little = shard.index_endian === "little";
    if (view.byteLength < (position + 1) * 16) throw codedError("CHUNK_LENGTH", `the shard index of ${path} is too short`);
    const offset = view.getBigUint64(position * 16, little);
    const length = view.getBigUint64(position * 16 + 8, little);
    if (offset === MAX_U64 && length === MAX_U64) return undefined;
    const bytes = await getRange(path, { offset: Number(offset), length: Number(length) }, opts);
    if (!bytes || bytes.length !== Number(length)) {
      throw codedError("CHUNK_LENGTH", `an inner chunk of ${path} has ${bytes?.length ?? 0} bytes, its index says ${length}`);
    }
    return unpack(a.compressors, bytes);
  };
}

/** `length` values of `Out`, each the value whose bytes are `fill` (bit for bit, NaN payloads too). */
export function filled(Out: TypedArrayCtor, fill: Uint8Array, length: number): TypedArray {
  const bytes = new Uint8Array(length * Out.BYTES_PER_ELEMENT);
  for (let i = 0; i < bytes.length; i++) bytes[i] = fill[i % fill.length];
  return new Out(bytes.buffer, 0, length);
}

/** Values per tile: large enough to amortise a call, small enough to stay in cache. */
const TILE_BYTES = 64 * 1024;

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
  if (pool) return readWithPool(arr, a, selection, options, Out, fill, pool);
  const plan = planSelection(selection, a.layout.shape, a.chunkShape);
  const out = new Out(plan.size);
  const fetchChunk = chunkFetcher(arr, a, options);
  const tileLength = Math.max(1, Math.floor(TILE_BYTES / Out.BYTES_PER_ELEMENT));
  const fillRun = filler(out, Out, fill);
  await Promise.all(
    plan.boxes.map(async (box) => {
      const stored = await fetchChunk(box.coords);
      place(a, plan, box, stored, out, Out, tileLength, fillRun);
    }),
  );
  return { data: out, shape: plan.shape, stride: cOrderStrides(plan.shape) };
}

/** Whether a SharedArrayBuffer output can be shared with workers here. */
function sharedMemory(): boolean {
  if (typeof SharedArrayBuffer === "undefined") return false;
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated ?? isNode;
}

/**
 * `readInto` with the decoding done by a pool's workers: the main thread fetches each chunk
 * and sends a copy of its stored bytes (gzip is removed in the worker; other bytes -> bytes
 * codecs here first). With a shared output the workers write each box into place. Without
 * one, a worker assembles the output (see `WorkerPool.assemble`) and transfers it here
 * whole: the main thread passes boxes on but copies no values.
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
  const buffer = shared ? new SharedArrayBuffer(plan.size * Out.BYTES_PER_ELEMENT) : undefined;
  const out = buffer ? new Out(buffer, 0, plan.size) : undefined;
  const assembly = buffer ? undefined : await pool.assemble(Out.name, plan.size, fill);
  const gzipInWorker = a.layout.codecs.every((c) => c.name === "gzip");
  const fetchChunk = chunkFetcher(arr, a, options, gzipInWorker);
  const fillRun = out && filler(out, Out, fill);
  try {
    await Promise.all(
      plan.boxes.map(async (box) => {
        const stored = await fetchChunk(box.coords);
        const { runLength, runs, runStart } = boxRuns(plan, box);
        if (!stored && fillRun) {
          for (let r = 0; r < runs; r++) fillRun(runStart(r), runLength);
          return;
        }
        const starts = new Float64Array(runs);
        for (let r = 0; r < runs; r++) starts[r] = runStart(r);
        if (!stored) return assembly!.fill(runLength, starts);
        const values = await pool.run(
          {
            kind: a.kind,
            key: a.key,
            text: a.text,
            stored,
            gzip: gzipInWorker ? a.layout.codecs.length : 0,
            region: new Uint32Array(box.pieces.flatMap((p) => [p.first, p.step, p.count])),
            type: Out.name,
            out: buffer,
            read: assembly?.read,
            runLength,
            starts,
          },
          a.module,
        );
        if (values) assembly!.place(values, runLength, starts);
      }),
    );
  } catch (e) {
    assembly?.abort();
    throw e;
  }
  const data = out ?? new Out(await assembly!.finish(), 0, plan.size);
  return { data, shape: plan.shape, stride: cOrderStrides(plan.shape) };
}

/** Writes `fill` (one value's bytes) to runs of `out`, a tile of copies at a time. */
function filler(out: TypedArray, Out: TypedArrayCtor, fill: Uint8Array) {
  const tileLength = Math.max(1, Math.floor(TILE_BYTES / Out.BYTES_PER_ELEMENT));
  let fillRow: TypedArray | undefined;
  return (start: number, length: number) => {
    fillRow ??= filled(Out, fill, tileLength);
    for (let done = 0; done < length; done += tileLength) {
      out.set(fillRow.subarray(0, Math.min(tileLength, length - done)) as never, start + done);
    }
  };
}

/** The pool a read's options ask for, if any. */
function poolOf(options: GetOptions): WorkerPool | undefined {
  if (options.pool === true) return defaultPool();
  return options.pool || undefined;
}

/** Decodes one chunk's box and copies it, tile by tile, into its runs of the output. */
function place<R extends TileReader>(
  a: ArrayAccess<R>,
  plan: Plan,
  box: Box,
  stored: Uint8Array | undefined,
  out: TypedArray,
  Out: TypedArrayCtor,
  tileLength: number,
  fillRun: (start: number, length: number) => void,
) {
  const { runLength, runs, runStart } = boxRuns(plan, box);
  if (!stored) {
    for (let r = 0; r < runs; r++) fillRun(runStart(r), runLength);
    return;
  }
  const region = new Uint32Array(box.pieces.flatMap((p) => [p.first, p.step, p.count]));
  const total = a.reader.setChunk(stored, region);
  for (let from = 0; from < total; from += tileLength) {
    const n = Math.min(tileLength, total - from);
    const address = a.reader.decodeTile(from, n);
    const tile = new Out(a.memory.buffer, address, n);
    // Copy the tile's values run by run (a run may begin in an earlier tile).
    let position = from;
    while (position < from + n) {
      const run = Math.floor(position / runLength);
      const within = position - run * runLength;
      const length = Math.min(runLength - within, from + n - position);
      out.set(tile.subarray(position - from, position - from + length) as never, runStart(run) + within);
      position += length;
    }
  }
}

/** A zarr.get result: the chunk, or the one value when every dimension is an integer. */
function result<T extends { data: TypedArray; shape: number[] }>(chunk: T): T | number | bigint {
  return chunk.shape.length === 0 ? (chunk.data[0] as number | bigint) : chunk;
}

/**
 * `zarr.get(arr, selection)`, on the package's own path: the same result (the array's typed
 * array, shape, C-order stride; a single value when every dimension is an integer), decoded
 * straight into the output, with zarr.json's 64-bit integers exact. Arrays whose codecs this
 * path does not run in place (e.g. `transpose`, `zfp`, a v2 array, float16 where there is no
 * Float16Array) are read by `zarr.get` instead.
 */
export function get(arr: Readable, selection: Selection = null, options: GetOptions = {}) {
  return naming(arr.path, async () => {
    const a = await coreAccess(arr);
    if (typeof a === "string") return zarr.get(arr, selection, options as never);
    const Out = typedArrayFor(a.layout.data_type)!;
    return result(await readInto(arr, a, selection, options, Out, Uint8Array.from(a.layout.fill_bytes)));
  });
}

/** `getDecoded`'s path: tiles decoded, masked and scaled into float64 as they are placed. */
export async function getDecodedDirect(arr: Readable, selection: Selection, options: GetOptions) {
  const a = await decodedAccess(arr);
  if (typeof a === "string") return undefined;
  const fill = new Uint8Array(Float64Array.of(a.reader.decodedFill).buffer);
  const chunk = await readInto(arr, a, selection, options, Float64Array, fill);
  return chunk as { data: Float64Array; shape: number[]; stride: number[] };
}
