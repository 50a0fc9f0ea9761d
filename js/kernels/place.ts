// Placing one chunk's box into an output: the one code that both the main thread (one-thread
// reads) and the pool's workers run. The stored bytes are first freed of their bytes -> bytes
// codecs by the compress module (where the chain has any), then either copied row by row
// straight into the output (a chunk whose stored bytes are its values) or decoded by the
// array's reader a tile at a time in wasm memory and copied run by run. No values are
// computed here: the wasm does that.
import { cOrderStrides } from "../common/strides.js";
import type { BytesModule, WholeChunkModule } from "../modules.js";
import { DATA_TYPES } from "../wasm/tables.js";

/** A typed array over a buffer, as the output types are. */
export type TypedArray =
  | Int8Array | Int16Array | Int32Array | BigInt64Array
  | Uint8Array | Uint16Array | Uint32Array | BigUint64Array
  | Float32Array | Float64Array;
export type TypedArrayCtor = {
  new (length: number): TypedArray;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): TypedArray;
  BYTES_PER_ELEMENT: number;
  readonly name: string;
};

const float16 = (globalThis as { Float16Array?: TypedArrayCtor }).Float16Array;

/** Output constructors by name (what crosses to a worker) and by zarr data type. */
const BY_NAME: Record<string, TypedArrayCtor | undefined> = {
  Int8Array, Int16Array, Int32Array, BigInt64Array: globalThis.BigInt64Array as TypedArrayCtor,
  Uint8Array, Uint16Array, Uint32Array, BigUint64Array: globalThis.BigUint64Array as TypedArrayCtor,
  Float16Array: float16, Float32Array, Float64Array,
};
/** Each data type's typed array, from the library (`DataType::typed_arrays`). */
const BY_DATA_TYPE: Readonly<Record<string, string>> = DATA_TYPES;

/** The typed array constructor of this name (undefined: none in this engine). */
export function typedArrayNamed(name: string): TypedArrayCtor | undefined {
  return BY_NAME[name];
}

/** The typed array zarr.get gives for a data type (undefined: none in this engine). */
export function typedArrayFor(dataType: string): TypedArrayCtor | undefined {
  return BY_NAME[BY_DATA_TYPE[dataType] ?? ""];
}

/** Either reader the wasm modules export: ArrayReader (core) and DecodedReader (packing). */
export interface TileReader {
  readonly fallback: string | undefined;
  readonly layoutJson: string;
  setChunk(stored: Uint8Array, region: Uint32Array): number;
  decodeTile(from: number, n: number): number;
  /** Core only: whether stored bytes are the values themselves, checked by `checkChunk`. */
  readonly storedAsValues?: boolean;
  checkChunk?(byteLength: number, region: Uint32Array): number;
  free(): void;
}

/**
 * One step from a chunk's stored bytes towards what its reader takes: the compress module's
 * decoder of the bytes -> bytes codecs, or a serializer decoding whole chunks (a whole-chunk module)
 * to their values' little-endian bytes. Its output stays in its module's memory, at
 * `address`, until its next call.
 */
export interface Decompressor {
  decode(stored: Uint8Array): number;
  readonly address: number;
  free(): void;
}

/**
 * How a step is built, in the main thread and again in a worker (in decode order: the
 * compress module's step before a serializer's). `compress`, `archive` or `zstd` (the module that has
 * every codec of the list): the bytes -> bytes codecs (zarr v3 metadata as JSON, encode order), the item size of what they receive, and the size every
 * chunk decodes to where every chunk has the same. A whole-chunk module: the codec's
 * configuration (JSON), the data type it receives and the chunk shape it sees (JSON).
 */
export type StageSpec =
  | { kind: BytesModule; codecs: string; itemSize: number; expected?: number }
  | { kind: WholeChunkModule; configuration: string; dataType: string; chunkShape: string };

/** Whether a step runs bytes -> bytes codecs (the compress, archive or zstd module's Decompressor). */
export function isBytesStage(spec: StageSpec): spec is Extract<StageSpec, { kind: BytesModule }> {
  // (Its spec, unlike a whole-chunk module's, lists codecs.)
  return "codecs" in spec;
}

/** The compress (or archive, or zstd) module's class (Decompressor). */
type CompressClass = new (codecs: string, itemSize: number, expected?: number) => Decompressor & { encode(raw: Uint8Array): Uint8Array };

/** A whole-chunk module's class (the one class every such module has, crates/common.rs). */
interface SerializerClass {
  new (configuration: string, dataType: string, chunkShape: string): {
    decodeBytes(stored: Uint8Array): number;
    encodeBytes(raw: Uint8Array): Uint8Array;
    readonly address: number;
    free(): void;
  };
}

