// Fetching a read's chunks: each (inner) chunk's stored bytes by its store key, through the
// shard's index for a sharded array (the indexes kept between reads), with the bytes -> bytes
// codecs only zarrita's registry has undone here.
import { ownSignal } from "../common/abort.js";
import * as zarr from "zarrita";
import { codedError, fromStore, namingChunk, viaCodec } from "../common/errors.js";
import { baseStore } from "../stores/identity.js";
import { loadModule } from "../loading/load.js";
import { type AnyStore, type Range, type Ranges, rangesOf, type Remote, urlOf, type WorkerFetchInit } from "../stores/store.js";
import { taggedVersion, throughAppFetch, validatorsSetAside } from "../stores/validators.js";
import type { Version } from "../stores/versions.js";

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
  shard: null | object;
}

/** One level of a shard's indexes (nested sharding has several, outermost first). */
export interface IndexLevel {
  /** How many chunks it lists along each dimension, in the chunk above it (the shard, for the first). */
  per: number[];
  /** The dimensions in the order its index lists its chunks (C order over them), where a transpose turned the shard; null for the array's. */
  order: number[] | null;
  little: boolean;
  atEnd: boolean;
  /** Its stored size. */
  bytes: number;
  /** Its bytes, its codecs undone. */
  unpack(raw: Uint8Array): Promise<Uint8Array>;
}

/** A sharded array's indexes: inner chunks per shard along each dimension, and the levels. */
export interface ShardIndex {
  perShard: number[];
  levels: IndexLevel[];
}

/** What fetching needs of an array's access (see `ArrayAccess` in read.ts). */
export interface ChunkSource {
  layout: KeyLayout;
  /** The module of the array's reader, which reads its shard indexes (the core's where none is said). */
  kind?: "core" | "packing";
  /** Bytes -> bytes codecs undone here, through zarrita's registry. */
  compressors: BytesCodec[];
  index: null | ShardIndex;
}

/**
 * The store path of a chunk's (or shard's) key under the array: what `arr.resolve(key).path`
 * gives for a key of digits and separators, without its URL parsing (a tile read makes several).
 */
export function pathOf(arr: zarr.Location<unknown>, key: string): zarr.AbsolutePath {
  return `${arr.path.endsWith("/") ? arr.path : `${arr.path}/`}${key}` as zarr.AbsolutePath;
}

