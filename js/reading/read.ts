// The package's own read path: `get`, a drop-in for zarr.get. Each array's access (js/reading/access.ts: its layout
// read by the wasm from the exact metadata text of js/metadata/metadata.ts, its reader, and the steps
// in wasm from a chunk's stored bytes to what the reader takes), then one read loop: chunks
// fetched through the array's store (js/reading/fetch.ts), paced and cut into the event loop's turns
// (js/reading/schedule.ts), and decoded by an executor, on this thread or in a pool's workers, which
// has the wasm decode each chunk's selected box a tile at a time and copies each tile once into
// its place in the output (js/kernels/place.ts, shared with the workers).
import { ownSignal } from "../common/abort.js";
import * as zarr from "zarrita";
import { type ArrayAccess, coreAccess, decodedAccess } from "./access.js";
import { itemised, itemsOf, laneSelection } from "../metadata/data-types.js";
import { codedError, errorCode, fromStore, nameChunk, naming, namingChunk } from "../common/errors.js";
import {
  answersOwned, chunkFetcher, chunkKey, chunkLocator, chunkRemote, decodeBytes, type Fetched, MISSING, pathOf, SHARD_INDEX_BYTES, shardCoordsOf, type Table,
} from "./fetch.js";
import { type AnyStore, type Range, rangesOf, type Remote, urlOf, type WorkerFetchInit } from "../stores/store.js";
import { isNode } from "../common/node.js";
import { FLOAT16_MISSING, readByZarrita } from "../metadata/open.js";
import {
  boxInto, fillRuns, placeChunk, type Runs, storedValues, type TileReader, type TypedArray, type TypedArrayCtor, typedArrayFor, unpackAll,
} from "../kernels/place.js";
import type { WorkerPool } from "../pool/pool.js";
import type { Job, Output } from "../pool/protocol.js";
import { type Referenced, referencesOf } from "../stores/reference.js";
import { setValidatorsAside, taggedVersion, validatorsSetAside } from "../stores/validators.js";
import { checkUnchanged } from "../stores/versions.js";
import { checkRun, Coalescer, type MergeLimits, mergeLimitsOf, partOf, type Run } from "../stores/ranges.js";
import { inTurn, limiter, poolOf, progress, untilAborted } from "./schedule.js";
import { allocate, type Box, boxRuns, checkSelection, planSelection, type Plan, regionOf, type Selection } from "./select.js";
import { cOrderStrides } from "../common/strides.js";
import { readInTurn } from "../stores/turns.js";
import { vlenAccess, vlenRead } from "./vlen.js";

export type { Selection } from "./select.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

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
   * How many of the read's requests may be in flight at once (default `DEFAULT_CONCURRENCY`,
   * 64; `Infinity` for no limit): a chunk each, or for a sharded array a shard's index, a whole
   * shard or a merged run of its inner chunks (see `mergeRanges`). A chunk decodes as soon as
   * its bytes arrive, while later ones are still being fetched; each further request starts as
   * one ends (with a pool, as the worker answers for its chunks, so that no more stored bytes
   * wait than this many requests'). Arrays read by zarr.get (e.g. strings of any length) fetch
   * as zarrita does.
   */
  concurrency?: number;
  /**
   * With a pool, over a store with a URL (zarrita's FetchStore): the workers fetch the chunks
   * (and the runs of a shard's chunks) themselves, with the global `fetch`, so that this thread
   * neither receives nor passes on their bytes. Shard indexes, and shards a read wants whole,
   * are still fetched through the store (its own `fetch`, one request a whole shard), and handed
   * to a worker uncopied. `true`, or the options every request of the workers is made with
   * (`WorkerFetchInit`: headers and the like, as plain values). The store's own `fetch` and
   * `overrides` stay on this thread, where a worker cannot reach them: ask for this where a
   * plain fetch of the store's URLs answers as the store does (as for a public bucket), giving
   * any headers here. A store made with `validatingFetch(fetch)` and a fetch of the app's own
   * is seen to be one: its runs are refused (UNSUPPORTED) rather than fetched without it. A
   * response is read as the store reads it: 404 is a missing chunk, 200 or 206 its bytes,
   * anything else STORE_FAILED. Without a pool it is not used; arrays with codecs only
   * zarrita's registry runs are fetched on this thread.
   */
  workerFetch?: boolean | WorkerFetchInit;
  /**
   * How a sharded array's inner chunks are fetched: the ranges of one shard that a read needs
   * go out as merged requests, each spanning gaps of at most `gap` bytes and asking for at most
   * `size` (default `DEFAULT_MERGE`: 1 MiB and 16 MiB, zarr-python's), and are split back.
   * `{ gap: 0 }` merges only ranges that touch; `{ size: 0 }` asks for each chunk alone.
   */
  mergeRanges?: Partial<MergeLimits>;
  /**
   * How many bytes of a sharded array's shard indexes are kept between reads (default
   * `SHARD_INDEX_BYTES`, 16 MiB; the least recently used go first, and the index read last
   * stays): a long pan over many shards holds no more. An index is kept only where the answer
   * it was read from had a validator that tells versions apart (see `validatingFetch`), unless
   * `immutable`; `0` keeps none.
   */
  shardIndexBytes?: number;
  /**
   * The store's shards are never rewritten while this page reads them (a published dataset):
   * shard indexes are kept between reads (up to `shardIndexBytes`) even where no validator
   * tells a shard's versions apart (a store with no `validatingFetch`, a Map, files). Default
   * false: such an index serves the reads that use it at once, and is read again by the next.
   */
  immutable?: boolean;
}

/** Checks a read's options before anything is read (INVALID_ARGUMENT): `concurrency`, and `workerFetch` with a pool. */
export function checkReadOptions(options: GetOptions, arr: Readable): void {
  concurrencyOf(options, DEFAULT_CONCURRENCY);
  mergeLimitsOf(options.mergeRanges);
  shardIndexBytesOf(options);
  immutableOf(options);
  if (options.pool) workerFetchOf(options, arr.store);
}

/**
 * The request options of `options.workerFetch` for a read over `store` (undefined: the
 * workers do not fetch), checked: INVALID_ARGUMENT for a store with no URL, or options that
 * cannot be sent to a worker.
 */
