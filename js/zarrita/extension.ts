// The package's read path for apps that call zarrita themselves: a zarrita store extension whose
// array extension answers `getChunk`, the one call zarr.get makes per chunk, with the chunk read
// on this package's path (exact metadata, its codecs, shard indexes kept, the pool).
import * as zarr from "zarrita";
import { itemised } from "../metadata/data-types.js";
import { codedError, fromStore, named, naming, withFields } from "../common/errors.js";
import { metadataText, ownRead } from "../metadata/metadata.js";
import { checkMetadata, codecNames, open, requireRegistered, zarritaContext } from "../metadata/open.js";
import { chunkLocator, shardCoordsOf } from "../reading/fetch.js";
import { type AnyStore, rangesOf, type WorkerFetchInit } from "../stores/store.js";
import { byThePackage, noteArray, readsTogether } from "../stores/turns.js";
import { type TileReader, type TypedArray, type TypedArrayCtor, typedArrayFor } from "../kernels/place.js";
import type { WorkerPool } from "../pool/pool.js";
import { type ArrayAccess, coreAccess } from "../reading/access.js";
import {
  codecBlamed, concurrencyOf, DEFAULT_CONCURRENCY, getNow, immutableOf, inReadTurn, type Limiter, onZarritasGrid, plainChunkReader, readPlan,
  readWholeChunks, shardIndexBytesOf, wholeChunk, wholeShards, workerFetchOf,
} from "../reading/read.js";
import { vlenAccess } from "../reading/vlen.js";
import { limiter, poolOf, untilAborted } from "../reading/schedule.js";
import { Coalescer, type MergeLimits, mergeLimitsOf } from "../stores/ranges.js";
import { type Box, planSelection, type Plan } from "../reading/select.js";
import { cOrderStrides } from "../common/strides.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/** Options of `withWasmCodecs`: `get`'s, where they apply to a chunk. */
export interface WasmCodecsOptions {
  /**
   * Decode chunks in a pool of workers: a `WorkerPool`, or `true` for the shared default pool
   * (`defaultPool()`). Each chunk is decoded in a worker and its values handed back without a
   * copy (or written into a SharedArrayBuffer when zarr.get asks for `useSharedArrayBuffer`).
   */
  pool?: WorkerPool | boolean;
  /** With a pool, over a store with a URL: the workers fetch the chunks themselves (see `GetOptions.workerFetch`). */
  workerFetch?: boolean | WorkerFetchInit;
  /**
   * How many chunks of the store's arrays are fetched at once, across every read through the
   * wrapped store (default 64; `Infinity` for no limit): zarr.get asks for all of a read's
   * chunks at once.
   */
  concurrency?: number;
  /**
   * How a sharded array's inner chunks are fetched (see `GetOptions.mergeRanges`): zarr.get
   * asks for all of a read's chunks at once, and those of one shard go out as merged requests.
   */
  mergeRanges?: Partial<MergeLimits>;
  /** How many bytes of each sharded array's shard indexes are kept between reads (see `GetOptions.shardIndexBytes`). */
  shardIndexBytes?: number;
  /** The store's shards are never rewritten while it is read: indexes kept without validators (see `GetOptions.immutable`). */
  immutable?: boolean;
}

/**
 * Whether the package reads `arr`'s chunks as zarrita's `getChunk` hands them on: its access,
 * or why not (zarrita's own getChunk then reads them).
 */
async function chunkAccess(arr: Readable): Promise<ArrayAccess<TileReader> | string> {
  const a = await coreAccess(arr);
  if (typeof a === "string") return a;
  // Items that are not one number (bool, complex, strings, ...) come as zarrita's own classes.
  if (itemised(a.layout.array_data_type)) return `${a.layout.array_data_type.name} items are zarrita's`;
  if (typedArrayFor(a.layout.data_type) !== typedArrayFor(arr.dtype)) return `zarrita reads ${arr.dtype}, not ${a.layout.data_type}`;
  return a;
}

/**
 * The plan of one chunk of zarrita's grid (`arr.chunks`, the inner chunks of a sharded array):
 * the part of it inside the array, read on the package's grid (which may be finer: nested
 * shards), into an output of the whole chunk's shape (an edge chunk's rest is the fill value).
 */
