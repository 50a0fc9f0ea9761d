// Encoding one chunk for a write: the one code that both the main thread (one-thread writes)
// and the pool's workers run. A chunk arrives as the values of the selection's box in it (the
// input sliced once, in the box's C order); where the box is the whole chunk those values
// are the chunk, otherwise they are laid over the chunk's old values (decoded from its
// stored bytes) or over the fill value. The core's chain encodes the values (or, where the
// stored bytes are the values themselves, they are taken as they are), and the steps'
// modules encode them in turn: a whole-chunk serializer, then the compress module's codecs.
import { codedError } from "../common/errors.js";
import { cOrderStrides } from "../common/strides.js";
import { type Decompressor, filled, type TypedArray, type TypedArrayCtor, unpackAll } from "./place.js";

/** What the core's ArrayReader offers a write: a whole chunk encoded, and decoded for a merge. */
export interface ChunkCoder {
  encodeChunk(values: TypedArray): Uint8Array;
  decodeChunk(stored: Uint8Array): unknown;
  /** Whether values are stored as they are (`bytes` alone, little endian, no array -> array codec). */
  readonly writtenAsValues: boolean;
}

/**
 * A chain's steps in wasm after the core's: `decode`, a read's (decode order: the compress
 * module's, then a serializer's), for chunks a write merges into; `encode`, in encode order:
 * a serializer's encoder, then the encode module's Compressor for the bytes -> bytes codecs.
 */
export interface ChainSteps {
  decode: readonly { decoder: Decompressor; memory: WebAssembly.Memory }[];
  encode: readonly { encode(raw: Uint8Array): Uint8Array }[];
}

/** The encode module's class: a chain of bytes -> bytes codecs (v3 metadata as JSON, encode order) and the item size they receive. */
export type CompressorClass = new (codecs: string, itemSize: number) => { encode(raw: Uint8Array): Uint8Array; free(): void };

/** One chunk to encode. */
export interface ChunkInput {
  /** The box's values, in its C order (of the array's typed array). */
  values: TypedArray;
  /** The box in the chunk: (first, step, count) per dimension; absent: the whole chunk. */
  region?: Uint32Array;
  /** The chunk's stored bytes before this write, where the box is not the whole chunk. */
  stored?: Uint8Array;
  /** One value's bytes: what a new chunk holds outside the box. */
  fill: Uint8Array;
  /**
   * Where the grid's chunks have several shapes (rectilinear): the chunk's coordinates, its
   * shape, and its reader's shape (JSON, see `ArrayAccess.readerAt`).
   */
  chunk?: { coords: number[]; shape: number[]; readerShape?: string };
}

/**
 * A chunk's stored bytes, every codec of its chain applied; `order`, a `transpose`'s (stored
 * dimension i is the chunk's dimension order[i]), has the values laid out in that order first.
 */
export function encodeChunk(coder: ChunkCoder, steps: ChainSteps, chunkShape: number[], input: ChunkInput, order?: readonly number[] | null): Uint8Array {
  let chunk = input.region ? merged(coder, steps, chunkShape, input, order) : input.values;
  if (order) {
    const strides = cOrderStrides(chunkShape);
    chunk = gather(chunk, order.map((d) => chunkShape[d]), order.map((d) => strides[d]));
  }
  let bytes = coder.writtenAsValues ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : coder.encodeChunk(chunk);
  for (const step of steps.encode) bytes = step.encode(bytes);
  return bytes;
}

/** The chunk's values with the box laid over its old values, or over the fill value. */
function merged(coder: ChunkCoder, steps: ChainSteps, chunkShape: number[], input: ChunkInput, order?: readonly number[] | null): TypedArray {
  const Ctor = input.values.constructor as TypedArrayCtor;
  let chunk = input.stored
    ? (coder.decodeChunk(unpackAll(steps.decode, input.stored)) as TypedArray)
    : filled(Ctor, input.fill, chunkShape.reduce((a, b) => a * b, 1));
  if (order && input.stored) {
    // The old values, stored in the transpose's order, back in the chunk's C order.
    const stored = cOrderStrides(order.map((d) => chunkShape[d]));
    const strides = chunkShape.map((_, d) => stored[order.indexOf(d)]);
    chunk = gather(chunk, chunkShape, strides);
  }
  layBox(chunk, chunkShape, input.region!, input.values);
  return chunk;
}

