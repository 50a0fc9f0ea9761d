// A store as the package reads it: zarrita's Readable with `getRange` where it has one (and one
// cut out of whole objects where it has not), the byte ranges it is asked for, and where a worker
// fetches a stored object itself (its URL, range and request options).
import type * as zarr from "zarrita";

/** A store as the read calls it: zarrita's Readable, with `getRange` where it has one. */
export type AnyStore = zarr.Readable & {
  get(key: zarr.AbsolutePath, opts?: unknown): Promise<Uint8Array | undefined>;
  getRange?: (key: zarr.AbsolutePath, range: { offset: number; length: number } | { suffixLength: number }, opts?: unknown) => Promise<Uint8Array | undefined>;
};

/** A store's answers as a read asks for them: ranges of objects, and whole objects. */
export interface Ranges {
  getRange(path: zarr.AbsolutePath, range: Range | { suffixLength: number }, opts?: unknown): Promise<Uint8Array | undefined>;
  get(path: zarr.AbsolutePath, opts?: unknown): Promise<Uint8Array | undefined>;
}

/**
 * How a read asks `store` for ranges: its `getRange`; for a store without one (a Map, a store of
 * an app's own), each object whole with `get` (with `once`, once: what one read asks, kept for
 * its other ranges of the object), and the ranges cut out of it.
 */
export function rangesOf(store: AnyStore, once = false): Ranges {
  const get = (path: zarr.AbsolutePath, opts?: unknown) => store.get(path, opts);
  if (store.getRange) return { getRange: (path, range, opts) => store.getRange!(path, range, opts), get };
  const objects = new Map<string, Promise<Uint8Array | undefined>>();
  return {
    get,
    getRange(path, range, opts) {
      let whole = objects.get(path);
      if (!whole) {
        whole = store.get(path, opts);
        if (once) {
          objects.set(path, whole);
          whole.catch(() => objects.delete(path));
        }
      }
      return whole.then((bytes) => {
        if (!bytes) return undefined;
        if ("suffixLength" in range) return bytes.subarray(Math.max(0, bytes.length - range.suffixLength));
        return bytes.subarray(range.offset, Math.min(bytes.length, range.offset + range.length));
      });
    },
  };
}

/**
 * `store`, or where it has no getRange (a Map, a store of an app's own), the same store with one
 * that cuts ranges out of whole objects (see `rangesOf`): what zarrita needs to make an array
 * of a sharded array over it. (Its other properties are the store's own, each function bound
 * to it; the store under it is the same one, see js/stores/identity.ts.)
 */
export function withRanges<S extends object>(store: S): S {
  if ((store as AnyStore).getRange) return store;
  const { getRange } = rangesOf(store as unknown as AnyStore);
  return new Proxy(store, {
    get(target, name) {
      if (name === "getRange") return getRange;
      const value = Reflect.get(target, name, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
    has: (target, name) => name === "getRange" || Reflect.has(target, name),
  });
}

/**
 * What a worker fetches a chunk with (see `GetOptions.workerFetch`): the request options
 * every fetch is made with, as plain values a worker can be sent.
 */
export interface WorkerFetchInit {
  headers?: Record<string, string>;
  credentials?: "omit" | "same-origin" | "include";
  mode?: "cors" | "no-cors" | "same-origin";
  cache?: "default" | "no-store" | "reload" | "no-cache" | "force-cache" | "only-if-cached";
  referrerPolicy?: string;
}

/** A chunk a worker fetches itself: the URL of its object (and its range, within a shard) and the request's options. */
export interface Remote {
  url: string;
  range?: Range;
  init: WorkerFetchInit;
  /** The validator (ETag or Last-Modified) the object's shard index came with: an answer with another is STORE_CHANGED. */
  expect?: string;
  /** A referenced file's range (js/stores/reference.ts): a 404 is a reference to a missing file (STORE_FAILED), not a shard gone since its index was read. */
  referenced?: boolean;
}

/**
 * The URL of `path` under a store's URL (as zarrita's FetchStore resolves it: the store's URL
 * as a directory, its query kept).
 */
export function urlOf(root: string | URL, path: string): string {
  const base = new URL(String(root));
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  const url = new URL(path.replace(/^\/+/, ""), base);
  url.search = base.search;
  return url.href;
}

/** A byte range of a stored object. */
export type Range = { offset: number; length: number };
