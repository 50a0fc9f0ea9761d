// Helpers the Node tests share (not a test file itself).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Every file below `dir`, as paths. */
export function filesUnder(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * A store directory held in memory, as zarrita reads a store: `get` by key ("/zarr.json",
 * "/c/0/0"), and `getRange` (offset and length, or a suffix) for sharded arrays. `files` holds
 * the files by key; `requests` lists the requests made (a key, or "KEY suffix" / "KEY range").
 */
export function memoryStore(dir) {
  const files = filesIn(dir);
  const requests = [];
  const range = (b, r) => ("suffixLength" in r ? b.slice(b.length - r.suffixLength) : b.slice(r.offset, r.offset + r.length));
  return {
    files,
    requests,
    get: async (k) => (requests.push(k), files.get(k)),
    getRange: async (k, r) => (requests.push(`${k} ${"suffixLength" in r ? "suffix" : "range"}`), files.has(k) ? range(files.get(k), r) : undefined),
  };
}

/** The error `f` rejects with (fails the test if it does not reject). */
export async function rejection(f) {
  try {
    await f();
  } catch (e) {
    return e;
  }
  assert.fail("did not reject");
}

/** The elements of a C-order array at odd indices along every dimension (slice(1, d, 2)). */
export function everyOther(values, shape) {
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const counts = shape.map((d) => Math.floor(d / 2));
  const out = new values.constructor(counts.reduce((a, b) => a * b, 1));
  const index = counts.map(() => 0);
  for (let n = 0; n < out.length; n++) {
    out[n] = values[index.reduce((at, k, i) => at + (1 + 2 * k) * strides[i], 0)];
    for (let i = index.length - 1; i >= 0 && ++index[i] === counts[i]; i--) index[i] = 0;
  }
  return out;
}

/** The files below `dir`, by store key ("/zarr.json", "/c/0/0"), as bytes. */
export function filesIn(dir) {
  return new Map(filesUnder(dir).map((p) => ["/" + relative(dir, p).split(sep).join("/"), new Uint8Array(readFileSync(p))]));
}

/**
 * `files` (see `filesIn`) served over HTTP on loopback as a static server does (404, byte
 * ranges and suffixes), every request recorded (`{ path, method, range, headers, closed }`:
 * `closed`, the client closed it before the answer ended); `answer(path, req, res)` may answer
 * a request itself (returning true).
 */
export async function serveFiles(files, answer = () => false) {
  const { createServer } = await import("node:http");
  const requests = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://localhost").pathname);
    const entry = { path, method: req.method, range: req.headers.range, headers: req.headers, closed: false };
    requests.push(entry);
    res.on("close", () => (entry.closed = !res.writableFinished));
    if (answer(path, req, res)) return;
    const bytes = files.get(path);
    if (!bytes) return void res.writeHead(404).end();
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!range) return void res.writeHead(200, { "content-length": bytes.length }).end(bytes);
    const [start, end] = range[1] === "" ? [bytes.length - Number(range[2]), bytes.length - 1] : [Number(range[1]), Math.min(Number(range[2]), bytes.length - 1)];
    res.writeHead(206, { "content-length": end - start + 1, "content-range": `bytes ${start}-${end}/${bytes.length}` }).end(bytes.subarray(start, end + 1));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, requests, url: `http://127.0.0.1:${server.address().port}` };
}

