// A fetch of a chunk (or a run of a shard, or a shard's index) straight from a store's URL, as
// zarrita's FetchStore answers, with the checks a range needs: by the pool's workers (see
// `GetOptions.workerFetch`), and by the main thread for the shard indexes of such reads.
import type { Remote, WorkerFetchInit } from "./fetch.js";
import { checkUnchanged, validatorOf } from "./validators.js";

/**
 * A chunk's (or a run's) stored bytes, fetched as zarrita's FetchStore reads them: 404 is a
 * missing chunk (undefined; for a range, only where `missingOk`: a shard's index at its start),
 * 200 or 206 its bytes, anything else STORE_FAILED. A range must come back as asked: a 206
 * whose Content-Range names other bytes, or that is short, is STORE_FAILED naming the URL and
 * the range; a 200 (the server sent the whole object) gives the range's bytes of it.
 */
export async function fetchStored(remote: Remote, signal?: AbortSignal, missingOk = !remote.range): Promise<Uint8Array | undefined> {
  return (await fetchValidated(remote, signal, missingOk))?.bytes;
}

/**
 * `fetchStored`, with the object's validator (see `validatorOf`). Where `remote.expect` gives
 * the one its shard's index came with and the response's differs, the object changed since:
 * STORE_CHANGED (the caller reads the index again).
 */
export async function fetchValidated(remote: Remote, signal?: AbortSignal, missingOk = !remote.range): Promise<Validated | undefined> {
  const { url, range, init } = remote;
  const headers: Record<string, string> = { ...init.headers };
  const bytesAsked = range && `${range.offset}-${range.offset + range.length - 1}`;
  const asked = bytesAsked && `bytes ${bytesAsked}`;
  if (bytesAsked) headers.Range = `bytes=${bytesAsked}`;
  const failed = (why: string) => Object.assign(new Error(`the store failed on ${url}${asked ? ` (${asked})` : ""}: ${why}`), { code: "STORE_FAILED" });
  const answer = await request(url, init, headers, signal, failed, missingOk);
  if (!answer) return undefined;
  const validator = validatorOf(answer.response);
  checkUnchanged(url, remote.expect, validator);
  if (!range) return { bytes: answer.bytes, validator };
  const { response, bytes } = answer;
  if (response.status === 200) {
    // The whole object: the range's bytes of it, if it has them.
    if (bytes.length < range.offset + range.length) throw failed(`it answered 200 with ${bytes.length} bytes, which do not hold the range`);
    return { bytes: bytes.subarray(range.offset, range.offset + range.length), validator };
  }
  const said = response.headers.get("content-range");
  const m = said === null ? null : /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(said.trim());
  if (said !== null && (!m || Number(m[1]) !== range.offset || Number(m[2]) !== range.offset + range.length - 1)) {
    throw failed(`it answered ${said}`);
  }
  if (bytes.length !== range.length) throw failed(`it answered ${bytes.length} bytes of the ${range.length} asked for`);
  return { bytes, validator };
}

/** An object's bytes and its validator. */
export interface Validated {
  bytes: Uint8Array;
  validator?: string;
}

/**
 * The last `length` bytes of the object at `url` (a shard's index at its end) in one request
 * (`Range: bytes=-length`, where zarrita's FetchStore asks for the size first): undefined for
 * a missing object (404); a 200 gives the end of the whole object; a 206 must name the end of
 * the object (STORE_FAILED otherwise). Fewer bytes than asked (a shorter object) are returned
 * as they came, for the caller's length check.
 */
export async function fetchSuffix(url: string, init: WorkerFetchInit, length: number, signal?: AbortSignal): Promise<Validated | undefined> {
  const headers: Record<string, string> = { ...init.headers, Range: `bytes=-${length}` };
  const failed = (why: string) => Object.assign(new Error(`the store failed on ${url} (its last ${length} bytes): ${why}`), { code: "STORE_FAILED" });
  const answer = await request(url, init, headers, signal, failed, true);
  if (!answer) return undefined;
  const { response, bytes } = answer;
  const validator = validatorOf(response);
  if (response.status === 200) return { bytes: bytes.subarray(Math.max(0, bytes.length - length)), validator };
  const said = response.headers.get("content-range");
  const m = said === null ? null : /^bytes (\d+)-(\d+)\/(\d+)$/.exec(said.trim());
  if (said !== null && (!m || Number(m[2]) !== Number(m[3]) - 1 || Number(m[2]) - Number(m[1]) + 1 !== bytes.length)) {
    throw failed(`it answered ${said}`);
  }
  return { bytes, validator };
}

/** One request: its response and body; undefined for 404 where `missingOk`; STORE_FAILED (by `failed`) for any other status or a failure. */
async function request(
  url: string,
  init: WorkerFetchInit,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
  failed: (why: string) => Error,
  missingOk: boolean,
): Promise<{ response: Response; bytes: Uint8Array } | undefined> {
  try {
    const response = await fetch(url, { ...(init as RequestInit), headers, signal });
    if (response.status === 404 && missingOk) return undefined;
    if (response.status !== 200 && response.status !== 206) {
      throw failed(`Unexpected response status ${response.status} ${response.statusText}`);
    }
    return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
  } catch (e) {
    if (e instanceof Error && (e.name === "AbortError" || (e as { code?: string }).code === "STORE_FAILED")) throw e;
    throw failed(e instanceof Error ? e.message : String(e));
  }
}