function chunkPlan(arr: Readable, a: ArrayAccess<TileReader>, coords: number[]): Plan {
  const chunks = arr.chunks;
  const selection = chunkSelection(arr, coords);
  const plan = planSelection(selection, a.layout.shape, a.chunkShape, a.layout.edges);
  const size = chunks.reduce((n, c) => n * c, 1);
  return { ...plan, shape: chunks.slice(), size, dims: plan.dims.map((d, i) => ({ ...d, count: chunks[i] })) };
}

/**
 * The array extension: `getChunk` on the package's path where it reads the array. Opening an
 * array refuses what no reader may read, with the module its reads load anyway (as `open`
 * does: the packing module for an array its attributes pack, which `getDecoded` reads, unless
 * the core module is loaded); how zarrita's chunks are read (and the core module that reads
 * them) is settled at the first `getChunk`, so that an array only `getDecoded` reads downloads
 * no more than through `open`.
 */
function chunksHere(options: WasmCodecsOptions, paced: Limiter, coalescer: Coalescer) {
  return zarr.defineArrayExtension(async (arr) => {
    noteArray(arr.store, arr.path);
    await naming(arr.path, () => checkMetadata(arr));
    let reader: ChunkReader | undefined;
    let settling: Promise<ChunkReader> | undefined;
    // (A failure, a module that could not load say, is not kept: the next getChunk tries again.)
    const settled = () =>
      (settling ??= naming(arr.path, () => chunkReader(arr, options, paced, coalescer)).then(
        (r) => (reader = r),
        (e) => {
          settling = undefined;
          throw e;
        },
      ));
    return {
      ...codedEncode(arr),
      getChunk(coords: number[], request?: { signal?: AbortSignal }, opts?: { useSharedArrayBuffer?: boolean }) {
        if (reader) return reader(coords, request, opts);
        return settled().then((r) => r(coords, request, opts));
      },
    };
  });
}

/** zarrita's `getChunk`, as the array extension gives it. */
type ChunkReader = (coords: number[], request?: { signal?: AbortSignal }, opts?: { useSharedArrayBuffer?: boolean }) => Promise<zarr.Chunk<zarr.DataType>>;

/** How zarrita's chunks of `arr` are read: on the package's path, as items the package reads, or by zarrita. */
async function chunkReader(arr: Readable, options: WasmCodecsOptions, paced: Limiter, coalescer: Coalescer): Promise<ChunkReader> {
  const a = await chunkAccess(arr);
  if (typeof a === "string") {
    const names = codecNames((await metadataText(arr))?.text);
    if (!names.every((name) => zarr.registry.get(name)) && (await packageReads(arr))) {
      // Codecs zarrita lacks (numcodecs' vlen-bytes, categorize, ...) of an array the
      // package reads (strings and bytes of any length, fixed-length strings): each chunk
      // read on the package's path and handed back in zarrita's own item form.
      return (coords, request) => naming(arr.path, () => chunkItems(arr, coords, request?.signal));
    }
    // zarrita's own getChunk, after the check that its registry has every codec: zarrita
    // loads them all at once and, past the first it lacks, leaves the others' failures
    // unhandled.
    return (...args) =>
      naming(arr.path, async () => {
        requireRegistered(names);
        return arr.getChunk(...args);
      });
  }
  const Out = typedArrayFor(a.layout.data_type)!;
  const fill = Uint8Array.from(a.layout.fill_bytes);
  const together = shardsTogether(arr, a, options, paced, coalescer);
  // In the array's turn with its writes: a zarr.get's chunks, asked for in one loop, take one.
  const inTurn = readsTogether(arr.store, arr.path);
  // A whole chunk on one thread: its own short path (a viewer's tile is one); a sharded array's,
  // with the others zarr.get asks for at once.
  const plain = !onZarritasGrid(arr, a, options)
    ? undefined
    : a.index
      ? shardedChunks(arr, a, options, paced, coalescer, Out, fill)
      : plainChunkReader(arr, a, Out, fill, paced);
  const shape = arr.chunks.slice();
  const stride = cOrderStrides(shape);
  // (The data is the array's typed array, which zarrita's Chunk type names by data type.)
  const chunkOf = (data: TypedArray) => ({ data, shape: shape.slice(), stride: stride.slice() }) as zarr.Chunk<zarr.DataType>;
  return (coords, request, opts) => {
    const signal = request?.signal;
    if (plain && wholeChunk(arr, coords)) {
      const read = inTurn(() => plain(coords, signal)).then(chunkOf);
      return signal ? naming(arr.path, () => untilAborted(signal, read), signal) : read.catch((e) => named(arr.path, e));
    }
    const read = { ...options, signal, useSharedArrayBuffer: opts?.useSharedArrayBuffer };
    let plan: Plan;
    try {
      plan = chunkPlan(arr, a, coords);
    } catch (e) {
      return naming(arr.path, () => Promise.reject(e));
    }
    const shards = together?.(plan, signal);
    return naming(arr.path, () => untilAborted(signal, inTurn(async () => {
      const { data } = await readPlan(arr, a, plan, read, Out, fill, { paced, whole: true, coalescer, shards });
      return chunkOf(data);
    })), signal);
  };
}

