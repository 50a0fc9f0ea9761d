// Which version of a stored object bytes came from: the validator a server gives a response
// (ETag, or Last-Modified), whether it can tell two versions apart, and the check that a shard's
// bytes come from the version its kept index was read from. Used on the main thread and in the
// pool's workers (which fetch runs themselves: js/stores/remote.ts), so it imports nothing.

/**
 * A response's validator: `tag`, its ETag (else its Last-Modified date), as the server gave it;
 * `trusted`, whether it tells every later version from this one. A Last-Modified date (and an
 * ETag made of one, nginx's `"mtime-size"`) has a one-second resolution: a rewrite of the same
 * length within the second the response was made would carry the same one. It is trusted only
 * where the response's `Date` is at least a second after it (no response's Date seen: not).
 */
export interface Version {
  tag: string;
  trusted: boolean;
}

/** The validator of `response` (see `Version`); undefined where it gives neither ETag nor Last-Modified. */
export function validatorOf(response: Response): Version | undefined {
  const headers = response.headers;
  const etag = headers.get("etag");
  const date = Date.parse(headers.get("date") ?? "");
  // Whether a modification at `modified` (ms) was a second or more before the response was made.
  const settled = (modified: number) => Number.isFinite(modified) && Number.isFinite(date) && modified <= date - 1000;
  if (etag) {
    const stamp = MTIME_SIZE.exec(etag);
    return { tag: `ETag ${etag}`, trusted: !stamp || settled(parseInt(stamp[1], 16) * 1000) };
  }
  const modified = headers.get("last-modified");
  return modified ? { tag: `Last-Modified ${modified}`, trusted: settled(Date.parse(modified)) } : undefined;
}

/**
 * An ETag made of a modification time in seconds and a length, both in hex (nginx's, and
 * other servers' for static files): the time is one a second resolves. (Only a time since
 * 2001, as eight hex digits, is taken for one: a hash is longer.)
 */
const MTIME_SIZE = /^(?:W\/)?"([0-9a-f]{8})-([0-9a-f]{1,16})"$/;

/**
 * Refuses (STORE_CHANGED) an answer for the object at `where` whose validator says it changed
 * since `before` (the tag its shard's index came with): both known, of one kind, and
 * different. The error carries the answer's tag (`validator`).
 */
export function checkUnchanged(where: string, before: string | undefined, now: Version | undefined): void {
  if (before && now && before !== now.tag && before.split(" ", 1)[0] === now.tag.split(" ", 1)[0]) {
    throw Object.assign(new Error(`${where} changed since its shard index was read (${before} -> ${now.tag})`), {
      code: "STORE_CHANGED",
      validator: now.tag,
    });
  }
}
