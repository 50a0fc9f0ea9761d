// Caches that never lie, round two: a server that rewrites, deletes and misbehaves under the
// package's reads, every read path. The store (tests/fixtures/server-caches, zarr-python 3.4.2):
// int32 256 x 256, shards 128 x 128 of 32 x 32 inner chunks, no compression. Version A leaves
// inner chunk (1, 1) of shard c/0/0 empty (absent from the shard); version B fills it and
// empties (0, 3), with the shard the same length and its chunks at other offsets. Every value a
// read gives is held to what zarr-python read of the version the server holds.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get, getDecoded, getStored, open, validatingFetch, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesUnder } from "../shared/files.mjs";

const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/server-caches/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const [rows, cols] = manifest.shape;
const versionOf = (v) => {
  const root = join(dir, manifest.versions[v].store);
  const files = new Map(filesUnder(root).map((p) => [p.slice(root.length).split("\\").join("/"), new Uint8Array(readFileSync(p))]));
  const b = readFileSync(join(dir, manifest.versions[v].bin));
  return { files, values: new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) };
};
const A = versionOf("a");
const B = versionOf("b");

/** The values of `selection` ([rowStart, rowEnd], [colStart, colEnd]) of a version, C order. */
function expected(version, [[r0, r1], [c0, c1]]) {
  const out = new Int32Array((r1 - r0) * (c1 - c0));
  for (let r = r0; r < r1; r++) out.set(version.values.subarray(r * cols + c0, r * cols + c1), (r - r0) * (c1 - c0));
  return out;
}
const sel = ([[r0, r1], [c0, c1]]) => [zarr.slice(r0, r1), zarr.slice(c0, c1)];
// A window over shard c/0/0 that takes in A's empty chunk (1, 1) and B's (0, 3) in part.
const WINDOW = [[16, 80], [0, 112]];
// A's empty chunk alone.
const EMPTY_A = [[32, 64], [32, 64]];
const WHOLE = [[0, rows], [0, cols]];

/**
 * A server of one version of the store at a time (`serve.version = B` rewrites it), by kind of
 * validator: "etag" (a strong ETag of the content), "weak" (the same, weak), "modified" (only
 * Last-Modified, of each version's write time `serve.modified`, with the response's Date
 * `dateLag` ms after it), "mtime-size" (nginx's ETag of the write time in seconds and the
 * length, the same Date), "every" (a new ETag on every response), "none". `shift`: a 206 names
 * (and holds) other bytes than asked for, from `shift` on. `fail(request, path)`: a function that
 * may answer a request itself (its status; `{ status, after }`, that status `after` ms later; or
 * "drop", the connection closed unanswered). Requests
 * are logged as "METHOD path range".
 */
async function serve(validators, { dateLag = 10_000 } = {}) {
  const state = { version: A, modified: Date.UTC(2026, 0, 1, 12, 0, 0), log: [], shift: 0, fail: undefined, responses: 0 };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    state.log.push(`${req.method} ${path} ${req.headers.range ?? ""}`.trim());
    const failing = state.fail?.(req, path);
    if (failing === "drop") return void req.socket.destroy();
    if (typeof failing === "object") return void setTimeout(() => res.writeHead(failing.status).end(), failing.after);
    if (failing) return void res.writeHead(failing).end();
    const body = state.version.files.get(path);
    if (!body) return void res.writeHead(404).end();
    const headers = { "Accept-Ranges": "bytes", Date: new Date(state.modified + dateLag).toUTCString() };
    const hash = createHash("sha1").update(body).digest("hex").slice(0, 16);
    if (validators === "etag") headers.ETag = `"${hash}"`;
    if (validators === "weak") headers.ETag = `W/"${hash}"`;
    if (validators === "every") headers.ETag = `"${hash}-${++state.responses}"`;
    if (validators === "modified") headers["Last-Modified"] = new Date(state.modified).toUTCString();
    if (validators === "mtime-size") headers.ETag = `"${Math.floor(state.modified / 1000).toString(16)}-${body.length.toString(16)}"`;
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!m) return void res.writeHead(200, { ...headers, "Content-Length": body.length }).end(req.method === "HEAD" ? undefined : body);
    let [start, end] = m[1] === "" ? [Math.max(0, body.length - Number(m[2])), body.length - 1] : [Number(m[1]), m[2] === "" ? body.length - 1 : Math.min(Number(m[2]), body.length - 1)];
    if (state.shift && start + state.shift + (end - start) < body.length) [start, end] = [start + state.shift, end + state.shift];
    const part = body.subarray(start, end + 1);
    res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${body.length}`, "Content-Length": part.length }).end(part);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/`;
  after(() => new Promise((r) => server.close(r)));
  return Object.assign(state, {
    url,
    /** Rewrites the store to `version`, `seconds` later (its write time). */
    rewrite(version, seconds = 2) {
      state.version = version;
      state.modified += seconds * 1000;
    },
    /** Requests for the index of shard c/0/0 (its last 260 bytes, however asked) since the `from`th request. */
    indexReads(from = 0) {
      const n = manifest.shard_length;
      return state.log.slice(from).filter((l) => l === `GET /c/0/0 bytes=-260` || l === `GET /c/0/0 bytes=${n - 260}-${n - 1}`).length;
    },
  });
}