/**
 * For a sharded array read on this thread, whose inner chunks are zarrita's (see
 * `onZarritasGrid`): its whole chunks (wholly inside the array) that zarr.get asks for at once
 * (in one task, with one signal), read as one read (see `readWholeChunks`): one locator, and the
 * shards they cover fetched whole. Returns the function giving a chunk's values.
 */
function shardedChunks(arr: Readable, a: ArrayAccess<TileReader>, options: WasmCodecsOptions, paced: Limiter, coalescer: Coalescer, Out: TypedArrayCtor, fill: Uint8Array) {
  type Asked = { box: Box; resolve(values: TypedArray): void; reject(e: unknown): void; values?: TypedArray; failed?: boolean };
  const how = { paced, whole: true, coalescer };
  const open = new Map<AbortSignal | undefined, Asked[]>();
  // Reads whose chunks have all been handed on but which still hold the shard indexes they used
  // (see `readWholeChunks`): a read asked for now, which may be the next zarr.get made once such
  // a read's values arrived, starts once they let go (an index that may not be kept is read
  // again), not beside them.
  const finishing = new Set<Promise<void>>();
  const go = (asked: Asked[], signal: AbortSignal | undefined) => {
    if (finishing.size) return void Promise.all(finishing).then(() => go(asked, signal));
    const placed = new Map(asked.map((x) => [x.box, x]));
    let reads: ReturnType<typeof readWholeChunks>;
    let settled = 0;
    const settle = () => {
      if (++settled === asked.length && reads) {
        const ended = reads.ended;
        finishing.add(ended);
        void ended.then(() => finishing.delete(ended));
      }
    };
    // Each chunk handed on as it is placed (zarr.get copies it into its output while it is warm).
    const got = (box: Box, values: TypedArray) => {
      const x = placed.get(box)!;
      x.values = values;
      x.resolve(values);
      settle();
    };
    try {
      reads = readWholeChunks(arr, a, asked.map((x) => x.box), { signal, shardIndexBytes: options.shardIndexBytes, immutable: options.immutable }, Out, fill, how, got);
    } catch (e) {
      return asked.forEach((x) => x.reject(e));
    }
    // A shard's read fails with the first of its chunks that failed (named): its chunks not
    // placed by then fail with it.
    reads.forEach((read, i) =>
      read.catch((e) => {
        for (const x of reads.boxes[i].map((box) => placed.get(box)!)) {
          if (x.values || x.failed) continue;
          x.failed = true;
          x.reject(codecBlamed(a, e));
          settle();
        }
      }),
    );
  };
  return (coords: number[], signal: AbortSignal | undefined) =>
    new Promise<TypedArray>((resolve, reject) => {
      let batch = open.get(signal);
      if (!batch) {
        const opened: Asked[] = (batch = []);
        open.set(signal, opened);
        queueMicrotask(() => {
          open.delete(signal);
          go(opened, signal);
        });
      }
      const pieces = coords.map((c, i) => ({ chunk: c, first: 0, step: 1, count: a.chunkShape[i], outStart: 0 }));
      batch.push({ box: { coords, pieces }, resolve, reject });
    });
}

