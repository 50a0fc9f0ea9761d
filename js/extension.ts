// The package's read path for apps that call zarrita themselves: a zarrita store extension whose
// array extension answers `getChunk`, the one call zarr.get makes per chunk, with the chunk read
// on this package's path (exact metadata, its codecs, shard indexes kept, the pool).
import * as zarr from "zarrita";
import { itemised } from "./data-types.js";
import { codedError, naming } from "./errors.js";
import { metadataText, ownRead } from "./metadata.js";
import { codecNames, requireRegistered } from "./open.js";
import { chunkLocator, shardCoordsOf, type WorkerFetchInit } from "./fetch.js";
import { type TileReader, typedArrayFor } from "./place.js";
import type { WorkerPool } from "./pool.js";
import { type ArrayAccess, coreAccess, rangesFor } from "./access.js";
import {
  concurrencyOf, DEFAULT_CONCURRENCY, inReadTurn, type Limiter, plainChunk, readChunk, readPlan, shardIndexBytesOf, wholeShards,
  workerFetchOf,
} from "./read.js";
import { limiter, poolOf } from "./schedule.js";
import { Coalescer, type MergeLimits, mergeLimitsOf } from "./ranges.js";
import { type Box, planSelection, type Plan } from "./select.js";
import { cOrderStrides } from "./strides.js";

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
}

/**
 * Whether the package reads `arr`'s chunks as zarrita's `getChunk` hands them on: its access,
 * or why not (zarrita's own getChunk then reads them).
 */
async function chunkAccess(arr: Readable): Promise<ArrayAccess<TileReader> | string> {
  const a = await coreAccess(arr);
  if (typeof a === "string") return a;
  if (!rangesFor(arr, a)) return "a sharded array over a store without getRange";
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
  if (!Array.isArray(coords) || coords.length !== chunks.length || !coords.every((c) => Number.isInteger(c) && c >= 0)) {
    throw codedError("INVALID_SELECTION", `chunk coordinates must be ${chunks.length} integers >= 0, got ${JSON.stringify(coords)}`);
  }
  const selection = chunks.map((n, i) => zarr.slice(coords[i] * n, Math.min((coords[i] + 1) * n, arr.shape[i])));
  const plan = planSelection(selection, a.layout.shape, a.chunkShape, a.layout.edges);
  const size = chunks.reduce((n, c) => n * c, 1);
  return { ...plan, shape: chunks.slice(), size, dims: plan.dims.map((d, i) => ({ ...d, count: chunks[i] })) };
}

/** The array extension: `getChunk` on the package's path where it reads the array. */
function chunksHere(options: WasmCodecsOptions, paced: Limiter, coalescer: Coalescer) {
  return zarr.defineArrayExtension(async (arr) => {
    const a = await naming(arr.path, () => chunkAccess(arr));
    if (typeof a === "string") {
      // zarrita's own getChunk, after the check that its registry has every codec: zarrita
      // loads them all at once and, past the first it lacks, leaves the others' failures
      // unhandled.
      const names = codecNames((await metadataText(arr))?.text);
      return {
        getChunk(...args: Parameters<typeof arr.getChunk>) {
          return naming(arr.path, async () => {
            requireRegistered(names);
            return arr.getChunk(...args);
          });
        },
      };
    }
    const Out = typedArrayFor(a.layout.data_type)!;
    const fill = Uint8Array.from(a.layout.fill_bytes);
    const together = shardsTogether(arr, a, options, paced, coalescer);
    return {
      getChunk(coords: number[], request?: { signal?: AbortSignal }, opts?: { useSharedArrayBuffer?: boolean }) {
        const signal = request?.signal;
        const read = { ...options, signal, useSharedArrayBuffer: opts?.useSharedArrayBuffer };
        // A whole chunk on one thread: its own short path (a viewer's tile is one).
        const plain = plainChunk(arr, a, coords, read);
        let plan: Plan | undefined;
        try {
          if (!plain) plan = chunkPlan(arr, a, coords);
        } catch (e) {
          return naming(arr.path, () => Promise.reject(e));
        }
        const shards = plan && together?.(plan, signal);
        return naming(arr.path, () => inReadTurn(arr, read, async () => {
          const { data } = plan
            ? await readPlan(arr, a, plan, read, Out, fill, { paced, whole: true, coalescer, shards })
            : { data: await readChunk(arr, a, coords, read, Out, fill, paced) };
          // (The data is the array's typed array, which zarrita's Chunk type names by data type.)
          return { data, shape: arr.chunks.slice(), stride: cOrderStrides(arr.chunks) } as zarr.Chunk<zarr.DataType>;
        }), signal);
      },
    };
  });
}

/**
 * The chunks zarr.get asks for at once (in one task, with one signal), seen together: where
 * they cover whole shards (see `wholeShards`), each such shard is fetched in one request for
 * all of them, its index read from its bytes. Returns, for a chunk's plan, the function that
 * gives the shard bytes of its boxes (decided in a microtask, after zarr.get's loop has asked
 * for every chunk and before any of their reads begins); undefined where the array is not
 * sharded or the workers fetch.
 */