/**
 * A new array of `dims` (C order) whose element at index i is `src`'s at the sum of
 * i_k * strides[k]: a permutation of `src`'s elements when `strides` are a permutation of C
 * strides.
 */
function gather(src: TypedArray, dims: readonly number[], strides: readonly number[]): TypedArray {
  const out = new (src.constructor as TypedArrayCtor)(src.length);
  const n = dims.length;
  if (n === 0 || out.length === 0) {
    out.set(src as never);
    return out;
  }
  const [width, step] = [dims[n - 1], strides[n - 1]];
  const index = new Array<number>(n - 1).fill(0);
  for (let dst = 0; dst < out.length; dst += width) {
    let from = 0;
    for (let k = 0; k < n - 1; k++) from += index[k] * strides[k];
    for (let i = 0; i < width; i++) out[dst + i] = src[from + i * step];
    for (let k = n - 2; k >= 0; k--) {
      if (++index[k] < dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

/** Copies a box's values (its C order) into `chunk` at `region`, row by row. */
export function layBox(chunk: TypedArray, chunkShape: number[], region: Uint32Array, values: TypedArray): void {
  const n = chunkShape.length;
  if (n === 0) {
    chunk[0] = values[0];
    return;
  }
  const strides = cOrderStrides(chunkShape);
  const last = n - 1;
  const [first, step, count] = [region[3 * last], region[3 * last + 1], region[3 * last + 2]];
  const index = new Array<number>(last).fill(0);
  for (let src = 0; src < values.length; src += count) {
    let dst = first;
    for (let k = 0; k < last; k++) dst += (region[3 * k] + index[k] * region[3 * k + 1]) * strides[k];
    if (step === 1) {
      chunk.set(values.subarray(src, src + count) as never, dst);
    } else {
      for (let i = 0; i < count; i++) chunk[dst + i * step] = values[src + i];
    }
    for (let k = last - 1; k >= 0; k--) {
      if (++index[k] < region[3 * k + 2]) break;
      index[k] = 0;
    }
  }
}

/** How a shard lays out its index: its byte order, where it goes, its stored size. */
export interface ShardLayout {
  little: boolean;
  atEnd: boolean;
  indexBytes: number;
}

/** A missing inner chunk's offset and length in a shard index (2^64 - 1). */
const MISSING = 0xffff_ffff_ffff_ffffn;

/**
 * A shard's bytes: its inner chunks in order (undefined: missing), and the index of where each
 * lies, through `encodeIndex` (its bytes -> bytes codecs, if any).
 */
export function layShard(parts: readonly (Uint8Array | undefined)[], shard: ShardLayout, encodeIndex?: (raw: Uint8Array) => Uint8Array): Uint8Array {
  const entries = new DataView(new ArrayBuffer(16 * parts.length));
  let at = shard.atEnd ? 0 : shard.indexBytes;
  // (A loop over every place: `parts` may have holes, which forEach would skip.)
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p];
    entries.setBigUint64(16 * p, part ? BigInt(at) : MISSING, shard.little);
    entries.setBigUint64(16 * p + 8, part ? BigInt(part.length) : MISSING, shard.little);
    at += part?.length ?? 0;
  }
  let index: Uint8Array = new Uint8Array(entries.buffer);
  if (encodeIndex) index = encodeIndex(index);
  if (index.length !== shard.indexBytes) {
    throw codedError("INTERNAL", `the shard index encoded to ${index.length} bytes, not ${shard.indexBytes}`);
  }
  const out = new Uint8Array(at + (shard.atEnd ? index.length : 0));
  let position = shard.atEnd ? 0 : index.length;
  if (!shard.atEnd) out.set(index, 0);
  for (const part of parts) {
    if (!part) continue;
    out.set(part, position);
    position += part.length;
  }
  if (shard.atEnd) out.set(index, position);
  return out;
}
