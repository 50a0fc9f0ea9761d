// Which version of a stored object bytes came from: the validator a server gives a response
// (ETag, or Last-Modified), read by the package's own fetches (js/remote.ts) and, through
// `validatingFetch`, by zarrita's FetchStore's; and the check that a shard's bytes come from the
// version its kept index was read from.

/**
 * What tells one version of an object from another, as the server gives it: its ETag, or else
 * its Last-Modified date (undefined where it gives neither).
 */
export function validatorOf(response: Response): string | undefined {
  const etag = response.headers.get("etag");
  if (etag) return `ETag ${etag}`;
  const modified = response.headers.get("last-modified");
  return modified ? `Last-Modified ${modified}` : undefined;
}

/**
 * Refuses (STORE_CHANGED) an answer for the object at `where` whose validator (see
 * `validatorOf`) says it changed since `before`: both known, of one kind, and different.
 */
export function checkUnchanged(where: string, before: string | undefined, now: string | undefined): void {
  if (before && now && before !== now && before.split(" ", 1)[0] === now.split(" ", 1)[0]) {
    throw Object.assign(new Error(`${where} changed since its shard index was read (${before} -> ${now})`), { code: "STORE_CHANGED" });
  }
}

/** Validators of the bodies `validatingFetch` read, by their buffer (shared by every copy of the package in a page). */
const tagged: WeakMap<ArrayBufferLike, string> = ((globalThis as Record<symbol, unknown>)[Symbol.for("zarr-wasm-codecs.validators")] ??= new WeakMap()) as WeakMap<
  ArrayBufferLike,
  string
>;

/** The validator of the response a store's answer was read from, where `validatingFetch` read it. */
export function taggedValidator(bytes: Uint8Array | undefined): string | undefined {
  return bytes && tagged.get(bytes.buffer);
}

/**
 * A `fetch` for zarrita's FetchStore (`new zarr.FetchStore(url, { fetch: validatingFetch() })`)
 * that lets the package see each response's validator (`ETag`, or `Last-Modified`), which the
 * store does not show: a read on this thread then checks that the ranges of a shard it fetches
 * come from the version of the shard its kept index was read from, and reads the index again
 * (once) where they do not. `fetch`: the function that makes the requests (by default the
 * global fetch), as the store's own `fetch` option takes it.
 */
export function validatingFetch(fetch: (request: Request) => Promise<Response> = (request) => globalThis.fetch(request)): (request: Request) => Promise<Response> {
  return async (request) => {
    const response = await fetch(request);
    const validator = validatorOf(response);
    if (!validator) return response;
    return new Proxy(response, {
      get(target, name) {
        if (name === "arrayBuffer") {
          return async () => {
            const body = await target.arrayBuffer();
            tagged.set(body, validator);
            return body;
          };
        }
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  };
}