/** The part inside the array of zarrita's chunk at `coords`, as a selection; INVALID_SELECTION for coordinates that name no chunk. */
function chunkSelection(arr: Readable, coords: number[]): zarr.Slice[] {
  const chunks = arr.chunks;
  if (!Array.isArray(coords) || coords.length !== chunks.length || !coords.every((c) => Number.isInteger(c) && c >= 0)) {
    throw codedError("INVALID_SELECTION", `chunk coordinates must be ${chunks.length} integers >= 0, got ${JSON.stringify(coords)}`);
  }
  return chunks.map((n, i) => zarr.slice(coords[i] * n, Math.min((coords[i] + 1) * n, arr.shape[i])));
}

/** Whether the package's own `get` reads `arr` (strings and bytes of any length, or items of its lanes). */
async function packageReads(arr: Readable): Promise<boolean> {
  if (await vlenAccess(arr)) return true;
  const a = await coreAccess(arr);
  return typeof a !== "string";
}

/**
 * zarrita's chunk at `coords` of an array whose codecs zarrita lacks, read by the package's own
 * `get` (in its turn with writes) as zarrita gives a chunk: its items in zarrita's form (an
 * Array of strings or Uint8Arrays, or zarrita's item classes), of the whole chunk's shape (an
 * edge chunk's rest is the fill value), C order.
 */
async function chunkItems(arr: Readable, coords: number[], signal: AbortSignal | undefined) {
  const chunks = arr.chunks;
  const selection = chunkSelection(arr, coords);
  const inside = chunks.map((n, i) => Math.max(0, Math.min(n, arr.shape[i] - coords[i] * n)));
  const read = (await inReadTurn(arr, { signal }, () => getNow(arr, selection, { signal }))) as { data: Items };
  const stride = cOrderStrides(chunks);
  const shape = chunks.slice();
  if (inside.every((n, i) => n === chunks[i])) return { data: read.data, shape, stride } as unknown as zarr.Chunk<zarr.DataType>;
  // An edge chunk: its part inside the array placed in a chunk of the fill value.
  const size = chunks.reduce((m, n) => m * n, 1);
  const given = read.data;
  const out: Items = Array.isArray(given) ? new Array(size).fill(arr.fillValue ?? "") : "chars" in given ? new (given.constructor as new (c: number, n: number) => Items)((given as { chars: number }).chars, size) : new (given.constructor as new (n: number) => Items)(size);
  if (!Array.isArray(out) && arr.fillValue !== null) for (let i = 0; i < size; i++) out.set(i, arr.fillValue);
  // (zarrita's item classes copied as their bytes: their `set` of a string loses characters
  // beyond the Basic Multilingual Plane.)
  const bytesOf = (x: Items) => (Array.isArray(x) ? undefined : new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const [from, to] = [bytesOf(given), bytesOf(out)];
  const width = Array.isArray(given) ? 0 : given.BYTES_PER_ELEMENT;
  const within = cOrderStrides(inside);
  const count = inside.reduce((m, n) => m * n, 1);
  for (let e = 0; e < count; e++) {
    let at = 0;
    for (let d = 0; d < inside.length; d++) at += (Math.floor(e / within[d]) % inside[d]) * stride[d];
    if (Array.isArray(out)) out[at] = (given as unknown[])[e];
    else to!.set(from!.subarray(e * width, (e + 1) * width), at * width);
  }
  return { data: out, shape, stride } as unknown as zarr.Chunk<zarr.DataType>;
}

/** A chunk's items as zarrita gives them: an Array, or one of its item classes (get, set). */
type Items = unknown[] | {
  get(i: number): unknown;
  set(i: number, v: unknown): void;
  length: number;
  buffer: ArrayBufferLike;
  byteOffset: number;
  byteLength: number;
  BYTES_PER_ELEMENT: number;
};

/**
 * The array's zarrita context with its codec's `encode` failures coded: zarr.set over the
 * wrapped store encodes through zarrita's registry, which without `registerCodecs()` cannot
 * encode this package's codecs (zarrita's own scale_offset and cast_value only decode). Such a
 * failure is UNSUPPORTED, naming `set` and `registerCodecs()`. (None found, nothing is changed.)
 */
function codedEncode(arr: Readable): Record<symbol, unknown> {
  const found = zarritaContext(arr);
  const codec = found?.context.codec;
  if (!found || typeof codec?.encode !== "function") return {};
  const encode = codec.encode;
  const coded = Object.create(codec, {
    encode: {
      value: async (chunk: unknown) => {
        try {
          return await encode.call(codec, chunk);
        } catch (e) {
          const said = e instanceof Error ? e.message : String(e);
          const name = /via codec "?([^"\s]+)/.exec(said)?.[1];
          throw withFields(
            codedError(
              "UNSUPPORTED",
              `array "${arr.path}": zarr.set cannot encode this array's chunks through zarrita's registry (${said}): ` +
                "write it with this package's set(arr, selection, value), which writes arrays opened over withWasmCodecs too, " +
                "or call registerCodecs() (from zarr-wasm-codecs) before opening arrays, so that zarrita's registry has this package's codecs",
              e,
            ),
            { path: arr.path, ...(name ? { codec: name } : {}) },
          );
        }
      },
    },
  });
  return { [found.key]: Object.create(found.context, { codec: { value: coded, enumerable: true } }) };
}