export function workerFetchOf(options: GetOptions, store: unknown): { root: string | URL; init: WorkerFetchInit } | undefined {
  const asked = options.workerFetch as unknown;
  if (asked === undefined || asked === false) return undefined;
  if (asked !== true && (typeof asked !== "object" || asked === null || Array.isArray(asked))) {
    throw codedError("INVALID_ARGUMENT", `options.workerFetch must be a boolean or an object of request options, got ${typeof asked}`);
  }
  const refs = referencesOf(store as object);
  if (refs?.appFetch) {
    throw codedError("UNSUPPORTED", "options.workerFetch: the reference store's requests are made by a fetch of the app's own (its fetch option), which a worker cannot run; read without workerFetch (the pool still decodes)");
  }
  const root = refs ? "" : (store as { url?: unknown }).url;
  if (typeof root !== "string" && !(root instanceof URL)) {
    throw codedError("INVALID_ARGUMENT", "options.workerFetch needs a store with a url (zarrita's FetchStore) or the package's reference store: the workers fetch from it");
  }
  const given = asked === true ? {} : (asked as Record<string, unknown>);
  const init: WorkerFetchInit = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (name === "headers") {
      const pairs: [string, unknown][] = [];
      if (typeof Headers !== "undefined" && value instanceof Headers) value.forEach((v, k) => pairs.push([k, v]));
      else if (typeof value === "object" && value !== null) pairs.push(...Object.entries(value));
      if (typeof value !== "object" || value === null || Array.isArray(value) || pairs.some(([, v]) => typeof v !== "string")) {
        throw codedError("INVALID_ARGUMENT", "options.workerFetch.headers must be a Headers or an object of strings");
      }
      init.headers = Object.fromEntries(pairs) as Record<string, string>;
    } else if (["credentials", "mode", "cache", "referrerPolicy"].includes(name) && typeof value === "string") {
      (init as Record<string, string>)[name] = value;
    } else {
      throw codedError("INVALID_ARGUMENT", `options.workerFetch.${name}: a worker's fetch takes headers, credentials, mode, cache and referrerPolicy (strings), not this`);
    }
  }
  try {
    if (!refs) new URL(String(root));
  } catch {
    throw codedError("INVALID_ARGUMENT", `options.workerFetch: the store's url (${String(root)}) is not an absolute URL, which a worker could fetch`);
  }
  return { root, init };
}

/**
 * How many chunks a read fetches at once by default: enough to keep an HTTP/2 connection's
 * streams busy (servers allow 100 or more) and far more than the six connections a browser
 * opens to an HTTP/1.1 host, while bounding the stored bytes waiting to be decoded.
 */
export const DEFAULT_CONCURRENCY = 64;

/** `options.shardIndexBytes`, checked (INVALID_ARGUMENT), or the default. */
export function shardIndexBytesOf(options: { shardIndexBytes?: number }): number {
  const n = options.shardIndexBytes as unknown;
  if (n === undefined) return SHARD_INDEX_BYTES;
  if (typeof n !== "number" || !(n >= 0) || (!Number.isInteger(n) && n !== Infinity)) {
    throw codedError("INVALID_ARGUMENT", `options.shardIndexBytes must be an integer >= 0 or Infinity, got ${typeof n === "number" ? n : typeof n}`);
  }
  return n;
}

/** `options.immutable`, checked (INVALID_ARGUMENT). */
export function immutableOf(options: { immutable?: boolean }): boolean {
  const given = options.immutable as unknown;
  if (given !== undefined && typeof given !== "boolean") throw codedError("INVALID_ARGUMENT", `options.immutable must be a boolean, got ${typeof given}`);
  return given === true;
}

/** `options.concurrency`, checked (INVALID_ARGUMENT), or the default (`fallback`). */
export function concurrencyOf(options: GetOptions, fallback: number): number {
  const n = options.concurrency as unknown;
  if (n === undefined) return fallback;
  if (typeof n !== "number" || !(n >= 1) || (!Number.isInteger(n) && n !== Infinity)) {
    throw codedError("INVALID_ARGUMENT", `options.concurrency must be an integer >= 1 or Infinity, got ${typeof n === "number" ? n : typeof n}`);
  }
  return n;
}

/** The runs of the output a box's values go to. */
function runsOf(plan: Plan, box: Box, out: TypedArray): Runs {
  const { runLength, runs, runStart } = boxRuns(plan, box);
  const starts = new Float64Array(runs);
  for (let r = 0; r < runs; r++) starts[r] = runStart(r);
  return { out, runLength, starts };
}

/**
 * Where a read's chunks are decoded and placed: on this thread, or by a pool's workers. The
 * read loop (`readInto`) plans, fetches, reports progress, honours the signal and sees to
 * missing chunks; its executor does the work on each chunk.
 */
interface Executor {
  /** How many chunks are fetched at once, unless `options.concurrency` says. */
  concurrency: number;
  /**
   * Whether a chunk keeps its place among those fetched at once until it is placed (the pool:
   * so that no more stored bytes wait than that many chunks'), not only until its bytes are in.
   */
  holdsPlace: boolean;
  /**
   * Decodes a chunk's box from its stored bytes (`owned`: see `Fetched`) into the output; or
   * has a worker fetch them (`remote`; the pool's executor only): resolves false when the
   * chunk is missing (nothing placed).
   */
  place(box: Box, stored: { bytes: Uint8Array; owned: boolean } | { remote: Remote }): Promise<boolean>;
  /**
   * The pool's executors: the job decoding a chunk's box from its part of a run a worker has
   * (see `WorkerPool.runParts`), and what to do with its answer (as `place` resolves).
   */
  prepare?(box: Box): { job: Job; done(values: ArrayBuffer | undefined | null): boolean };
  /** The pool's executors: the pool. */
  pool?: WorkerPool;
  /** Writes the fill value to a missing chunk's box. */
  fill(box: Box): void | Promise<void>;
  /** The output, once every box is in place. */
  finish(): Promise<TypedArray>;
  /** Drops the output of a read that failed or was aborted. */
  abort(): void;
}

/**
 * Reads `selection` of `arr` into a new output of `Out` (or `options.out`): each chunk's box
 * decoded by the reader a tile at a time and copied into place, on this thread or in the pool
 * `options` asks for; missing chunks take `fill` (one value of `Out`'s type, as bytes).
 */
export async function readInto<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  selection: Selection,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
) {
  options.signal?.throwIfAborted();
  return readPlan(arr, a, planSelection(selection, a.layout.shape, a.chunkShape, a.layout.edges), options, Out, fill);
}

/** A limiter of fetches (see `limiter`). */
export type Limiter = ReturnType<typeof limiter>;

/**
 * How `readPlan` reads: `paced`, the limiter its fetches wait in (shared by several reads; by
 * default one of the read's own); `whole`, that the output is one chunk of zarrita's grid
 * (see js/zarrita/extension.ts): where the plan's boxes do not cover it (an edge chunk), the rest
 * holds the fill value, and with a pool where no shared output is asked for or can be had
 * (pages that are not cross-origin isolated) the worker's buffer of values comes back to be
 * the output itself; `coalescer`, where a sharded array's ranges are merged.
 */
export interface ReadHow {
  paced?: Limiter;
  whole?: boolean;
  /** Where a sharded array's ranges are merged (shared by several reads; by default one of the read's own). */
  coalescer?: Coalescer;
  /**
   * Shards fetched whole for several reads together (see js/zarrita/extension.ts): the bytes of the
   * shard holding `box`, if it is one of them (shared: never handed to a worker uncopied).
   */
  shards?: (box: Box) => Promise<Uint8Array | undefined> | undefined;
}

