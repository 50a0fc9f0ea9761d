// What the package sees of the responses zarrita's FetchStore reads, through `validatingFetch`:
// each body's validator (js/stores/versions.ts) and its range checked; and the stores whose validators
// were found to change on every answer, set aside.
import * as zarr from "zarrita";
import { codedError } from "../common/errors.js";
import { baseStore } from "./identity.js";
import { rangeAnswered } from "./remote.js";
import { type Version, validatorOf } from "./versions.js";

/**
 * What `validatingFetch` read of a body's response, by its buffer (shared by every copy of the
 * package in a page): its validator, and whether an app's own fetch made the request.
 */
const tagged: WeakMap<ArrayBufferLike, { version?: Version; appFetch: boolean }> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for("zarr-wasm-codecs.responses")
] ??= new WeakMap()) as WeakMap<ArrayBufferLike, { version?: Version; appFetch: boolean }>;

/** The validator of the response a store's answer was read from, where `validatingFetch` read it. */
export function taggedVersion(bytes: Uint8Array | undefined): Version | undefined {
  return bytes && tagged.get(bytes.buffer)?.version;
}

/** Whether a store's answer was read through `validatingFetch(fetch)` with a fetch of the app's own (which no worker can run). */
export function throughAppFetch(bytes: Uint8Array | undefined): boolean {
  return Boolean(bytes && tagged.get(bytes.buffer)?.appFetch);
}

/**
 * A `fetch` for zarrita's FetchStore (`new zarr.FetchStore(url, { fetch: validatingFetch() })`)
 * that lets the package see what the store does not show of each response: its validator
 * (`ETag`, or `Last-Modified`), so that shard indexes are kept between reads (only where a
 * validator tells versions apart) and checked against every range read with them; and its
 * `Content-Range`, so that a range answered with other bytes than asked for is refused
 * (STORE_FAILED), and one answered whole (200) gives the range's bytes. `fetch`: the function
 * that makes the requests (by default the global fetch), as the store's own `fetch` option
 * takes it (an app's own is seen as such: the pool's workers, which cannot run it, are then not
 * asked to fetch, see `GetOptions.workerFetch`). zarrita before 0.7 has no such option (its
 * FetchStore would drop it unseen): there it is refused (UNSUPPORTED).
 */
export function validatingFetch(given?: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  const fetch = given ?? ((request: Request) => globalThis.fetch(request));
  const appFetch = given !== undefined;
  if (!(zarr as { defineStoreExtension?: unknown }).defineStoreExtension) {
    throw codedError(
      "UNSUPPORTED",
      "validatingFetch: the zarrita installed is older than 0.7, whose FetchStore takes no fetch option (it would be ignored): " +
        "upgrade zarrita; without it the package keeps no shard index between reads",
    );
  }
  return async (request) => {
    const response = await fetch(request);
    const version = validatorOf(response);
    const asked = request.headers.get("range");
    const wanted = asked ? /^bytes=(\d*)-(\d*)$/.exec(asked.trim()) : null;
    if (!version && !appFetch && !(wanted && (response.status === 200 || response.status === 206))) return response;
    return new Proxy(response, {
      get(target, name) {
        if (name === "arrayBuffer") {
          return async () => {
            let body = await target.arrayBuffer();
            if (wanted) body = rangeOf(request.url, wanted, target, body);
            tagged.set(body, { version, appFetch });
            return body;
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
}

/**
 * The bytes a range request (`wanted`: `bytes=first-last`, `bytes=first-` or `bytes=-suffix`)
 * asked for, out of its response's body (see `rangeAnswered`).
 */
function rangeOf(url: string, wanted: RegExpExecArray, response: Response, body: ArrayBuffer): ArrayBuffer {
  const asked = wanted[1] === "" ? { last: Number(wanted[2]) } : { first: Number(wanted[1]), ...(wanted[2] === "" ? {} : { last: Number(wanted[2]) }) };
  const failed = (why: string) => codedError("STORE_FAILED", `the store failed on ${url} (bytes ${wanted[1]}-${wanted[2]}): ${why}`);
  const part = rangeAnswered(asked, response, new Uint8Array(body), failed);
  return part.byteLength === body.byteLength ? body : body.slice(part.byteOffset, part.byteOffset + part.byteLength);
}

/** The stores whose validators were set aside (see `setValidatorsAside`). */
const setAside = new WeakSet<object>();

/** Whether the validators of `store`'s answers are set aside (see `setValidatorsAside`). */
export function validatorsSetAside(store: object): boolean {
  return setAside.has(baseStore(store));
}

/**
 * Sets aside the validators of `store`'s answers (the store under any zarrita extensions), found
 * to change between two answers of the same bytes (a server or proxy that makes a new ETag for
 * every response): from then on it is read as a store without validators. Said once per store.
 */
export function setValidatorsAside(store: object, where: string): void {
  const base = baseStore(store);
  if (setAside.has(base)) return;
  setAside.add(base);
  console.warn(
    `zarr-wasm-codecs: the server answered ${where} twice with the same shard index but different validators (a new ETag for every ` +
      "response, as some servers and proxies give): its validators cannot tell versions apart, so this store is read as one without " +
      "them (shard indexes kept for one read only). See docs/reading.md, What is cached.",
  );
}