/**
 * The chunks zarr.get asks for at once (in one task, with one signal), seen together: where
 * they cover whole shards (see `wholeShards`), each such shard is fetched in one request for
 * all of them, its index read from its bytes. Returns, for a chunk's plan, the function that
 * gives the shard bytes of its boxes (decided in a microtask, after zarr.get's loop has asked
 * for every chunk and before any of their reads begins); undefined where the array is not
 * sharded. (With `workerFetch` too: a whole shard comes through the store in one request.)
 */
function shardsTogether(arr: Readable, a: ArrayAccess<TileReader>, options: WasmCodecsOptions, paced: Limiter, coalescer: Coalescer) {
  if (!a.index) return undefined;
  const per = a.index.perShard;
  type Batch = { plans: Plan[]; shards?: (box: Box) => Promise<Uint8Array | undefined> | undefined };
  const open = new Map<AbortSignal | undefined, Batch>();
  const decide = (batch: Batch) => {
    const whole = wholeShards(a, { boxes: batch.plans.flatMap((p) => p.boxes) }, coalescer.limits.size);
    if (!whole) return;
    const locate = chunkLocator(arr, a, { paced, cacheBytes: shardIndexBytesOf(options), immutable: options.immutable });
    const fetched = new Map<string, Promise<Uint8Array | undefined> | undefined>();
    batch.shards = (box) => {
      if (!whole(box)) return undefined;
      const shard = String(shardCoordsOf(per, box.coords));
      if (!fetched.has(shard)) fetched.set(shard, locate.whole(box.coords));
      return fetched.get(shard);
    };
  };
  return (plan: Plan, signal: AbortSignal | undefined) => {
    let batch = open.get(signal);
    if (!batch) {
      const opened: Batch = (batch = { plans: [] });
      open.set(signal, opened);
      queueMicrotask(() => {
        open.delete(signal);
        decide(opened);
      });
    }
    batch.plans.push(plan);
    const mine = batch;
    return (box: Box) => mine.shards?.(box);
  };
}

/**
 * A zarrita store extension: every array `zarr.open` opens through the wrapped store has its
 * chunks read by this package (`zarr.get`, `arr.getChunk` and what an app builds on them), with
 * its exact metadata, its codecs (no `registerCodecs()` needed), shard indexes kept between
 * reads and, with `pool`, decoded in workers. Usable alone, `withWasmCodecs(store, options)`,
 * or in `zarr.extendStore(store, ...)` beside zarrita's other extensions, in either order.
 * Options are checked here (INVALID_ARGUMENT). Arrays the package does not read (strings of any
 * length, bool and other items zarrita gives as its own classes) keep zarrita's `getChunk`.
 */