/** Reads the boxes of `plan` (see `readInto`). */
export async function readPlan<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  plan: Plan,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
  how: ReadHow = {},
) {
  const pool = poolOf(options);
  const signal = options.signal;
  signal?.throwIfAborted();
  const asked = pool && workerFetchOf(options, arr.store);
  const back = pool && how.whole && !(options.useSharedArrayBuffer ?? sharedMemory());
  const run = back
    ? inPoolBack(pool, a, plan, options, Out, fill)
    : pool
      ? await inPool(pool, a, plan, options, Out, fill, how.whole)
      : onThisThread(a, plan, options, Out, fill, how.whole);
  const paced = how.paced ?? limiter(concurrencyOf(options, run.concurrency));
  const placed = progress(options, plan.boxes.length);
  const settle = settlerOf(run, placed);
  if (a.index && a.layout.shard) {
    return blamed(a, readOut(run, plan, signal, readShards(arr, a, plan, options, run, paced, how, asked || undefined, settle, placed)));
  }
  const refs = referencesOf(arr.store);
  if (refs) return blamed(a, readOut(run, plan, signal, readReferenced(arr, a, plan, options, run, paced, how, refs, asked || undefined, settle, placed)));
  // A chunk an object: one request each.
  const fetchChunk = (asked && chunkRemote(arr, a, asked.root, asked.init)) || chunkFetcher(arr, a, options);
  const fetched = async (box: Box): Promise<Fetched> => {
    // An aborted read fetches and decodes nothing more.
    signal?.throwIfAborted();
    const chunk = await fetchChunk(box.coords);
    signal?.throwIfAborted();
    return chunk;
  };
  const reads = plan.boxes.map(async (box) => {
    if (run.holdsPlace) return paced(async () => settle(box, await fetched(box)));
    // The fetch's place goes to the next chunk when its bytes are in, before they decode.
    return settle(box, await paced(() => fetched(box)));
  });
  return blamed(a, readOut(run, plan, signal, reads));
}

/** How a read settles each chunk it fetched: placed by `run` (the fill value where it is missing), then counted (`placed`). */
function settlerOf(run: Executor, placed: () => void) {
  return async (box: Box, { key, bytes, owned, remote }: Fetched) => {
    if (remote) await namingChunk(key, async () => (await run.place(box, { remote })) || run.fill(box));
    else if (!bytes) await run.fill(box);
    else await namingChunk(key, () => run.place(box, { bytes, owned: owned === true }));
    placed();
  };
}

/**
 * Reads whole inner chunks of a sharded array on this thread, each into an output of its own:
 * the chunks of zarrita's grid that zarr.get asks for at once (see js/zarrita/extension.ts), read
 * as one read, as `readPlan` reads a plan's boxes (one locator; the shards they cover fetched
 * whole, or their ranges merged; a changed shard read again). `got` takes each chunk's values as
 * they are placed (a new output, or the fill value's). Returns the reads of the boxes' shards
 * (see `ShardReads`): a shard's read fails with the first of its chunks that fails, whose own
 * error it is; `ended` also waits for the read's hold on the shard indexes it used to be let go (an
 * index that may not be kept is read again by the next read only once no read uses it).
 */
export function readWholeChunks<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  boxes: Box[],
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
  how: ReadHow & { paced: Limiter },
  got: (box: Box, values: TypedArray) => void,
): ShardReads {
  const signal = options.signal;
  const outputs = ownOutputs(a, Out, fill);
  const run: Executor = {
    concurrency: DEFAULT_CONCURRENCY,
    holdsPlace: false,
    place: async (box, stored) => {
      signal?.throwIfAborted();
      if (!("bytes" in stored)) throw codedError("INTERNAL", "a chunk to fetch in a worker, with no pool");
      got(box, outputs.decoded(a.readerAt(box.coords).reader, stored.bytes, regionOf(box)));
      return true;
    },
    fill: (box) => {
      signal?.throwIfAborted();
      got(box, outputs.filled());
    },
    finish: () => Promise.reject(codedError("INTERNAL", "chunks read each into its own output have no one output")),
    abort: () => {},
  };
  const placed = progress(options, boxes.length);
  const plan: Plan = { axes: [], shape: [], size: 0, dims: [], boxes };
  return readShards(arr, a, plan, options, run, how.paced, how, undefined, settlerOf(run, placed), placed);
}

/**
 * The reads of a sharded array's shards (`readShards`), one for each shard, in the order of each
 * shard's first box; `boxes`: each shard's boxes, in the same order; `ended`: all settled, and the
 * shard indexes they used let go.
 */
type ShardReads = Promise<void>[] & { ended: Promise<void>; boxes: Box[][] };

/**
 * Whole chunks of an array, each in an output of its own (see `plainChunkReader` and
 * `readWholeChunks`): `filled()`, the fill value's; `decoded(reader, bytes, region)`, a chunk's
 * stored bytes decoded (its bytes -> bytes codecs undone, then its values placed, or where they
 * are its stored bytes copied out of wasm memory once, with nothing awaited between: the view is
 * of wasm memory).
 */
function ownOutputs<R extends TileReader>(a: ArrayAccess<R>, Out: TypedArrayCtor, fill: Uint8Array) {
  const size = a.chunkShape.reduce((n, d) => n * d, 1);
  const starts = Float64Array.of(0);
  const made = () => allocate(size, Out.BYTES_PER_ELEMENT, () => new Out(size));
  return {
    filled(): TypedArray {
      const out = made();
      fillRuns(fill, { out, runLength: size, starts });
      return out;
    },
    decoded(reader: TileReader, bytes: Uint8Array, region: Uint32Array): TypedArray {
      const stored = unpackAll(a.stages, bytes);
      const values = allocate(size, Out.BYTES_PER_ELEMENT, () => storedValues(reader, stored, region, Out));
      if (values) return values;
      const out = made();
      placeChunk(reader, a.memory, stored, region, Out, { out, runLength: size, starts });
      return out;
    },
  };
}

/**
 * `read`, where a chunk of the wrong length is refused (CHUNK_LENGTH) with the codec that
 * refused it named (`error.codec`), as every other refusal of a codec is: the array -> bytes
 * codec (bytes, zfp, numcodecs.zfpy, numcodecs.pcodec, ...), which checks the length of what it
 * receives; or, for bytes a decompressor gave of another size than its frame declared, that
 * decompressor.
 */
export async function blamed<T, R extends TileReader>(a: ArrayAccess<R>, read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (e) {
    throw codecBlamed(a, e);
  }
}