// Every read path, over a store: a function reading a selection of one array object opened once.
const PATHS = {
  get: async (s) => { const a = await open(s); return (q) => get(a, sel(q)); },
  "get pooled": async (s) => { const a = await open(s); return (q) => get(a, sel(q), { pool }); },
  getStored: async (s) => { const a = await open(s); return (q) => getStored(a, sel(q)); },
  getDecoded: async (s) => { const a = await open(s); return async (q) => ({ data: Int32Array.from((await getDecoded(a, sel(q))).data) }); },
  wrapped: async (s) => { const a = await zarr.open.v3(zarr.root(withWasmCodecs(s)), { kind: "array" }); return (q) => zarr.get(a, sel(q)); },
  "wrapped pooled": async (s) => { const a = await zarr.open.v3(zarr.root(withWasmCodecs(s, { pool })), { kind: "array" }); return (q) => zarr.get(a, sel(q)); },
};
// The paths whose workers fetch (a plain FetchStore: the workers make the requests).
const WORKER_PATHS = {
  workerFetch: async (s) => { const a = await open(s); return (q) => get(a, sel(q), { pool, workerFetch: true }); },
  "wrapped workerFetch": async (s) => { const a = await zarr.open.v3(zarr.root(withWasmCodecs(s, { pool, workerFetch: true })), { kind: "array" }); return (q) => zarr.get(a, sel(q)); },
};

/**
 * Reads `q` of A, rewrites the store to B, reads `q` and then `also` of B: every value as
 * zarr-python read that version; `indexOnce`: the read after the rewrite reads the shard's index
 * once (the change seen, the index read again once however many chunk reads saw it).
 */
async function readAcrossRewrite(server, read, q, label, also = [], indexOnce = false) {
  assert.deepEqual((await read(q)).data, expected(A, q), `${label}: before the rewrite`);
  server.rewrite(B);
  const from = server.log.length;
  assert.deepEqual((await read(q)).data, expected(B, q), `${label}: after the rewrite`);
  if (indexOnce) assert.equal(server.indexReads(from), 1, `${label}: the index read again once`);
  for (const r of also) assert.deepEqual((await read(r)).data, expected(B, r), `${label}: after the rewrite, ${JSON.stringify(r)}`);
}

test("a rewrite the validators show: the chunks the old index called missing are read again too, on every path", async () => {
  for (const validators of ["etag", "weak", "modified", "mtime-size"]) {
    for (const [how, reader] of Object.entries({ ...PATHS, ...WORKER_PATHS })) {
      const server = await serve(validators);
      const store = how in WORKER_PATHS ? new zarr.FetchStore(server.url) : new zarr.FetchStore(server.url, { fetch: validatingFetch() });
      const read = await reader(store);
      const label = `${validators}, ${how}`;
      await readAcrossRewrite(server, read, WINDOW, label, [EMPTY_A], true);
      // A's empty chunk alone, read first while the index kept says it is missing.
      const again = await serve(validators);
      const fresh = await reader(how in WORKER_PATHS ? new zarr.FetchStore(again.url) : new zarr.FetchStore(again.url, { fetch: validatingFetch() }));
      await readAcrossRewrite(again, fresh, EMPTY_A, `${label}, the empty chunk alone`);
    }
  }
});