export const withWasmCodecs = defineStoreExtension()((store, options: WasmCodecsOptions | undefined) => {
  const given = options ?? {};
  if (typeof given !== "object") throw codedError("INVALID_ARGUMENT", `withWasmCodecs: options must be an object, got ${typeof given}`);
  const paced = limiter(concurrencyOf(given, DEFAULT_CONCURRENCY), false);
  const coalescer = new Coalescer(mergeLimitsOf(given.mergeRanges));
  shardIndexBytesOf(given);
  immutableOf(given);
  if (given.pool) {
    poolOf(given);
    workerFetchOf(given, store);
  }
  // The metadata files zarr.open just read, which the package's own read of the array's exact
  // metadata text (right after, as the array extension starts) takes instead of asking the
  // store again: one round trip fewer to open an array. Taken once; a few at most are kept.
  const opened = new Map<string, Uint8Array>();
  // Whether a read that did not come through the package has been reported (see `warnIgnored`).
  let warned = false;
  // (A store without getRange, a Map say, gets one that cuts the range out of the whole object:
  // zarrita reads sharded arrays only through getRange.)
  const ranges = rangesOf(store as AnyStore);
  return {
    getRange(key: zarr.AbsolutePath, range: Parameters<NonNullable<AnyStore["getRange"]>>[1], request?: unknown) {
      if (!warned && !byThePackage(store, key)) warned = warnIgnored(key);
      return fromStore(key, () => ranges.getRange(key, range, request));
    },
    async get(key: zarr.AbsolutePath, request?: unknown) {
      if (ownRead(request) && opened.has(key)) {
        const bytes = opened.get(key)!;
        opened.delete(key);
        return bytes;
      }
      if (!warned && !NODE_FILES.test(key) && !byThePackage(store, key)) warned = warnIgnored(key);
      // A store's failure is STORE_FAILED naming the key (and, for a node's metadata, its path).
      const asked = () => fromStore(key, () => store.get(key, request as never));
      const bytes = METADATA.test(key) ? await naming(nodeOf(key), asked) : await asked();
      if (bytes && METADATA.test(key) && !ownRead(request)) {
        await refuseWhatZarritaCannotOpen(store as AnyStore, key, bytes);
        opened.set(key, bytes);
        for (const old of opened.keys()) if (opened.size > OPENED_KEPT) opened.delete(old);
      }
      return bytes;
    },
    arrayExtensions: [
      chunksHere({ pool: given.pool, workerFetch: given.workerFetch, shardIndexBytes: given.shardIndexBytes, immutable: given.immutable }, paced, coalescer),
    ],
  };
});

/** The files of a node (not of its chunks) that any zarrita reads, and consolidated metadata's. */
const NODE_FILES = /(^|\/)(zarr\.json|\.zarray|\.zattrs|\.zgroup|\.zmetadata)$/;

/**
 * Says, once for a wrapped store, that a chunk of it was read straight from the store, not
 * through the package: the zarrita that opened the array has no store extensions (a zarrita
 * before 0.7, such as one an app bundles for itself: ome-zarr.js's 0.5), so the wrap does nothing
 * for its arrays, and their codecs are that zarrita's. Returns true (reported).
 */
function warnIgnored(key: string): boolean {
  console.warn(
    `zarr-wasm-codecs: ${key} was read straight from a store wrapped by withWasmCodecs: the zarrita that opened its array ` +
      "has no store extensions (a zarrita older than 0.7, such as one an app bundles for itself), so the wrap does nothing for it " +
      'and that zarrita\'s own codecs decode it. Make the app use the zarrita you installed (npm: "overrides": { "zarrita": "$zarrita" } ' +
      "in your package.json), or, where the app exports its zarrita's registry, call registerCodecs(thatRegistry). See docs/apps.md.",
  );
  return true;
}

/** The path of the node whose metadata file `key` is. */
const nodeOf = (key: string) => key.replace(/\/[^/]*$/, "") || "/";

/**
 * zarrita's `defineStoreExtension`; in a zarrita without store extensions (before 0.7), one whose
 * stores are refused when they are made (UNSUPPORTED), so that the package still loads there
 * (its registry codecs, `open`, `get` and the rest work with zarrita 0.6).
 */