/** The read's result once `reads` (its chunks') are done; an abort lands at once and drops the output. */
async function readOut(run: Executor, plan: Plan, signal: AbortSignal | undefined, reads: Promise<void>[]) {
  try {
    await untilAborted(signal, Promise.all(reads));
  } catch (e) {
    run.abort();
    throw e;
  }
  return { data: await run.finish(), shape: plan.shape, stride: cOrderStrides(plan.shape) };
}

/**
 * Whether zarrita's whole chunks of `arr` (see `wholeChunk`) may be read each into an output of
 * its own, by `plainChunkReader` (or, for a sharded array, `readWholeChunks`): on one thread, on a
 * regular grid that is zarrita's own, and not read through references (whose ranges of one file
 * the read plan merges).
 */
export function onZarritasGrid<R extends TileReader>(arr: Readable, a: ArrayAccess<R>, options: { pool?: unknown }): boolean {
  return !options.pool && !a.layout.edges && a.chunkShape.length === arr.chunks.length && a.chunkShape.every((n, i) => n === arr.chunks[i]) && !referencesOf(arr.store);
}

/** Whether zarrita's chunk at `coords` is wholly inside the array (an edge chunk's rest is the fill value: `readPlan` reads those). */
export function wholeChunk(arr: Readable, coords: number[]): boolean {
  const chunks = arr.chunks;
  if (coords.length !== chunks.length) return false;
  for (let i = 0; i < chunks.length; i++) {
    const c = coords[i];
    if (!Number.isInteger(c) || c < 0 || (c + 1) * chunks[i] > arr.shape[i]) return false;
  }
  return true;
}

/**
 * A reader of the whole chunks of one unsharded array on this thread (see `onZarritasGrid`), made
 * once per array: what does not change from chunk to chunk (the fetcher, the region, the size) is
 * made here, and a chunk costs its one request (through `paced`), a new output and its decode,
 * with nothing wrapped around it but one catch; a missing chunk is the fill value. A refusal names
 * the chunk's key, and for a chunk of the wrong length the codec that refused it (see `blamed`).
 * What `readPlan` does for such a chunk, without its plan, executor and progress: zarr.get over
 * `withWasmCodecs` reads each chunk of such arrays here, where a viewer's tile is a chunk.
 */
export function plainChunkReader<R extends TileReader>(arr: Readable, a: ArrayAccess<R>, Out: TypedArrayCtor, fill: Uint8Array, paced: Limiter) {
  const region = new Uint32Array(a.chunkShape.flatMap((n) => [0, 1, n]));
  const outputs = ownOutputs(a, Out, fill);
  const fetchChunk = chunkFetcher(arr, a, {});
  return async (coords: number[], signal: AbortSignal | undefined): Promise<TypedArray> => {
    signal?.throwIfAborted();
    const { key, bytes } = signal
      ? await untilAborted(signal, paced(() => chunkFetcher(arr, a, { signal })(coords)))
      : await paced(() => fetchChunk(coords));
    signal?.throwIfAborted();
    if (!bytes) return outputs.filled();
    try {
      return outputs.decoded(a.reader, bytes, region);
    } catch (e) {
      throw chunkBlamed(a, key, e);
    }
  };
}

/** `e`, thrown by the decode of the chunk at `key`, named as `namingChunk` and `blamed` name it. */
function chunkBlamed<R extends TileReader>(a: ArrayAccess<R>, key: string, e: unknown): unknown {
  return codecBlamed(a, nameChunk(key, e));
}

/** `e`, where it is a chunk of the wrong length, with the codec that refused it named (see `blamed`). */
export function codecBlamed<R extends TileReader>(a: ArrayAccess<R>, e: unknown): unknown {
  const error = e as { code?: string; codec?: string; message?: string };
  if (error?.code === "CHUNK_LENGTH" && error.codec === undefined) {
    // (A decompressor's output is checked where it is the first bytes -> bytes codec.)
    error.codec = (/after decompression/.test(error.message ?? "") && a.layout.codecs[0]?.name) || (a.layout.serializer?.codec.name ?? "bytes");
  }
  return e;
}

/** An inner chunk a read wants: its range in the shard, and how its read settles it. */
interface Wanted {
  range: Range;
  /** The index of its shard that located it (whose validator the run's answer must carry); none for a referenced file's chunk. */
  table?: Table;
  /** Fetched only to tell that the shard is unchanged (see `readShard`): nothing to place. */
  probe?: boolean;
  /** Places the chunk from its stored bytes (the read's executor). */
  take(bytes: Uint8Array): Promise<void>;
  /** With a pool: the job decoding the chunk in a worker from a run's bytes there, and what to do with its answer. */
  prepare?(): { job: Job; done(values: ArrayBuffer | undefined | null): boolean };
  /** With a pool: settles the chunk once its job answers. */
  answered?(decoded: Promise<boolean>): Promise<void>;
  resolve(): void;
  reject(e: unknown): void;
}

/** Ids of stores and signals, for the coalescer's keys (a run serves the reads of one store and one signal). */
const ids = new WeakMap<object, number>();
let lastId = 0;
const idOf = (o: object | undefined) => {
  if (!o) return 0;
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = ++lastId));
  return id;
};

/** With a pool: the job that decodes `item`'s chunk (`box`, `key`) in a worker from a run's bytes there, and what its answer does (a missing chunk: the fill value). */
function decodedByWorkers(item: Wanted, exec: Executor, box: Box, key: string, placed: () => void): void {
  item.prepare = () => exec.prepare!(box);
  item.answered = async (decoded) => {
    await namingChunk(key, async () => (await decoded) || exec.fill(box));
    placed();
  };
}

/**
 * How a run's chunks are placed: from its bytes (`own`: this read's alone), decoded here or, with
 * a pool, handed whole to one worker uncopied (`handOver`); or by one worker that fetches the run
 * itself (`remote`). Shared by shards' runs and referenced files' runs.
 */
function runDeliverer<R extends TileReader>(exec: Executor, pool: WorkerPool | undefined, a: ArrayAccess<R>, signal: AbortSignal | undefined, handOver: boolean) {
  return async (run: Range, all: Wanted[], source: { bytes: Uint8Array; own: boolean } | { remote: Remote }) => {
    // (A probe's answer is its run's: the bytes came as they should, or a worker's first job
    // answered without STORE_CHANGED.)
    const items = all.filter((item) => !item.probe);
    const probes = all.filter((item) => item.probe);
    if (!("remote" in source)) probes.forEach((p) => p.resolve());
    if ("remote" in source || (handOver && source.own)) {
      const jobs = items.map((item) => item.prepare!());
      const parts = items.map((item) => ({ offset: item.range.offset - run.offset, length: item.range.length }));
      const from = "remote" in source ? source : { stored: source.bytes };
      const answers = pool!.runParts(from, jobs.map((j) => j.job), parts, a.modules, signal);
      const outcomes = items.map((item, i) => item.answered!(answers[i].then((v) => jobs[i].done(v))));
      if (probes.length) void Promise.race(outcomes).then(() => probes.forEach((p) => p.resolve()), (e) => probes.forEach((p) => p.reject(e)));
      await Promise.all(outcomes.map((outcome, i) => outcome.then(items[i].resolve, items[i].reject)));
      return;
    }
    const placing = items.map((item) => item.take(partOf(source.bytes, run, item.range)).then(item.resolve, item.reject));
    if (exec.holdsPlace) await Promise.all(placing);
  };
}