/** The coordinates of the shard holding the inner chunk at `coords` (`per`: inner chunks a shard holds along each dimension). */
export function shardCoordsOf(per: number[], coords: number[]): number[] {
  return coords.map((c, i) => Math.floor(c / per[i]));
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

/**
 * Bytes -> bytes codecs from zarrita's registry (those the compress module does not run), each
 * built from the representation it receives and each direction run through `viaCodec` (its
 * failures coded); or why not (a codec the registry lacks).
 */
export async function registryBytesCodecs(
  list: { name: string; configuration?: unknown }[],
  dataType: string,
  chunkShape: number[],
): Promise<BytesCodec[] | string> {
  const out: BytesCodec[] = [];
  for (const meta of list) {
    const codec = await registryCodec(meta, list, dataType, chunkShape);
    if (!codec) return `no codec ${meta.name} in zarrita's registry`;
    out.push({
      decode: (bytes) => viaCodec(meta.name, "decode", () => codec.decode(bytes)),
      encode: (bytes) => viaCodec(meta.name, "encode", () => codec.encode(bytes)),
      computeEncodedSize: codec.computeEncodedSize && ((size) => codec.computeEncodedSize!(size)),
    });
  }
  return out;
}

/** Undoes bytes -> bytes codecs, last first. */
export async function decodeBytes(codecs: BytesCodec[], bytes: Uint8Array): Promise<Uint8Array> {
  for (let i = codecs.length - 1; i >= 0; i--) bytes = await codecs[i].decode(bytes);
  return bytes;
}

/** The place in a level's index of the chunk at `coords` (of `per` along each dimension): C order over the dimensions in `order`. */
export function indexPosition(coords: number[], per: number[], order: number[] | null): number {
  let position = 0;
  for (let j = 0; j < per.length; j++) {
    const i = order ? order[j] : j;
    position = position * per[i] + coords[i];
  }
  return position;
}

/**
 * For each chunk of a level, in C order over the array's dimensions, its place in the
 * level's index (`indexPosition`); null where the two orders are the same.
 */
export function indexPlaces(per: number[], order: number[] | null): Int32Array | null {
  if (!order) return null;
  const count = per.reduce((x, y) => x * y, 1);
  const places = new Int32Array(count);
  const coords = new Array<number>(per.length).fill(0);
  for (let p = 0; p < count; p++) {
    places[p] = indexPosition(coords, per, order);
    for (let i = per.length - 1; i >= 0; i--) {
      if (++coords[i] < per[i]) break;
      coords[i] = 0;
    }
  }
  return places;
}

/** A missing inner chunk's offset in the core's reading of a shard index (2^64 - 1, as a number). */
export const MISSING = 2 ** 64;

/** One chunk's stored bytes and its store key (for errors). */
export interface Fetched {
  key: string;
  bytes: Uint8Array | undefined;
  /** Whether the bytes are this read's alone (a fetch response's), to hand over uncopied. */
  owned?: boolean;
  /** Where a worker fetches the bytes (see `GetOptions.workerFetch`): then `bytes` is undefined. */
  remote?: Remote;
}

/**
 * Where an inner chunk's stored bytes are: its store key (for errors), its shard's path and its
 * range there; or that it is missing. `table`: the shard's own index as it was read (undefined:
 * the shard itself was missing), whose validator its bytes must come with.
 */
export type Located =
  | { key: string; path: zarr.AbsolutePath; range: Range; missing?: false; table: Table }
  | { key: string; path: zarr.AbsolutePath; missing: true; table: Table | undefined };

/**
 * A level's index entries (offset, length of each chunk, as numbers), the validator of the
 * answer they were read from (see `Version`), and when its read began (see `chunkLocator`).
 */
export interface Table {
  entries: Float64Array;
  version?: Version;
  began: number;
  /** Read through a fetch of the app's own (see `throughAppFetch`). */
  appFetch: boolean;
}

/** Counts reads and index requests as they begin: an index whose request began after a read did is that read's own. */
let began = 0;

/**
 * For a sharded array, a function giving where each inner chunk's stored bytes are: its range
 * in its shard, read from the shard's indexes, each request through `ranges` (the store's own
 * requests) and `paced`. Indexes are kept between reads (up to `cacheBytes`; see
 * `ShardIndexes`) only where their answer's validator tells versions apart (or `immutable`
 * says the store never changes): an index without one is the reads' that use it at once, and
 * forgotten as the last of them ends (`done`).
 */
export function chunkLocator(
  arr: zarr.Location<zarr.Readable>,
  a: ChunkSource,
  how: { paced?: <T>(request: () => Promise<T>) => Promise<T>; cacheBytes?: number; immutable?: boolean; ranges?: Ranges } = {},
): Locator {
  const { paced = (request) => request(), cacheBytes = SHARD_INDEX_BYTES } = how;
  const store = arr.store as AnyStore;
  const ranges = how.ranges ?? rangesOf(store);
  const { layout, index } = a;
  if (!index || !layout.shard) throw codedError("INTERNAL", "a chunk locator for an array that is not sharded");
  const indexes = shardIndexesOf(arr, index);
  if (cacheBytes > 0) indexes.limit = cacheBytes;
  const start = ++began;
  // The indexes this read used (each counted once), and those it asked the store for.
  const used = new Set<IndexEntry>();
  const asked = new Set<IndexEntry>();
  // Whether an index is kept once no read uses it: read from an answer whose validator tells
  // versions apart (while the store's validators are not set aside), or from a store said to
  // be immutable; never with no bytes to keep.
  const keep = (table: Table | undefined) =>
    cacheBytes > 0 && (how.immutable === true || (table?.version?.trusted === true && !validatorsSetAside(store)));
  // Indexes whose request was still under way when this read first used them: answered after
  // the read began, as good as its own.
  const joined = new WeakSet<Table>();
  const use = (entry: IndexEntry) => {
    if (!used.has(entry)) {
      used.add(entry);
      entry.users++;
      if (!entry.settled) void entry.table.then((t) => t && joined.add(t), () => {});
    }
    return entry.table;
  };
  // A level's index entries from its stored bytes (`raw`; undefined: a missing shard).
  const tableOf = (read: Promise<Uint8Array | undefined>, depth: number, within: Range | undefined, name: string, at: number) => {
    const level = index.levels[depth];
    return read.then((raw): Promise<Table | undefined> =>
      namingChunk(`${name} (shard index)`, async () => {
        if (!raw && !within) return undefined;
        if (!raw || raw.length !== level.bytes) {
          throw codedError("CHUNK_LENGTH", `the shard index has ${raw?.length ?? 0} bytes, not ${level.bytes}`);
        }
        // (A store's answer carries its response's validator where `validatingFetch` read it.)
        const [version, appFetch] = [taggedVersion(raw), throughAppFetch(raw)];
        const bytes = await level.unpack(raw);
        // Read by the reader's module (entries checked, each exact as a number): a
        // getDecoded reads with the packing module alone.
        const chunks = level.per.reduce((x, y) => x * y, 1);
        return { entries: (await loadModule(a.kind ?? "core")).shardIndexEntries(bytes, level.little, chunks), version, began: at, appFetch };
      }),
    );
  };
  const kept = (id: string, read: Promise<Uint8Array | undefined>, depth: number, within: Range | undefined, name: string) => {
    const entry = indexes.set(id, tableOf(read, depth, within, name, ++began), index.levels[depth].bytes);
    asked.add(entry);
    return use(entry);
  };
  const shardOf = (coords: number[]) => {
    const shardKey = chunkKey(layout, shardCoordsOf(index.perShard, coords));
    return { shardKey, path: pathOf(arr, shardKey) };
  };
  // A level's index entries, read once: the shard's own (within: none), or those of the
  // chunk at `within` of the shard (nested sharding); undefined for a missing shard.
  // (Kept by the level's depth as well as where its chunk starts: at depth 1 and 2 the first
  // chunk of the first chunk starts at the same byte.)
  const entriesOf = (path: zarr.AbsolutePath, depth: number, within: Range | undefined, name: string) => {
    const level = index.levels[depth];
    const id = within ? `${path}\u0000${depth}\u0000${within.offset}` : path;
    const found = indexes.get(id);
    // (One kept without a validator, for reads that said the store immutable, is not this
    // read's to trust unless it says so too, or reads at once with one that uses it.)
    if (found && !(found.users === 0 && found.settled && !keep(found.settled.table))) return use(found);
    let range: Range | { suffixLength: number };
    if (!within) {
      range = level.atEnd ? { suffixLength: level.bytes } : { offset: 0, length: level.bytes };
    } else if (within.length < level.bytes) {
      return Promise.reject(lengthError(name, `the chunk has ${within.length} bytes, fewer than its shard index's ${level.bytes}`));
    } else {
      range = { offset: within.offset + (level.atEnd ? within.length - level.bytes : 0), length: level.bytes };
    }
    // Not cancelled with this read: other reads may be waiting for the same index.
    return kept(id, paced(() => fromStore(path, () => ranges.getRange(path, range))), depth, within, name);
  };
  const locate = async (coords: number[]): Promise<Located> => {
    const { shardKey, path } = shardOf(coords);
    // Down the levels: each index gives where its chunk lies in the chunk above (the shard,
    // then the range of the shard the level above gave).
    let local = coords.map((c, i) => c % index.perShard[i]);
    let span = index.perShard;
    let within: Range | undefined;
    const positions: number[] = [];
    const nameOf = () => (positions.length ? `${shardKey} (inner chunk ${positions.join(", ")})` : shardKey);
    let shard: Table | undefined;
    for (const [depth, level] of index.levels.entries()) {
      const table = await entriesOf(path, depth, within, nameOf());
      // (The shard's own index, whose validator its bytes carry: where an inner index was read
      // from a later version, the chunk's bytes are too, and their validator differs.)
      if (depth === 0) shard = table;
      // Inner chunks along each dimension in each of this level's chunks.
      const below = span.map((s, i) => s / level.per[i]);
      const position = indexPosition(local.map((c, i) => Math.floor(c / below[i])), level.per, level.order);
      local = local.map((c, i) => c % below[i]);
      span = below;
      positions.push(position);
      if (!table) return { key: nameOf(), path, missing: true, table: shard };
      const [offset, length] = [table.entries[2 * position], table.entries[2 * position + 1]];
      if (offset === MISSING) return { key: nameOf(), path, missing: true, table: shard };
      if (within && offset + length > within.length) {
        throw lengthError(nameOf(), `its shard index says bytes ${offset} to ${offset + length}, but the chunk it is in has ${within.length}`);
      }
      within = { offset: (within?.offset ?? 0) + offset, length };
    }
    return { key: nameOf(), path, range: within!, table: shard! };
  };
  return Object.assign(locate, {
    whole(coords: number[]) {
      const { shardKey, path } = shardOf(coords);
      const level = index.levels[0];
      // (Kept or not, the index is read anew from the shard's bytes, which a read of every
      // chunk of it fetches in one request anyway.)
      if (index.levels.length !== 1) return undefined;
      // Not cancelled with this read: other reads may be waiting for the index it holds.
      const bytes = paced(() => fromStore(path, () => ranges.get(path)));
      // (The index, a view of the shard's answer, carries that answer's validator.)
      const raw = bytes.then((b) => b && (level.atEnd ? b.subarray(Math.max(0, b.length - level.bytes)) : b.subarray(0, level.bytes)));
      // (Used by the reads that locate its chunks, as they do right after.)
      indexes.set(path, tableOf(raw, 0, undefined, shardKey, ++began), level.bytes);
      return bytes;
    },
    fresh(table: Table | undefined) {
      return table === undefined || table.began > start || joined.has(table);
    },
    abandon() {
      // The read failed: an index request of its still under way is not joined by the next
      // read (a retry asks again).
      for (const entry of asked) if (!entry.settled) indexes.drop(entry);
    },
    done() {
      for (const entry of used) {
        entry.users--;
        if (entry.users === 0 && !(entry.settled && keep(entry.settled.table))) indexes.drop(entry);
      }
      used.clear();
    },
    forget(path: string, table: Table | undefined) {
      indexes.forget(path, { table });
    },
  });
}

/**
 * Where each (inner) chunk's stored bytes are (see `chunkLocator`); for a sharded array,
 * `whole` fetches the shard holding the chunk at `coords` in one request, its index (kept as
 * any other, in place of one kept before) then read from its bytes (undefined: nested shards,
 * whose inner indexes are read by range).
 */
export type Locator = ((coords: number[]) => Promise<Located>) & {
  whole(coords: number[]): Promise<Uint8Array | undefined> | undefined;
  /**
   * Whether `table` was read for this read (its request began after the read did, or was under
   * way when the read first used it), not kept from an earlier one; a missing shard's, always.
   */
  fresh(table: Table | undefined): boolean;
  /** The read failed: the index requests it made that are still under way are not kept. */
  abandon(): void;
  /** The read is over: the indexes it used that are not to be kept between reads are forgotten once no other read uses them. */
  done(): void;
  /** Forgets the indexes kept of the shard at `path` (it changed since they were read), where `table` is still its index kept. */
  forget(path: string, table: Table | undefined): void;
};

/**
 * Whether what `store` answers is the read's alone, to hand to a worker uncopied: zarrita's
 * FetchStore answers each request with a new buffer of the response's body, which nothing else
 * holds. Any other store may keep what it returns (an in-memory store returns its own bytes),
 * and so may a zarrita extension around a FetchStore (its byte cache): a proxy that passes
 * `instanceof` but whose get and getRange are not the FetchStore's own methods. (Bytes the
 * registry's codecs decode here are not handed over as they came.)
 */
export function answersOwned(store: AnyStore, a: ChunkSource): boolean {
  const proto = Object.getPrototypeOf(store) as AnyStore;
  return store instanceof zarr.FetchStore && store.get === proto.get && store.getRange === proto.getRange && !a.compressors.length;
}

/**
 * A function giving each chunk's stored bytes, for an array that is not sharded (see
 * `readShards` in read.ts for those that are): as they are where the compress module undoes
 * their codecs (here or in a worker), after the registry's codecs otherwise.
 */
export function chunkFetcher(arr: zarr.Location<zarr.Readable>, a: ChunkSource, options: { signal?: AbortSignal }) {
  const store = arr.store as AnyStore;
  const opts = options.signal ? { signal: ownSignal(options.signal) } : undefined;
  const registry = (key: string, bytes: Uint8Array | undefined) =>
    bytes && a.compressors.length ? namingChunk(key, () => decodeBytes(a.compressors, bytes)) : bytes;
  const owned = answersOwned(store, a);
  return async (coords: number[]): Promise<Fetched> => {
    const key = chunkKey(a.layout, coords);
    const path = pathOf(arr, key);
    const bytes = await fromStore(path, () => store.get(path, opts));
    return { key, bytes: await registry(key, bytes), owned };
  };
}

/**
 * A function giving, for each (inner) chunk, where a worker fetches it (see
 * `GetOptions.workerFetch`); undefined when the workers cannot fetch this array's chunks
 * (codecs that only zarrita's registry runs are undone on this thread).
 */
export function chunkRemote(arr: zarr.Location<zarr.Readable>, a: ChunkSource, root: string | URL, init: WorkerFetchInit) {
  if (a.compressors.length) return undefined;
  return async (coords: number[]): Promise<Fetched> => {
    const key = chunkKey(a.layout, coords);
    return { key, bytes: undefined, remote: { url: urlOf(root, pathOf(arr, key)), init } };
  };
}

/** A CHUNK_LENGTH error naming a chunk (as `namingChunk` names one). */
function lengthError(key: string, message: string): Error {
  return codedError("CHUNK_LENGTH", `chunk ${key}: ${message}`);
}

/**
 * How many bytes of shard indexes an array keeps between reads by default (see `ShardIndexes`;
 * `GetOptions.shardIndexBytes`): 16 MiB, the indexes of 65,536 shards of 16 inner chunks.
 */
export const SHARD_INDEX_BYTES = 16 * 1024 * 1024;

/**
 * The shard indexes read for one array: those in use by reads, and those kept between reads up
 * to `limit` bytes in all (the least recently used leave first; the limit the last read gave;
 * the index read last stays, whatever its size), so that a viewer panning over a shard reads
 * its index once, as zarrita does. A read that fails (or is aborted) is not kept.
 */
class ShardIndexes {
  #entries = new Map<string, IndexEntry>();
  #bytes = 0;
  limit = SHARD_INDEX_BYTES;

  get(id: string): IndexEntry | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    // The most recently used last.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry;
  }

  set(id: string, table: Promise<Table | undefined>, bytes: number): IndexEntry {
    const entry: IndexEntry = { id, table, bytes, users: 0 };
    this.drop(this.#entries.get(id));
    this.#entries.set(id, entry);
    this.#bytes += bytes;
    table.then((t) => (entry.settled = { table: t }), () => this.drop(entry));
    for (const [oldest, e] of this.#entries) {
      if (this.#bytes <= this.limit || oldest === id) break;
      if (e.users === 0) this.drop(e);
    }
    return entry;
  }

  /**
   * Forgets a shard's indexes (its shard was written, or changed): its own, and its inner
   * shards' (nested sharding); where `only` is given, only if its own kept index is that one
   * (a read that found the change after another read had read the index anew leaves that one).
   */
  forget(path: string, only?: { table: Table | undefined }): void {
    const own = this.#entries.get(path);
    if (only && !(own?.settled && own.settled.table === only.table)) return;
    for (const [id, entry] of [...this.#entries]) {
      if (id === path || id.startsWith(`${path}\u0000`)) this.drop(entry);
    }
  }

  /** Forgets `entry`, if it is still the one kept under its id. */
  drop(entry: IndexEntry | undefined): void {
    if (!entry || this.#entries.get(entry.id) !== entry) return;
    this.#entries.delete(entry.id);
    this.#bytes -= entry.bytes;
  }
}

/** An index kept (see `ShardIndexes`): its read, its size, how many reads use it, and once read, its table. */
interface IndexEntry {
  id: string;
  table: Promise<Table | undefined>;
  bytes: number;
  users: number;
  settled?: { table: Table | undefined };
}

/**
 * The shard indexes kept, by store (the one under any zarrita extensions: js/stores/identity.ts),
 * then by array path and the shape of its indexes (an array written anew at the same path
 * with other shards is another array), so that every array object of one store and path
 * shares them, and a write through any of them drops them.
 */
const shardIndexes = new WeakMap<object, Map<string, Map<string, ShardIndexes>>>();

function shardIndexesOf(arr: zarr.Location<zarr.Readable>, index: ShardIndex): ShardIndexes {
  const store = baseStore(arr.store);
  let paths = shardIndexes.get(store);
  if (!paths) shardIndexes.set(store, (paths = new Map()));
  let shapes = paths.get(arr.path);
  if (!shapes) paths.set(arr.path, (shapes = new Map()));
  const shape = JSON.stringify([index.perShard, index.levels.map((l) => [l.per, l.order, l.little, l.atEnd, l.bytes])]);
  let found = shapes.get(shape);
  if (!found) shapes.set(shape, (found = new ShardIndexes()));
  return found;
}

/**
 * Forgets the indexes kept of shards of the array at `arr`'s store and path that were just
 * written (`paths`, store keys; all of them where none are given: the array was written anew).
 */
export function forgetShardIndexes(arr: zarr.Location<unknown>, paths?: Iterable<string>): void {
  const shapes = shardIndexes.get(baseStore(arr.store as object))?.get(arr.path);
  if (!shapes) return;
  if (!paths) {
    shapes.clear();
    return;
  }
  const written = [...paths];
  for (const indexes of shapes.values()) for (const path of written) indexes.forget(path);
}