/**
 * A step built from its spec and its module's class (the `step` of its row in modules.ts),
 * with the encoder the write path uses.
 */
export function stageOf(spec: StageSpec, Class: unknown): Decompressor & { encode?(raw: Uint8Array): Uint8Array } {
  if (isBytesStage(spec)) return new (Class as CompressClass)(spec.codecs, spec.itemSize, spec.expected);
  const codec = new (Class as SerializerClass)(spec.configuration, spec.dataType, spec.chunkShape);
  return {
    decode: (stored) => codec.decodeBytes(stored),
    get address() {
      return codec.address;
    },
    encode: (raw) => codec.encodeBytes(raw),
    free: () => codec.free(),
  };
}

/** Whether `bytes` are the whole of a plain ArrayBuffer (one that can be handed to a worker as they are). */
export function fillsItsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
}

/** Values per tile: large enough to amortise a call, small enough to stay in cache. */
export const TILE_BYTES = 64 * 1024;

/**
 * The stored bytes after one step: a view of its module's memory, valid until its next call
 * (so it is used before anything is awaited).
 */
export function unpack(decompressor: Decompressor | undefined, memory: WebAssembly.Memory | undefined, stored: Uint8Array): Uint8Array {
  if (!decompressor) return stored;
  const n = decompressor.decode(stored);
  return new Uint8Array(memory!.buffer, decompressor.address, n);
}

/** The stored bytes after every step, in order (see `unpack`). */
export function unpackAll(steps: readonly { decoder: Decompressor; memory: WebAssembly.Memory }[], stored: Uint8Array): Uint8Array {
  for (const step of steps) stored = unpack(step.decoder, step.memory, stored);
  return stored;
}

/** Where a box's values go: runs of `runLength` values starting at `starts[r]` in `out`. */
export interface Runs {
  out: TypedArray;
  runLength: number;
  starts: Float64Array;
}

/** The runs of a box decoded into an array of its own (its C order). */
export function boxRunsOf(out: TypedArray, runLength: number): Runs {
  return { out, runLength, starts: Float64Array.from({ length: out.length / runLength }, (_, r) => r * runLength) };
}

/** Per reader: the C-order strides of its (inner) chunks, when its stored bytes are values. */
const plainChunks = new WeakMap<object, number[] | null>();

function plainStrides(r: TileReader): number[] | null {
  let strides = plainChunks.get(r);
  if (strides === undefined) {
    strides = null;
    if (r.storedAsValues) {
      const layout = JSON.parse(r.layoutJson) as { chunk_shape: number[]; shard: null | { chunk_shape: number[] } };
      strides = cOrderStrides(layout.shard?.chunk_shape ?? layout.chunk_shape);
    }
    plainChunks.set(r, strides);
  }
  return strides;
}

/**
 * A whole chunk's values in an array of their own, where its stored bytes (`stored`, its bytes ->
 * bytes codecs undone) are its values (see `placeStored`); undefined where they are not, or
 * `region` is not the whole chunk. One copy: `ArrayBuffer.prototype.slice` does not zero the new
 * buffer first, as a new typed array is before values are copied into it. The length is checked
 * (CHUNK_LENGTH) as `placeChunk` checks it.
 */
export function storedValues(r: TileReader, stored: Uint8Array, region: Uint32Array, Out: TypedArrayCtor): TypedArray | undefined {
  const strides = plainStrides(r);
  if (!strides || strides.length * 3 !== region.length) return undefined;
  for (let d = 0; d < strides.length; d++) {
    if (region[3 * d] !== 0 || region[3 * d + 1] !== 1 || (d > 0 && strides[d - 1] !== strides[d] * region[3 * d + 2])) return undefined;
  }
  const total = r.checkChunk!(stored.length, region);
  return new Out(stored.buffer.slice(stored.byteOffset, stored.byteOffset + total * Out.BYTES_PER_ELEMENT));
}

/**
 * Places the box `region` ((first, step, count) per dimension) of one chunk, whose bytes ->
 * bytes codecs are already undone, into `to`'s runs. `memory` is the reader's module's.
 */