/**
 * The reads of an array whose chunks a reference store places in files (kerchunk references:
 * js/stores/reference.ts): each chunk's range asked of the coalescer, which merges the ranges of
 * one file asked for within one task (every chunk of this read, and other reads' through the
 * same coalescer with the same signal) into runs of one request each, through `paced`; a run
 * fetched through the store's fetch, each chunk placed as its bytes arrive, or with
 * `workerFetch` fetched by one worker, which decodes each chunk as its bytes arrive. Inline
 * chunks are placed as they are; keys the set lacks are missing chunks (the fill value).
 */
function readReferenced<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  plan: Plan,
  options: GetOptions,
  exec: Executor,
  paced: Limiter,
  how: ReadHow,
  refs: Referenced,
  workers: { init: WorkerFetchInit } | undefined,
  settle: (box: Box, fetched: Fetched) => Promise<void>,
  placed: () => void,
): Promise<void>[] {
  const signal = options.signal;
  const store = arr.store as AnyStore;
  const pool = exec.prepare && !a.compressors.length ? exec.pool : undefined;
  const inWorkers = pool && workers;
  const coalescer = how.coalescer ?? new Coalescer(mergeLimitsOf(options.mergeRanges));
  // (A run the workers fetch: each of them decodes its chunks.)
  const deliver = runDeliverer(exec, pool, a, signal, false);
  const registry = (key: string, bytes: Uint8Array) => (a.compressors.length ? namingChunk(key, () => decodeBytes(a.compressors, bytes)) : bytes);
  const fetchRuns = (url: string) => (runs: Run<Wanted>[]) => {
    for (const r of runs) {
      void paced(async () => {
        if (inWorkers) return deliver(r.range, r.items, { remote: { url, range: r.range, init: inWorkers.init, referenced: true } });
        // Each chunk placed as soon as its bytes are in (a run of a whole file's chunks arrives
        // over a link's time: the first decode while the last are on their way).
        const items = [...r.items].sort((x, y) => x.range.offset + x.range.length - (y.range.offset + y.range.length));
        const placing: Promise<void>[] = [];
        let next = 0;
        await refs.streamRange(url, r.range, signal, (buffer, filled) => {
          for (; next < items.length && items[next].range.offset + items[next].range.length - r.range.offset <= filled; next++) {
            const item = items[next];
            placing.push(item.take(partOf(buffer, r.range, item.range)).then(item.resolve, item.reject));
          }
        });
        if (exec.holdsPlace) await Promise.all(placing);
      }).catch((e) => r.items.forEach((item) => item.reject(e)));
    }
  };
  const keyOf = (url: string) => [idOf(store), idOf(signal), inWorkers ? "worker" : pool ? "pool" : "here", url].join("\u0000");
  return plan.boxes.map((box) => {
    const key = chunkKey(a.layout, box.coords);
    const path = pathOf(arr, key);
    return namingChunk(key, async () => {
      signal?.throwIfAborted();
      const ref = refs.at(path);
      if (!ref) return settle(box, { key, bytes: undefined });
      if ("bytes" in ref) return settle(box, { key, bytes: await registry(key, ref.bytes), owned: false });
      if (!ref.range) {
        // A whole file for one chunk: one request of its own.
        const bytes = await paced(() => fromStore(path, () => store.get(path, signal ? { signal: ownSignal(signal) } : undefined)));
        return settle(box, { key, bytes: bytes && (await registry(key, bytes)), owned: false });
      }
      const range = ref.range;
      await new Promise<void>((resolve, reject) => {
        const item: Wanted = { range, resolve, reject, take: async (bytes) => settle(box, { key, bytes: await registry(key, bytes), owned: false }) };
        if (pool) decodedByWorkers(item, exec, box, key, placed);
        coalescer.ask(keyOf(ref.url), item, fetchRuns(ref.url));
      });
    });
  });
}

/**
 * The reads of a sharded array's boxes, a shard at a time: its inner chunks located through
 * its indexes (read through the store and `paced`, kept between reads where a validator tells
 * their shard's versions apart), then fetched: the whole shard in one request where the read
 * wants every chunk of it (`wholeShards`; its index then read from its bytes), otherwise each
 * chunk's range asked of the coalescer, which merges the ranges of one shard asked for within
 * one task (this read's, and other reads' through the same coalescer with the same signal)
 * into runs of one request each, through `paced`. A run is fetched on this thread or, with
 * `workerFetch`, by one worker, which decodes each of its chunks; with a pool, a run (or a
 * whole shard) the store answered in a buffer of its own (zarrita's FetchStore) is handed whole
 * to one worker, uncopied. A run holds its place in `paced` until its bytes are in (with a
 * pool: until its chunks are placed).
 *
 * A kept index is used only while its shard is unchanged: each run's answer must carry the
 * index's validator, and the chunks the index calls missing are filled only once a run of the
 * same shard has answered so (or, where the read fetches none, its index has been read anew).
 * A shard found changed (another validator, or gone) is read again, once, through its index
 * read anew: every box of it, missing ones too.
 */