function defineStoreExtension(): typeof zarr.defineStoreExtension {
  const given = (zarr as { defineStoreExtension?: typeof zarr.defineStoreExtension }).defineStoreExtension;
  if (given) return given;
  const refuse = () => {
    throw codedError(
      "UNSUPPORTED",
      "withWasmCodecs needs zarrita 0.7 or later (its store extensions), and the zarrita installed has none: upgrade zarrita, " +
        "or read with this package's open() and get(), or call registerCodecs() before zarr.open",
    );
  };
  return (() => refuse) as never;
}

/** Those and a v2 array's attributes: what the package's own read of an array's metadata text asks for. */
const METADATA = /(^|\/)(zarr\.json|\.zarray|\.zattrs)$/;
/** How many metadata files zarr.open read are kept for the package's own read (see `withWasmCodecs`). */
const OPENED_KEPT = 16;

/**
 * Refuses at zarr.open, as the package's `open` would, a metadata file (zarr.json, `.zarray` or
 * `.zattrs`, as zarr.open read it from `store`) that zarrita cannot read or open, so that either
 * way of opening says the same: a file that is not JSON is INVALID_METADATA (naming the file);
 * an array zarrita cannot open, or whose chunk grid its indexing cannot represent, is refused
 * with `open`'s own error where `open` refuses it too (UNKNOWN_DATA_TYPE for a data type nobody
 * registered, UNSUPPORTED for a chunk grid it does not read, ...), and otherwise with
 * UNSUPPORTED, saying to read it with the package's `open` and `get` (which read it through
 * the same store) where they do. Each carries the array's `path`. Without this, such an array
 * fails at open with zarrita's uncoded error, or later, inside zarr.get. zarrita itself is
 * asked, on a store holding this file alone; `open`, only then, over `store` with this file as
 * zarr.open read it.
 */
async function refuseWhatZarritaCannotOpen(store: AnyStore, key: string, bytes: Uint8Array): Promise<void> {
  const file = key.slice(key.lastIndexOf("/") + 1);
  const dir = key.slice(0, key.length - file.length) || "/";
  const path = dir.length > 1 ? dir.slice(0, -1) : dir;
  let meta: { node_type?: unknown; chunk_grid?: { name?: unknown } };
  try {
    meta = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    // (zarr.open's own error for it has no code, and names neither the node nor the file.)
    throw withFields(codedError("INVALID_METADATA", `"${path}": invalid metadata: ${file} is not valid JSON: ${messageOf(e)}`, e), { path });
  }
  if (file === ".zattrs" || (file === "zarr.json" && meta?.node_type !== "array")) return;
  let why: string | undefined;
  let cause: unknown;
  if (file === "zarr.json" && meta.chunk_grid?.name !== "regular") {
    why = `its chunk grid (${JSON.stringify(meta.chunk_grid?.name)}) is not one zarrita's indexing has`;
  } else {
    // (With getRange: zarrita refuses a sharded array over a store without it.)
    const alone = zarr.root({ get: async (k: string) => (k === `/${file}` ? bytes : undefined), getRange: async () => undefined });
    try {
      await (file === "zarr.json" ? zarr.open.v3(alone, { kind: "array" }) : zarr.open.v2(alone, { kind: "array" }));
    } catch (e) {
      why = `zarrita cannot open it (${messageOf(e)})`;
      cause = e;
    }
  }
  if (!why) return;
  // What the package's open says of it: its error (with its code and `path`) where it refuses
  // it too. (The file as zarr.open read it; a v2 array's zarr.json, which zarr.open did not
  // read, as absent; its other files from the store.)
  const served = {
    get: (k: zarr.AbsolutePath, options?: unknown) =>
      k === key ? bytes : file === ".zarray" && k === `${dir}zarr.json` ? undefined : store.get(k, options),
  };
  const arr = await open(new zarr.Location(served as AnyStore, path as zarr.AbsolutePath));
  // Its advice only where the package's get reads it.
  const reads = await packageReads(arr as Readable).catch(() => false);
  const advice = reads
    ? "; read it with this package's open() and get(), which read it through the same store"
    : ", and this package's get() does not read it either";
  throw withFields(codedError("UNSUPPORTED", `array "${path}": ${why}${advice}`, cause), { path });
}

/** An error's message (or what was thrown, as text). */
const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));