export function placeChunk(
  r: TileReader,
  memory: WebAssembly.Memory,
  stored: Uint8Array,
  region: Uint32Array,
  Out: TypedArrayCtor,
  to: Runs,
): void {
  if (placeStored(r, stored, region, Out, to)) return;
  const total = r.setChunk(stored, region);
  const tileLength = Math.max(1, Math.floor(TILE_BYTES / Out.BYTES_PER_ELEMENT));
  const { out, runLength, starts } = to;
  for (let from = 0; from < total; from += tileLength) {
    const n = Math.min(tileLength, total - from);
    // The call first: it may grow the memory, which replaces memory.buffer.
    const address = r.decodeTile(from, n);
    const tile = new Out(memory.buffer, address, n);
    // Copy the tile's values run by run (a run may begin in an earlier tile).
    let position = from;
    while (position < from + n) {
      const run = Math.floor(position / runLength);
      const within = position - run * runLength;
      const length = Math.min(runLength - within, from + n - position);
      out.set(tile.subarray(position - from, position - from + length) as never, starts[run] + within);
      position += length;
    }
  }
}

/**
 * Where a chunk's stored bytes are its values (`bytes` alone, little endian: the wasm says so
 * and checks the chunk's length and the box, with its own errors), copies the box's rows
 * straight from them, with no pass through the reader. False where that does not apply.
 */
function placeStored(r: TileReader, stored: Uint8Array, region: Uint32Array, Out: TypedArrayCtor, to: Runs): boolean {
  if (region.length === 0 || region[region.length - 2] !== 1) return false;
  const strides = plainStrides(r);
  if (!strides) return false;
  const total = r.checkChunk!(stored.length, region);
  // A typed view needs an aligned offset.
  // (A copy by the constructor: a Node Buffer's slice() is a view.)
  if (stored.byteOffset % Out.BYTES_PER_ELEMENT) stored = new Uint8Array(stored);
  const values = new Out(stored.buffer, stored.byteOffset, stored.byteLength / Out.BYTES_PER_ELEMENT);
  const dims = region.length / 3;
  const { out, runLength, starts } = to;
  // A row: the last dimension, with the dimensions before it while the box takes the ones
  // after them whole from the chunk (contiguous there) and a row stays inside an output run
  // (a complex item's two lanes, a string's code points, whole chunk rows: one copy).
  let first = dims - 1;
  let rowLength = region[3 * first + 2];
  while (first > 0) {
    const whole = region[3 * first] === 0 && region[3 * first + 2] === strides[first - 1] / strides[first];
    const longer = rowLength * region[3 * (first - 1) + 2];
    if (!whole || region[3 * (first - 1) + 1] !== 1 || runLength % longer !== 0) break;
    rowLength = longer;
    first--;
  }
  const index = new Array<number>(first).fill(0);
  for (let done = 0; done < total; done += rowLength) {
    let from = region[3 * first] * strides[first];
    for (let k = 0; k < first; k++) from += (region[3 * k] + index[k] * region[3 * k + 1]) * strides[k];
    // Rows divide runs, so a row lies in one run.
    const run = Math.floor(done / runLength);
    out.set(values.subarray(from, from + rowLength) as never, starts[run] + done - run * runLength);
    for (let k = first - 1; k >= 0; k--) {
      if (++index[k] < region[3 * k + 2]) break;
      index[k] = 0;
    }
  }
  return true;
}

/** Copies a box's values (in the box's C order, `to.runLength` a run) into the runs of an output. */
export function boxInto(values: TypedArray, to: Runs): void {
  for (let r = 0; r < to.starts.length; r++) {
    to.out.set(values.subarray(r * to.runLength, (r + 1) * to.runLength) as never, to.starts[r]);
  }
}

/** `length` values of `Out`, each the value whose bytes are `fill` (bit for bit, NaN payloads too). */
export function filled(Out: TypedArrayCtor, fill: Uint8Array, length: number): TypedArray {
  const bytes = new Uint8Array(length * Out.BYTES_PER_ELEMENT);
  if (fill.every((b) => b === 0)) return new Out(bytes.buffer, 0, length);
  // One value, then the filled part copied after itself, doubling each time.
  let done = Math.min(fill.length, bytes.length);
  bytes.set(fill.subarray(0, done));
  while (done < bytes.length) {
    const n = Math.min(done, bytes.length - done);
    bytes.copyWithin(done, 0, n);
    done += n;
  }
  return new Out(bytes.buffer, 0, length);
}

/** Writes a value (its bytes, `fill`) to the runs of `to`, a tile of copies at a time. */
export function fillRuns(fill: Uint8Array, to: Runs): void {
  const { out, runLength, starts } = to;
  const Out = out.constructor as TypedArrayCtor;
  const n = Math.max(1, Math.min(runLength, Math.floor(TILE_BYTES / Out.BYTES_PER_ELEMENT)));
  const values = filled(Out, fill, n);
  for (let r = 0; r < starts.length; r++) {
    for (let done = 0; done < runLength; done += n) {
      out.set(values.subarray(0, Math.min(n, runLength - done)) as never, starts[r] + done);
    }
  }
}