function readShards<R extends TileReader>(
  arr: Readable,
  a: ArrayAccess<R>,
  plan: Plan,
  options: GetOptions,
  exec: Executor,
  paced: Limiter,
  how: ReadHow,
  remoteRoot: { root: string | URL; init: WorkerFetchInit } | undefined,
  settle: (box: Box, fetched: Fetched) => Promise<void>,
  placed: () => void,
): ShardReads {
  const store = arr.store as AnyStore;
  const signal = options.signal;
  const coalescer = how.coalescer ?? new Coalescer(mergeLimitsOf(options.mergeRanges));
  const opts = signal ? { signal: ownSignal(signal) } : undefined;
  const pool = exec.prepare && !a.compressors.length ? exec.pool : undefined;
  const inWorkers = pool && remoteRoot;
  const ranges = rangesOf(store, true);
  const locate = chunkLocator(arr, a, { paced, cacheBytes: shardIndexBytesOf(options), immutable: options.immutable, ranges });
  // Whether a run's bytes may be handed to a worker uncopied (see `answersOwned`).
  const handOver = pool && answersOwned(store, a);
  const deliver = runDeliverer(exec, pool, a, signal, Boolean(handOver));
  // The validator a shard's answers must carry: its index's (none where the store's
  // validators are set aside, or the index's answer had none).
  const expectOf = (table: Table | undefined) => (table && !validatorsSetAside(store) ? table.version?.tag : undefined);
  const fetchRuns = (path: zarr.AbsolutePath, expect: string | undefined) => (runs: Run<Wanted>[]) => {
    for (const r of runs) {
      void paced(async () => {
        // (A run of probes alone is fetched here.)
        if (inWorkers && r.items.some((item) => !item.probe)) {
          if (r.items.some((item) => item.table?.appFetch)) throw appFetchRefused(path);
          const remote: Remote = { url: urlOf(inWorkers.root, path), range: r.range, init: inWorkers.init, ...(expect ? { expect } : {}) };
          return deliver(r.range, r.items, { remote });
        }
        const answer = await fromStore(path, () => ranges.getRange(path, r.range, opts), r.range);
        if (!answer) throw goneError(path, r.range);
        const bytes = checkRun(answer, path, r.range);
        checkUnchanged(path, expect, taggedVersion(bytes));
        await deliver(r.range, r.items, { bytes, own: true });
      }).catch((e) => r.items.forEach((item) => item.reject(e)));
    }
  };
  // (Ranges located through two versions of a shard's index are not merged.)
  const keyOf = (path: string, validator = "") => [idOf(store), idOf(signal), inWorkers ? "worker" : pool ? "pool" : "here", path, validator].join("\u0000");
  const whole = wholeShards(a, plan, coalescer.limits.size);
  const per = a.index!.perShard;
  const shards = new Map<string, Box[]>();
  for (const box of plan.boxes) {
    const shard = String(shardCoordsOf(per, box.coords));
    const boxes = shards.get(shard);
    if (boxes) boxes.push(box);
    else shards.set(shard, [box]);
  }
  // A shard's boxes: located, then each missing one filled and the others fetched (whole, or
  // by merged ranges). `last`: the shard's index was read anew for these boxes (it changed, or
  // a kept one had to be checked), which settles them as it says; `before`: where it changed,
  // the index kept before and the validator the change was seen with.
  const readShard = async (boxes: Box[], last: boolean, before?: { table: Table | undefined; seen?: string }): Promise<void> => {
    signal?.throwIfAborted();
    // A shard fetched whole (before its index, which is then read from its bytes).
    const given = how.shards?.(boxes[0]);
    const wholeShard = given ?? (whole?.(boxes[0]) ? locate.whole(boxes[0].coords) : undefined);
    const located = await Promise.all(boxes.map((box) => locate(box.coords)));
    signal?.throwIfAborted();
    const path = located[0].path;
    if (before) noticeUnreliable(path, located[0].table, before);
    const waits: Promise<void>[] = [];
    const items: Wanted[] = [];
    const stale: Box[] = [];
    // Boxes a kept index calls missing: filled once the shard is seen unchanged.
    const unsure: Box[] = [];
    let changed: { table: Table | undefined; seen?: string } | undefined;
    for (const [i, box] of boxes.entries()) {
      const at = located[i];
      if (at.missing) {
        if (!last && !locate.fresh(at.table) && expectOf(at.table)) unsure.push(box);
        else waits.push(settle(box, { key: at.key, bytes: undefined }));
        continue;
      }
      const { key, range, table } = at;
      const read = new Promise<void>((resolve, reject) => {
        const item: Wanted = { range, table, resolve, reject, take: (bytes) => settle(box, { key, bytes, owned: false }) };
        if (pool) decodedByWorkers(item, exec, box, key, placed);
        items.push(item);
      });
      waits.push(read.catch((e) => {
        if (last || errorCode(e) !== "STORE_CHANGED") throw e;
        changed ??= { table, seen: (e as { validator?: string }).validator };
        stale.push(box);
      }));
    }
    if (unsure.length && !items.length) {
      // Nothing of the shard to fetch that would tell it unchanged: the smallest range its kept
      // index names is fetched to tell (merged with other reads' runs of the shard asked for in
      // the same task, zarr.get's other chunks say); an index that names none is read anew.
      const table = located[boxes.indexOf(unsure[0])].table!;
      const range = smallestRange(table);
      if (!range) {
        locate.forget(path, table);
        return readShard(unsure, true);
      }
      waits.push(new Promise<void>((resolve, reject) => items.push({ range, table, resolve, reject, probe: true, take: async () => {} })).catch((e) => {
        if (errorCode(e) !== "STORE_CHANGED") throw e;
        changed ??= { table, seen: (e as { validator?: string }).validator };
      }));
    }
    if (items.length && wholeShard) {
      const bytes = await wholeShard;
      signal?.throwIfAborted();
      const end = Math.max(...items.map((item) => item.range.offset + item.range.length));
      if (!bytes || bytes.length < end) {
        await namingChunk(chunkKey(a.layout, shardCoordsOf(per, boxes[0].coords)), () => {
          throw codedError("CHUNK_LENGTH", `its shard index says bytes up to ${end}, but the shard has ${bytes?.length ?? 0}`);
        });
      }
      await deliver({ offset: 0, length: bytes!.length }, items, { bytes: bytes!, own: !given });
    } else {
      const byVersion = new Map<Table, Wanted[]>();
      for (const item of items) byVersion.set(item.table!, [...(byVersion.get(item.table!) ?? []), item]);
      for (const [table, wanted] of byVersion) {
        const expect = expectOf(table);
        const [key, runs] = [keyOf(path, expect), fetchRuns(path, expect)];
        for (const item of wanted) coalescer.ask(key, item, runs);
      }
    }
    await Promise.all(waits);
    if (changed) {
      // The shard changed since its index was read: read again through its index read anew.
      locate.forget(path, changed.table);
      return readShard([...stale, ...unsure], true, changed);
    }
    // The shard's runs answered with the kept index's validator: it is unchanged.
    await Promise.all(unsure.map((box) => settle(box, { key: located[boxes.indexOf(box)].key, bytes: undefined })));
  };
  /**
   * Where a changed shard's index, read anew (`now`), has the same entries as the one kept
   * before, and its answer another validator than the run that said it changed: the server gives
   * a new validator to every answer of the same bytes, and its validators are set aside.
   */
  const noticeUnreliable = (path: string, now: Table | undefined, before: { table: Table | undefined; seen?: string }) => {
    const [old, tag] = [before.table, now?.version?.tag];
    if (!now || !old || !tag || !before.seen || tag === before.seen) return;
    if (now.entries.length === old.entries.length && now.entries.every((v, i) => v === old.entries[i])) setValidatorsAside(store, path);
  };
  const reads = [...shards.values()].map((boxes) => readShard(boxes, false));
  Promise.all(reads).catch(() => locate.abandon());
  const ended = Promise.allSettled(reads).then(() => locate.done());
  return Object.assign(reads, { ended, boxes: [...shards.values()] });
}

/** The smallest range a shard's index names (undefined where it names none). */
function smallestRange(table: Table): Range | undefined {
  let best: Range | undefined;
  for (let i = 0; i < table.entries.length; i += 2) {
    const [offset, length] = [table.entries[i], table.entries[i + 1]];
    if (offset !== MISSING && length > 0 && (!best || length < best.length)) best = { offset, length };
  }
  return best;
}

