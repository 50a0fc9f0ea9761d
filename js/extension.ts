// The package's read path for apps that call zarrita themselves: a zarrita store extension whose
// array extension answers `getChunk`, the one call zarr.get makes per chunk, with the chunk read
// on this package's path (exact metadata, its codecs, shard indexes kept, the pool).
import * as zarr from "zarrita";
import { itemised } from "./data-types.js";
import { codedError, naming } from "./errors.js";
import { metadataText, ownRead } from "./metadata.js";
import { codecNames, requireRegistered } from "./open.js";
import type { WorkerFetchInit } from "./fetch.js";
import { type TileReader, typedArrayFor } from "./place.js";
import type { WorkerPool } from "./pool.js";
import { type ArrayAccess, coreAccess, rangesFor } from "./access.js";
import { concurrencyOf, DEFAULT_CONCURRENCY, inReadTurn, type Limiter, readPlan, workerFetchOf } from "./read.js";
import { limiter, poolOf } from "./schedule.js";
import { planSelection, type Plan } from "./select.js";
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
function chunksHere(options: WasmCodecsOptions, paced: Limiter) {
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
    return {
      getChunk(coords: number[], request?: { signal?: AbortSignal }, opts?: { useSharedArrayBuffer?: boolean }) {
        const signal = request?.signal;
        const read = { ...options, signal, useSharedArrayBuffer: opts?.useSharedArrayBuffer };
        return naming(arr.path, () => inReadTurn(arr, read, async () => {
          const { data } = await readPlan(arr, a, chunkPlan(arr, a, coords), read, Out, fill, { paced, whole: true });
          // (The data is the array's typed array, which zarrita's Chunk type names by data type.)
          return { data, shape: arr.chunks.slice(), stride: cOrderStrides(arr.chunks) } as zarr.Chunk<zarr.DataType>;
        }), signal);
      },
    };
  });
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
  if (given.pool) {
    poolOf(given);
    workerFetchOf(given, store);
  }
  return {
    async get(key: zarr.AbsolutePath, request?: unknown) {
      const bytes = await store.get(key, request as never);
      if (bytes && ARRAY_METADATA.test(key) && !ownRead(request)) await refuseWhatZarritaCannotOpen(key, bytes);
      return bytes;
    },
    arrayExtensions: [chunksHere({ pool: given.pool, workerFetch: given.workerFetch }, paced)],
  };
});

/** The metadata files zarr.open reads of an array. */
const ARRAY_METADATA = /(^|\/)(zarr\.json|\.zarray)$/;

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
