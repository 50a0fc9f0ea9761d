// Fetching a read's chunks: each (inner) chunk's stored bytes by its store key, through the
// shard's index for a sharded array (the indexes kept between reads), with the bytes -> bytes
// codecs only zarrita's registry has undone here.
import * as zarr from "zarrita";
import { codedError, fromStore, namingChunk } from "./errors.js";
import { loadWasm } from "./load.js";

/** A store as the read calls it: zarrita's Readable, with `getRange` where it has one. */
export type AnyStore = zarr.Readable & {
  get(key: zarr.AbsolutePath, opts?: unknown): Promise<Uint8Array | undefined>;
  getRange?: (key: zarr.AbsolutePath, range: { offset: number; length: number } | { suffixLength: number }, opts?: unknown) => Promise<Uint8Array | undefined>;
};

/** A bytes -> bytes codec from zarrita's registry. */
export interface BytesCodec {
  encode?(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  decode(bytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
  computeEncodedSize?(size: number): number;
}

/** What fetching reads of an array's layout (the wasm's, see `Layout` in read.ts). */
interface KeyLayout {
  key_v2: boolean;
  key_separator: string;
  /** Lanes an item: above 1, the last coordinate is the lanes' (one chunk of them), not in keys. */
  lanes?: number;
  shard: null | { index_endian: "little" | "big"; index_at_end: boolean };
}

/** What fetching needs of an array's access (see `ArrayAccess` in read.ts). */
export interface ChunkSource {
  layout: KeyLayout;
  /** Bytes -> bytes codecs undone here, through zarrita's registry. */
  compressors: BytesCodec[];
  index: null | { unpack(raw: Uint8Array): Promise<Uint8Array>; bytes: number; perShard: number[] };
}

/** The store key of a chunk (or shard) at `coords`, relative to the array. */
export function chunkKey(layout: Omit<KeyLayout, "shard">, coords: number[]): string {
  const sep = layout.key_separator;
  if ((layout.lanes ?? 1) > 1) coords = coords.slice(0, -1);
  if (layout.key_v2) return coords.length ? coords.join(sep) : "0";
  return ["c", ...coords].join(sep);
}

/**
 * A bytes -> bytes codec from zarrita's registry (one the compress module does not run here),
 * built from the representation it receives: the data type and chunk shape the array -> bytes
 * codec lays out, as zarr-python hands them; undefined when the registry lacks it.
 */
export async function registryCodec(
  meta: { name: string; configuration?: unknown },
  list: unknown[],
  dataType: string,
  shape: number[],
): Promise<Required<Pick<BytesCodec, "encode">> & BytesCodec | undefined> {
  const load = zarr.registry.get(meta.name);
  if (!load) return undefined;
  const Codec = (await load()) as unknown as { fromConfig(c: unknown, m: unknown): Required<Pick<BytesCodec, "encode">> & BytesCodec };
  return Codec.fromConfig(meta.configuration, { dataType, shape, codecs: list, fillValue: 0 });
}

/** Undoes bytes -> bytes codecs, last first. */
export async function decodeBytes(codecs: BytesCodec[], bytes: Uint8Array): Promise<Uint8Array> {
  for (let i = codecs.length - 1; i >= 0; i--) bytes = await codecs[i].decode(bytes);
  return bytes;
}

/** A missing inner chunk's offset in the core's reading of a shard index (2^64 - 1, as a number). */
const MISSING = 2 ** 64;

/** One chunk's stored bytes and its store key (for errors). */
export interface Fetched {
  key: string;
  bytes: Uint8Array | undefined;
  /** Whether the bytes are this read's alone (a fetch response's), to hand over uncopied. */
  owned?: boolean;
}

/**
 * A function giving each (inner) chunk's stored bytes: as they are where the compress module
 * undoes their codecs (here or in a worker), after the registry's codecs otherwise.
 */
export function chunkFetcher(arr: zarr.Location<zarr.Readable>, a: ChunkSource, options: { signal?: AbortSignal }) {
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
          // Read by the core (entries checked, each exact as a number).
          const chunks = index.perShard.reduce((x, y) => x * y, 1);
          return (await loadWasm()).shardIndexEntries(bytes, shard.index_endian === "little", chunks);
        }),
      );
      indexes.set(path, table, index.bytes);
    }
    const entries = await table;
    let position = 0;
    for (let i = 0; i < coords.length; i++) position = position * index.perShard[i] + (coords[i] % index.perShard[i]);
    const key = `${shardKey} (inner chunk ${position})`;
    if (!entries) return { key, bytes: undefined };
    const [offset, length] = [entries[2 * position], entries[2 * position + 1]];
    if (offset === MISSING) return { key, bytes: undefined };
    const bytes = await fromStore(path, () => getRange(path, { offset, length }, opts));
    if (!bytes || bytes.length !== length) {
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
  #entries = new Map<string, { table: Promise<Float64Array | undefined>; bytes: number }>();
  #bytes = 0;

  get(path: string): Promise<Float64Array | undefined> | undefined {
    const entry = this.#entries.get(path);
    if (!entry) return undefined;
    // The most recently used last.
    this.#entries.delete(path);
    this.#entries.set(path, entry);
    return entry.table;
  }

  set(path: string, table: Promise<Float64Array | undefined>, bytes: number): void {
    const entry = { table, bytes };
    this.#entries.set(path, entry);
    this.#bytes += bytes;
    table.catch(() => this.#drop(path, entry));
    for (const [oldest, e] of this.#entries) {
      if (this.#bytes <= SHARD_INDEX_BYTES || oldest === path) break;
      this.#drop(oldest, e);
    }
  }

  /** Forgets a shard's index (its shard was written). */
  forget(path: string): void {
    const entry = this.#entries.get(path);
    if (entry) this.#drop(path, entry);
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

/** Forgets the indexes kept of shards that were just written (`paths`, store keys). */
export function forgetShardIndexes(arr: object, paths: Iterable<string>): void {
  const indexes = shardIndexes.get(arr);
  if (indexes) for (const path of paths) indexes.forget(path);
}