function shardsTogether(arr: Readable, a: ArrayAccess<TileReader>, options: WasmCodecsOptions, paced: Limiter, coalescer: Coalescer) {
  if (!a.index || (options.pool && options.workerFetch)) return undefined;
  const per = a.index.perShard;
  type Batch = { plans: Plan[]; shards?: (box: Box) => Promise<Uint8Array | undefined> | undefined };
  const open = new Map<AbortSignal | undefined, Batch>();
  const decide = (batch: Batch) => {
    const whole = wholeShards(a, { boxes: batch.plans.flatMap((p) => p.boxes) }, coalescer.limits.size);
    if (!whole) return;
    const locate = chunkLocator(arr, a, { paced, cacheBytes: shardIndexBytesOf(options) });
    const fetched = new Map<string, Promise<Uint8Array | undefined> | undefined>();
    batch.shards = (box) => {
      if (!whole(box)) return undefined;
      const shard = String(shardCoordsOf(per, box.coords));
      if (!fetched.has(shard)) fetched.set(shard, locate.whole!(box.coords));
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
export const withWasmCodecs = zarr.defineStoreExtension((store, options: WasmCodecsOptions | undefined) => {
  const given = options ?? {};
  if (typeof given !== "object") throw codedError("INVALID_ARGUMENT", `withWasmCodecs: options must be an object, got ${typeof given}`);
  const paced = limiter(concurrencyOf(given, DEFAULT_CONCURRENCY));
  const coalescer = new Coalescer(mergeLimitsOf(given.mergeRanges));
  shardIndexBytesOf(given);
  if (given.pool) {
    poolOf(given);
    workerFetchOf(given, store);
  }
  // The metadata files zarr.open just read, which the package's own read of the array's exact
  // metadata text (right after, as the array extension starts) takes instead of asking the
  // store again: one round trip fewer to open an array. Taken once; a few at most are kept.
  const opened = new Map<string, Uint8Array>();
  return {
    async get(key: zarr.AbsolutePath, request?: unknown) {
      if (ownRead(request) && opened.has(key)) {
        const bytes = opened.get(key)!;
        opened.delete(key);
        return bytes;
      }
      const bytes = await store.get(key, request as never);
      if (bytes && METADATA.test(key) && !ownRead(request)) {
        if (ARRAY_METADATA.test(key)) await refuseWhatZarritaCannotOpen(key, bytes);
        opened.set(key, bytes);
        for (const old of opened.keys()) if (opened.size > OPENED_KEPT) opened.delete(old);
      }
      return bytes;
    },
    arrayExtensions: [chunksHere({ pool: given.pool, workerFetch: given.workerFetch, shardIndexBytes: given.shardIndexBytes }, paced, coalescer)],
  };
});

/** The metadata files zarr.open reads of an array. */
const ARRAY_METADATA = /(^|\/)(zarr\.json|\.zarray)$/;
/** Those and a v2 array's attributes: what the package's own read of an array's metadata text asks for. */
const METADATA = /(^|\/)(zarr\.json|\.zarray|\.zattrs)$/;
/** How many metadata files zarr.open read are kept for the package's own read (see `withWasmCodecs`). */
const OPENED_KEPT = 16;

/**
 * Refuses (UNSUPPORTED, at zarr.open) the metadata of an array that zarrita cannot open or whose
 * chunk grid its indexing cannot represent, saying to read it with the package's `open` and
 * `get` (which read it through this store too): without this, such an array fails at open
 * with zarrita's uncoded error, or later, inside zarr.get. zarrita itself is asked, on a store
 * holding this file alone.
 */
async function refuseWhatZarritaCannotOpen(key: string, bytes: Uint8Array): Promise<void> {
  const file = key.slice(key.lastIndexOf("/") + 1);
  const path = key.slice(0, key.length - file.length) || "/";
  let meta: { node_type?: unknown; chunk_grid?: { name?: unknown } };
  try {
    meta = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return; // zarr.open's own error says what is wrong with it.
  }
  if (file === "zarr.json" && meta?.node_type !== "array") return;
  let why: string | undefined;
  if (file === "zarr.json" && meta.chunk_grid?.name !== "regular") {
    why = `its chunk grid (${JSON.stringify(meta.chunk_grid?.name)}) is not one zarrita's indexing has`;
  } else {
    // (With getRange: zarrita refuses a sharded array over a store without it.)
    const alone = zarr.root({ get: async (k: string) => (k === `/${file}` ? bytes : undefined), getRange: async () => undefined });
    try {
      await (file === "zarr.json" ? zarr.open.v3(alone, { kind: "array" }) : zarr.open.v2(alone, { kind: "array" }));
    } catch (e) {
      why = `zarrita cannot open it (${e instanceof Error ? e.message : String(e)})`;
    }
  }
  if (why) {
    throw codedError("UNSUPPORTED", `array "${path.length > 1 ? path.slice(0, -1) : path}": ${why}; read it with this package's open() and get(), which read it through the same store`);
  }
}