/** `workerFetch` over a store whose requests an app's own fetch makes (seen through `validatingFetch(fetch)`): no worker can run it. */
function appFetchRefused(path: string): Error {
  return Object.assign(
    codedError(
      "UNSUPPORTED",
      `${path}: options.workerFetch: the store's requests are made by a fetch of the app's own (validatingFetch(fetch)), which a worker cannot run; ` +
        "read without workerFetch (the pool still decodes), or give the headers it adds as workerFetch: { headers }",
    ),
    { key: path },
  );
}

/** A run of a shard that its index named, answered missing (404): the shard is gone since the index was read (STORE_CHANGED: read it again). */
function goneError(path: string, range: Range): Error {
  return Object.assign(codedError("STORE_CHANGED", `${path} is missing (nothing for bytes ${range.offset}-${range.offset + range.length - 1}), though its shard index named the range`), {
    key: path,
    gone: true,
  });
}

/**
 * Which boxes of a sharded read lie in shards it reads whole (one request for the shard, its
 * index read from it: one round trip where index then data take two): those whose every inner
 * chunk inside the array the read needs, where the shard's chunks decode to at most `most`
 * bytes (an upper bound of what is stored, so that the request stays within the merge size).
 * Undefined where no box does (nested shards, a rectilinear grid, ...).
 */
export function wholeShards<R extends TileReader>(a: ArrayAccess<R>, plan: Pick<Plan, "boxes">, most: number): ((box: Box) => boolean) | undefined {
  const per = a.index?.perShard;
  // An inner chunk's decoded size (where a serializer's output has no fixed size: its values').
  const decoded = a.layout.decoded_bytes ?? a.chunkShape.reduce((n, d) => n * d, typedArrayFor(a.layout.data_type)?.BYTES_PER_ELEMENT ?? 8);
  if (!per || a.index!.levels.length !== 1 || a.layout.edges) return undefined;
  const chunks = a.layout.shape.map((n, i) => Math.ceil(n / a.chunkShape[i]));
  const shardOf = (box: Box) => String(shardCoordsOf(per, box.coords));
  const wanted = new Map<string, number>();
  for (const box of plan.boxes) wanted.set(shardOf(box), (wanted.get(shardOf(box)) ?? 0) + 1);
  const whole = new Set<string>();
  for (const [shard, n] of wanted) {
    const at = shard.split(",").map(Number);
    const inside = per.reduce((m, p, i) => m * Math.min(p, chunks[i] - at[i] * p), 1);
    if (n === inside && n * decoded <= most) whole.add(shard);
  }
  return whole.size ? (box) => whole.has(shardOf(box)) : undefined;
}

/**
 * The executor that decodes on this thread, into `options.out` or a new output: each chunk in
 * its turn with the event loop (see `inTurn`), so that a long read leaves a page its frames,
 * input and timers, and an abort lands at once.
 */
function onThisThread<R extends TileReader>(
  a: ArrayAccess<R>,
  plan: Plan,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
  whole = false,
): Executor {
  const out = options.out ? checkOut(options.out, Out, plan.size) : allocate(plan.size, Out.BYTES_PER_ELEMENT, () => new Out(plan.size));
  if (whole) fillPadding(plan, out, fill);
  const signal = options.signal;
  // A chunk of zarrita's grid is decoded at once, not in turn: zarr.get copies its values into
  // its own output as soon as it has them, which costs half as much again when other chunks'
  // decodes (inTurn's next pieces) have come between and pushed them out of the cache.
  const turn = whole ? async <T>(work: () => T) => work() : inTurn;
  return {
    concurrency: DEFAULT_CONCURRENCY,
    holdsPlace: false,
    place: (box, stored) =>
      turn(() => {
        signal?.throwIfAborted();
        if (!("bytes" in stored)) throw codedError("INTERNAL", "a chunk to fetch in a worker, with no pool");
        // Unpacked and placed with nothing awaited between: the view is of wasm memory.
        placeChunk(a.readerAt(box.coords).reader, a.memory, unpackAll(a.stages, stored.bytes), regionOf(box), Out, runsOf(plan, box, out));
        return true;
      }),
    fill: (box) =>
      turn(() => {
        signal?.throwIfAborted();
        fillRuns(fill, runsOf(plan, box, out));
      }),
    finish: async () => out,
    abort: () => {},
  };
}

/**
 * Where the boxes of a chunk's plan leave part of its output uncovered (an edge chunk reaches
 * past the array), fills all of `out` with the fill value first, as zarrita gives it.
 */
