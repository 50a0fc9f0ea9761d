// A fetch of a chunk (or a run of a shard) straight from a store's URL, as zarrita's FetchStore
// answers, with the checks a range needs: by the pool's workers (see `GetOptions.workerFetch`).
import type { Remote, WorkerFetchInit } from "./store.js";
import { checkUnchanged, validatorOf } from "./versions.js";

/**
 * A chunk's (or a run's) stored bytes, fetched as zarrita's FetchStore reads them: 404 is a
 * missing chunk (undefined), 200 or 206 its bytes, anything else STORE_FAILED. A range (a run of
 * a shard whose index named it) must come back as asked: a 206 whose Content-Range names other
 * bytes, or that is short, is STORE_FAILED naming the URL and the range; a 200 (the server sent
 * the whole object) gives the range's bytes of it; a 404 means the shard is gone since its index
 * was read (STORE_CHANGED: the caller reads the index again). Where `remote.expect` gives the
 * validator its shard's index came with and the response's differs, the object changed since:
 * STORE_CHANGED too.
 */
export async function fetchStored(remote: Remote, signal?: AbortSignal, onBytes?: (buffer: Uint8Array, filled: number) => void): Promise<Uint8Array | undefined> {
  const { url, range, init } = remote;
  const headers: Record<string, string> = { ...init.headers };
  const bytesAsked = range && `${range.offset}-${range.offset + range.length - 1}`;
  const asked = bytesAsked && `bytes ${bytesAsked}`;
  if (bytesAsked) headers.Range = `bytes=${bytesAsked}`;
  const failed = (why: string) => Object.assign(new Error(`the store failed on ${url}${asked ? ` (${asked})` : ""}: ${why}`), { code: "STORE_FAILED" });
  const response = await request(url, init, headers, signal, failed);
  if (!response) {
    if (!range) return undefined;
    if (remote.referenced) throw failed("a reference to a missing file (404)");
    throw Object.assign(new Error(`${url} is missing (404 for ${asked}), though its shard index named the range`), { code: "STORE_CHANGED", gone: true });
  }
  checkUnchanged(url, remote.expect, validatorOf(response));
  // A 206 that names the range asked for is read as it arrives (`onBytes`); anything else
  // whole, then checked.
  const said = response.headers.get("content-range");
  const exact = range && response.status === 206 && said !== null && said.trim().startsWith(`${asked}/`);
  let bytes: Uint8Array;
  try {
    bytes = onBytes && exact && response.body ? await streamed(response.body, range.length, onBytes, failed) : new Uint8Array(await response.arrayBuffer());
  } catch (e) {
    if (e instanceof Error && (e.name === "AbortError" || (e as { code?: string }).code === "STORE_FAILED")) throw e;
    throw failed(e instanceof Error ? e.message : String(e));
  }
  if (!range) return bytes;
  const part = rangeAnswered({ first: range.offset, last: range.offset + range.length - 1 }, response, bytes, failed);
  onBytes?.(part, part.length);
  return part;
}

/**
 * A response body of `length` bytes read into one buffer as it arrives, `onBytes(buffer,
 * filled)` told after each piece; `failed` (STORE_FAILED) if it is longer or shorter.
 */
export async function streamed(body: ReadableStream<Uint8Array>, length: number, onBytes: (buffer: Uint8Array, filled: number) => void, failed: (why: string) => Error): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  const reader = body.getReader();
  let filled = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (filled + value.length > length) {
      void reader.cancel();
      throw failed(`it answered more than the ${length} bytes asked for`);
    }
    buffer.set(value, filled);
    filled += value.length;
    onBytes(buffer, filled);
  }
  if (filled !== length) throw failed(`it answered ${filled} bytes of the ${length} asked for`);
  return buffer;
}

/**
 * The bytes a range request asked for (`bytes=first-last`, `bytes=first-`, or the last `last`
 * bytes where `first` is not given), out of its answer (`bytes`, its body): a 206 must name them
 * in its Content-Range (where it gives one) and hold them all; a 200 (the whole object) gives
 * them by slicing. Otherwise `failed` (STORE_FAILED, naming the URL and the range). Shared by the
 * workers' fetches and `validatingFetch`.
 */
export function rangeAnswered(asked: { first?: number; last?: number }, response: Response, bytes: Uint8Array, failed: (why: string) => Error): Uint8Array {
  const { first, last } = asked;
  const length = first !== undefined && last !== undefined ? last - first + 1 : undefined;
  if (response.status === 200) {
    const n = bytes.length;
    if (first === undefined) return bytes.subarray(Math.max(0, n - (last ?? 0)));
    const end = last === undefined ? n : last + 1;
    if (end > n) throw failed(`it answered 200 with ${n} bytes, which do not hold the range`);
    return bytes.subarray(first, end);
  }
  const said = response.headers.get("content-range");
  if (said !== null) {
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(said.trim());
    if (!m) throw failed(`it answered ${said}`);
    const [from, to, total] = [Number(m[1]), Number(m[2]), m[3] === "*" ? undefined : Number(m[3])];
    const right = first === undefined
      ? total !== undefined && to === total - 1 && to - from + 1 === Math.min(last ?? 0, total)
      : from === first && (last === undefined ? total !== undefined && to === total - 1 : to === last);
    if (!right) throw failed(`it answered ${said}`);
    if (bytes.length !== to - from + 1) throw failed(`it answered ${bytes.length} bytes of the ${to - from + 1} its Content-Range names`);
    return bytes;
  }
  // (No Content-Range: only the length can be checked.)
  if (length !== undefined && bytes.length !== length) throw failed(`it answered ${bytes.length} bytes of the ${length} asked for`);
  return bytes;
}

/**
 * One request: its response (its body unread); undefined for 404; STORE_FAILED (by `failed`) for
 * any other status or a failure. A request that fails before any answer (a connection the server
 * closed, say) is made once more.
 */
async function request(
  url: string,
  init: WorkerFetchInit,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
  failed: (why: string) => Error,
): Promise<Response | undefined> {
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, { ...(init as RequestInit), headers, signal });
    } catch (e) {
      if (e instanceof Error && e.name === "AbortError") throw e;
      if (attempt === 0 && !signal?.aborted) continue;
      throw failed(e instanceof Error ? e.message : String(e));
    }
    if (response.status === 404) return undefined;
    if (response.status !== 200 && response.status !== 206) {
      throw failed(`Unexpected response status ${response.status} ${response.statusText}`);
    }
    return response;
  }
}