test("validators that cannot tell (a Last-Modified, or nginx's mtime-size ETag, of the second the answer was made): no index kept, the rewrite read right", async () => {
  for (const validators of ["modified", "mtime-size"]) {
    for (const [how, reader] of Object.entries(PATHS)) {
      const server = await serve(validators, { dateLag: 300 });
      const read = await reader(new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
      const label = `${validators} within the second, ${how}`;
      assert.deepEqual((await read(WINDOW)).data, expected(A, WINDOW), label);
      const reads = server.log.length;
      // Rewritten within the same second, the same length: the same validator.
      server.rewrite(B, 0);
      assert.deepEqual((await read(WINDOW)).data, expected(B, WINDOW), `${label}: after the rewrite`);
      assert.equal(server.indexReads(reads), 1, `${label}: the index read again ${JSON.stringify(server.log.slice(reads))}`);
    }
  }
});

test("trusted validators keep the index: a second read of an unchanged shard reads no index", async () => {
  for (const validators of ["etag", "modified"]) {
    for (const [how, reader] of Object.entries({ get: PATHS.get, wrapped: PATHS.wrapped, "get pooled": PATHS["get pooled"] })) {
      const server = await serve(validators);
      const read = await reader(new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
      const label = `${validators}, ${how}`;
      assert.deepEqual((await read(WINDOW)).data, expected(A, WINDOW), label);
      const reads = server.log.length;
      assert.deepEqual((await read(WINDOW)).data, expected(A, WINDOW), label);
      assert.equal(server.indexReads(reads), 0, `${label}: no index read again`);
    }
  }
});

test("a 206 that names other bytes than asked for is refused wherever the header is seen (STORE_FAILED, with the key)", async () => {
  for (const [how, reader] of Object.entries({ ...PATHS, ...WORKER_PATHS })) {
    const server = await serve("etag");
    const read = await reader(how in WORKER_PATHS ? new zarr.FetchStore(server.url) : new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
    server.shift = 4096;
    await assert.rejects(read(WINDOW), (e) => {
      assert.equal(e.code, "STORE_FAILED", `${how}: ${e.message}`);
      assert.match(e.key ?? "", /c\/0\/0/, `${how}: the key`);
      return true;
    }, how);
  }
});

test("through a plain FetchStore (no validator seen) no index is kept between reads: a rewrite is read right on every path", async () => {
  for (const [how, reader] of Object.entries({ ...PATHS, ...WORKER_PATHS })) {
    const server = await serve("etag");
    const read = await reader(new zarr.FetchStore(server.url));
    await readAcrossRewrite(server, read, WINDOW, `plain FetchStore, ${how}`, [EMPTY_A]);
  }
  // `immutable` keeps them: the old index applied to the new bytes (the choice it states).
  const server = await serve("none");
  const a = await open(new zarr.FetchStore(server.url));
  assert.deepEqual((await get(a, sel(WINDOW), { immutable: true })).data, expected(A, WINDOW));
  const reads = server.log.length;
  assert.deepEqual((await get(a, sel(WINDOW), { immutable: true })).data, expected(A, WINDOW));
  assert.equal(server.indexReads(reads), 0, "immutable: no index read again");
  await assert.rejects(get(a, null, { immutable: "yes" }), { code: "INVALID_ARGUMENT" });
});

test("a deleted shard reads as the fill value on every path, and a later read too", async () => {
  for (const validators of ["etag", "none"]) {
    for (const [how, reader] of Object.entries({ ...PATHS, ...WORKER_PATHS })) {
      const server = await serve(validators);
      const validating = validators === "etag" && !(how in WORKER_PATHS);
      const read = await reader(validating ? new zarr.FetchStore(server.url, { fetch: validatingFetch() }) : new zarr.FetchStore(server.url));
      const label = `${validators}, ${how}`;
      assert.deepEqual((await read(WINDOW)).data, expected(A, WINDOW), label);
      const files = new Map(A.files);
      files.delete("/c/0/0");
      server.version = { files };
      const zeros = new Int32Array(expected(A, WINDOW).length);
      assert.deepEqual((await read(WINDOW)).data, zeros, `${label}: after the delete`);
      assert.deepEqual((await read(WINDOW)).data, zeros, `${label}: a later read`);
    }
  }
});

test("a server with a new ETag on every answer: read right from the first read, its validators set aside (said once)", async (t) => {
  const warn = t.mock.method(console, "warn", () => {});
  for (const [how, reader] of Object.entries({ ...PATHS, ...WORKER_PATHS })) {
    const server = await serve("every");
    const read = await reader(how in WORKER_PATHS ? new zarr.FetchStore(server.url) : new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
    await readAcrossRewrite(server, read, WINDOW, `every answer a new ETag, ${how}`, [EMPTY_A]);
  }
  const said = warn.mock.calls.filter((c) => /different validators/.test(String(c.arguments[0])));
  assert.ok(said.length >= 1 && said.length <= Object.keys(PATHS).length + Object.keys(WORKER_PATHS).length, `warned ${said.length} times`);
});

test("workerFetch reads a shard the read wants whole in one request, through the store; a changed shard is indexed again once through zarr.get", async () => {
  for (const [how, reader] of Object.entries(WORKER_PATHS)) {
    const server = await serve("etag");
    const read = await reader(new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
    const from = server.log.length;
    assert.deepEqual((await read(WHOLE)).data, expected(A, WHOLE), how);
    const asked = server.log.slice(from).filter((l) => /\/c\//.test(l));
    assert.deepEqual(asked.sort(), ["GET /c/0/0", "GET /c/0/1", "GET /c/1/0", "GET /c/1/1"], `${how}: one request a shard`);
    // A window (not whole shards) after a rewrite: its index read once, however many chunks zarr.get asks for.
    assert.deepEqual((await read(WINDOW)).data, expected(A, WINDOW), how);
    server.rewrite(B);
    const before = server.log.length;
    assert.deepEqual((await read(WINDOW)).data, expected(B, WINDOW), `${how}: after the rewrite`);
    assert.equal(server.indexReads(before), 1, `${how}: the changed shard's index read again once`);
  }
});

test("sharded arrays in a Map (a store without getRange): open + get, getDecoded and zarr.get over the wrapped store read them", async () => {
  const store = new Map([...A.files].map(([k, v]) => [k, v]));
  const plain = { get: async (k) => store.get(k) };
  const a = await open(plain);
  assert.deepEqual((await get(a, sel(WINDOW))).data, expected(A, WINDOW));
  assert.deepEqual((await get(a, sel(WHOLE), { pool })).data, expected(A, WHOLE));
  assert.deepEqual(Int32Array.from((await getDecoded(a, sel(EMPTY_A))).data), expected(A, EMPTY_A));
  const w = await zarr.open.v3(zarr.root(withWasmCodecs(plain)), { kind: "array" });
  assert.deepEqual((await zarr.get(w, sel(WINDOW))).data, expected(A, WINDOW));
  // zarrita's own getChunk (no package path for it) reads through the wrapped store's getRange too.
  assert.deepEqual((await zarr.get(await zarr.open.v3(zarr.root(withWasmCodecs(plain)), { kind: "array" }), sel(WHOLE))).data, expected(A, WHOLE));
});

test("STORE_FAILED from a failed index read names the key, on every path", async () => {
  for (const [how, reader] of Object.entries({ ...PATHS, ...WORKER_PATHS })) {
    const server = await serve("etag");
    const read = await reader(how in WORKER_PATHS ? new zarr.FetchStore(server.url) : new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
    for (const status of [500, 416]) {
      server.fail = (req, path) => (path === "/c/0/0" && req.headers.range ? status : undefined);
      await assert.rejects(read(WINDOW), (e) => {
        assert.equal(e.code, "STORE_FAILED", `${how}, ${status}: ${e.message}`);
        assert.match(e.key ?? "", /c\/0\/0/, `${how}, ${status}: the key (${e.message})`);
        return true;
      });
    }
  }
});

test("workerFetch over a store whose fetch is the app's own is refused (UNSUPPORTED); the index is read through that fetch", async () => {
  const server = await serve("etag");
  let calls = 0;
  const mine = (request) => (calls++, fetch(request));
  const a = await open(new zarr.FetchStore(server.url, { fetch: validatingFetch(mine) }));
  const before = calls;
  await assert.rejects(get(a, sel(WINDOW), { pool, workerFetch: true }), (e) => e.code === "UNSUPPORTED" && /app's own/.test(e.message));
  assert.ok(calls > before, "the index read through the app's fetch");
  // Without workerFetch the pool reads it through the app's fetch.
  assert.deepEqual((await get(a, sel(WINDOW), { pool })).data, expected(A, WINDOW));
});

test("a retry after a failed read makes fresh requests; a dropped connection is retried once by the workers", async () => {
  const server = await serve("etag");
  // Shard c/0/1's index fails at once; c/0/0's fails too, but only after the read has failed.
  const n = manifest.shard_length;
  server.fail = (req, path) => {
    if (req.headers.range !== `bytes=${n - 260}-${n - 1}`) return undefined;
    if (path === "/c/0/1") return 500;
    if (path === "/c/0/0") return { status: 500, after: 300 };
    return undefined;
  };
  const a = await open(new zarr.FetchStore(server.url));
  const both = [[0, 128], [64, 192]];
  await assert.rejects(get(a, sel(both)), { code: "STORE_FAILED" });
  server.fail = undefined;
  assert.deepEqual((await get(a, sel(both))).data, expected(A, both), "the retry right after");
  // A connection dropped unanswered, once, under a worker's run: fetched again.
  let dropped = 0;
  server.fail = (req) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    return range && Number(range[2]) !== n - 1 && !dropped++ ? "drop" : undefined;
  };
  const w = await open(new zarr.FetchStore(server.url, { fetch: validatingFetch() }));
  assert.deepEqual((await get(w, sel(WINDOW), { pool, workerFetch: true })).data, expected(A, WINDOW));
  assert.ok(dropped >= 1, "a connection dropped");
});