function fillPadding(plan: Plan, out: TypedArray, fill: Uint8Array): void {
  const covered = plan.boxes.reduce((n, box) => n + box.pieces.reduce((m, p) => m * p.count, 1), 0);
  if (covered < plan.size) fillRuns(fill, { out, runLength: plan.size, starts: Float64Array.of(0) });
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

/** Whether a SharedArrayBuffer output can be shared with workers here. */
function sharedMemory(): boolean {
  if (typeof SharedArrayBuffer === "undefined") return false;
  return (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated ?? isNode;
}

/**
 * The executor that decodes in a pool's workers: the main thread fetches each chunk and sends
 * a copy of its stored bytes, which the worker unpacks (compress module) and decodes (codecs
 * only zarrita's registry has are undone here first). With a shared output the workers write
 * each box into place. Without one, a worker assembles the output (see
 * `WorkerPool.assemble`) and transfers it here whole: the main thread passes boxes on but
 * copies no values.
 */
async function inPool<R extends TileReader>(
  pool: WorkerPool,
  a: ArrayAccess<R>,
  plan: Plan,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
  whole = false,
): Promise<Executor> {
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
  if (whole && out) fillPadding(plan, out, fill);
  const assembly = buffer ? undefined : await pool.assemble(Out.name, plan.size, fill);
  const signal = options.signal;
  const prepare = (box: Box, source?: { bytes: Uint8Array; owned: boolean } | { remote: Remote }) => {
    const { runLength, starts } = runsOf(plan, box, out ?? new Out(0));
    const output: Output = buffer ? { to: "shared", buffer, offset: at } : { to: "assembly", read: assembly!.read };
    return {
      job: decodeJob(a, box, source, Out, output, runLength, starts),
      done(values: ArrayBuffer | undefined | null) {
        if (values === null) return false;
        if (values) assembly!.place(values, runLength, starts);
        return true;
      },
    };
  };
  return {
    concurrency: Math.max(DEFAULT_CONCURRENCY, await pool.ahead()),
    holdsPlace: true,
    pool,
    prepare: (box) => prepare(box),
    async place(box, source) {
      const { job, done } = prepare(box, source);
      return done(await pool.run(job, a.modules, signal));
    },
    fill(box) {
      const { runLength, starts } = runsOf(plan, box, out ?? new Out(0));
      if (out) fillRuns(fill, { out, runLength, starts });
      else assembly!.fill(runLength, starts);
    },
    async finish() {
      const data = out ?? new Out(await assembly!.finish(), 0, plan.size);
      if (!given || buffer) return data;
      given.set(data as never);
      return given;
    },
    abort: () => assembly?.abort(),
  };
}

/**
 * A pool job decoding `box` of a chunk, its stored bytes or where a worker fetches them given
 * (none: a part of a run, see `WorkerPool.runParts`), its values going to `output`.
 */
function decodeJob<R extends TileReader>(
  a: ArrayAccess<R>,
  box: Box,
  source: { bytes: Uint8Array; owned: boolean } | { remote: Remote } | undefined,
  Out: TypedArrayCtor,
  output: Output,
  runLength: number,
  starts: Float64Array,
): Job {
  return {
    kind: a.kind,
    key: a.key,
    text: a.text,
    chunkShape: a.readerAt(box.coords).chunkShape,
    stages: a.stages.map((s) => s.spec),
    ...(!source ? { owned: false } : "bytes" in source ? { stored: source.bytes, owned: source.owned } : { remote: source.remote, owned: false }),
    region: regionOf(box),
    type: Out.name,
    output,
    runLength,
    starts,
  };
}

/**
 * The pool's executor for one chunk of zarrita's grid read with no shared output (see
 * `ReadHow.whole`): each box's values come back from its worker in a buffer of their own.
 * A box that is the whole output (the usual chunk) is handed back as it came, with nothing
 * copied here; the boxes of an edge chunk or of several inner chunks are copied into place.
 */
function inPoolBack<R extends TileReader>(
  pool: WorkerPool,
  a: ArrayAccess<R>,
  plan: Plan,
  options: GetOptions,
  Out: TypedArrayCtor,
  fill: Uint8Array,
): Executor {
  let whole: TypedArray | undefined;
  let out: TypedArray | undefined;
  const output = () => {
    if (!out) {
      out = allocate(plan.size, Out.BYTES_PER_ELEMENT, () => new Out(plan.size));
      fillPadding(plan, out, fill);
    }
    return out;
  };
  const prepare = (box: Box, source?: { bytes: Uint8Array; owned: boolean } | { remote: Remote }) => {
    const { runLength, starts } = runsOf(plan, box, new Out(0));
    return {
      job: decodeJob(a, box, source, Out, { to: "back" }, runLength, starts),
      done(values: ArrayBuffer | undefined | null) {
        if (values === null) return false;
        const n = runLength * starts.length;
        if (n === plan.size) whole = new Out(values!, 0, n);
        else boxInto(new Out(values!, 0, n), { out: output(), runLength, starts });
        return true;
      },
    };
  };
  return {
    concurrency: DEFAULT_CONCURRENCY,
    holdsPlace: true,
    pool,
    prepare: (box) => prepare(box),
    async place(box, source) {
      const { job, done } = prepare(box, source);
      return done(await pool.run(job, a.modules, options.signal));
    },
    fill(box) {
      const { runLength, starts } = runsOf(plan, box, new Out(0));
      fillRuns(fill, { out: output(), runLength, starts });
    },
    finish: async () => whole ?? output(),
    abort: () => {},
  };
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
export function result<T extends { data: TypedArray; shape: number[] }>(chunk: T): T | number | bigint {
  return chunk.shape.length === 0 ? (chunk.data[0] as number | bigint) : chunk;
}

/**
 * `zarr.get(arr, selection)`, on the package's own path: the same result (the array's typed
 * array, shape, C-order stride; a single value when every dimension is an integer), decoded
 * straight into the output, with zarr.json's 64-bit integers exact. Arrays whose codecs this
 * path does not run (e.g. strings of any length, float16 where there is no Float16Array) are
 * read by `zarr.get` instead.
 */
export function get<
  D extends zarr.DataType,
  Store extends zarr.Readable,
  Sel extends (number | zarr.Slice | null)[] = (number | zarr.Slice | null)[],
>(arr: zarr.Array<D, Store>, selection?: Sel | null, options?: GetOptions): Promise<GetResult<D, Sel>>;
export function get(arr: Readable, selection: Selection = null, options: GetOptions = {}) {
  return naming(arr.path, () => inReadTurn(arr, options, () => getNow(arr, selection, options)), options.signal);
}

/**
 * Runs a read of `arr` in its turn with the array's writes (js/stores/turns.ts), taken now, at the
 * call: after the writes called before it. An abort while it waits lands at once.
 */
export function inReadTurn<T>(arr: Readable, options: GetOptions, work: () => Promise<T>): Promise<T> {
  return untilAborted(options.signal, readInTurn(arr.store, arr.path, work));
}

/** `get`, once its turn has come (see `inReadTurn`). */
export async function getNow(arr: Readable, selection: Selection, options: GetOptions) {
  checkSelection(selection, arr.shape.length);
  checkReadOptions(options, arr);
  const a = await coreAccess(arr);
  if (typeof a === "string" && (arr.dtype as string) === "float16") {
    // zarrita would fail inside (it makes a Float16Array the engine does not have).
    throw codedError("UNSUPPORTED_DATA_TYPE", FLOAT16_MISSING);
  }
  if (typeof a === "string") {
    // Strings and bytes of any length, on their own path (js/reading/vlen.ts).
    const v = await vlenAccess(arr);
    if (v) return vlenRead(arr, v, selection, options);
  }
  if (typeof a === "string") {
    const Out = typedArrayFor(arr.dtype);
    return intoOut(arr, selection, options, Out, () => readByZarrita(arr, (twin) => zarr.get(twin, selection, options as never)));
  }
  const Out = typedArrayFor(a.layout.data_type)!;
  const fill = Uint8Array.from(a.layout.fill_bytes);
  const info = a.layout.array_data_type;
  if (itemised(info)) {
    // Items that are not one number each (bool, complex, datetime64, strings, fixed bytes):
    // read as their lanes, handed back as the type's items.
    const lanes = laneSelection(selection, arr.shape.length, a.layout.lanes);
    return itemsOf(info, await readInto(arr, a, lanes, options, Out, fill), selection, arr.shape.length);
  }
  return result(await readInto(arr, a, selection, options, Out, fill));
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
  const plan = planSelection(selection, arr.shape, arr.chunks);
  if (plan.size === 0 && plan.shape.length > 0) {
    // No elements: the empty result, as this package's own path gives it (zarrita 0.7 throws).
    if (options.out) checkOut(options.out, Out ?? Float64Array, 0);
    options.onProgress?.(0, 0);
    const data = Out ? new Out(0) : [];
    return { data, shape: plan.shape, stride: cOrderStrides(plan.shape) } as T;
  }
  if (!options.out && !options.onProgress) return read();
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
