// `options.workerFetch`: with a pool over zarrita's FetchStore, the workers fetch the chunks
// themselves. Every store zarr-python wrote (tests/fixtures/stores) reads over HTTP exactly as
// zarr-python read it, in both output modes, with no chunk fetched on the main thread (shard
// indexes are); the request options reach the server; a missing chunk is the fill value; a
// server error, a short range and a damaged chunk are errors with a code naming the array and
// the chunk, and the pool goes on; an abort stops the workers' fetches; options a worker
// cannot take are refused before anything is read.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { errorCode, get, getDecoded, registerCodecs, WorkerPool } from "zarr-wasm-codecs";
import { serve } from "../../../scripts/serve.mjs";
import { filesIn, serveFiles } from "../shared/files.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const expectedOf = (c) => readFileSync(join(dir, c.expected));

const pool = new WorkerPool(2);
after(() => pool.terminate());

/** A FetchStore that lists the keys this thread fetched (metadata left out), whole and by range. */
class Watched extends zarr.FetchStore {
  fetched = [];
  async get(key, options) {
    if (!/(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/.test(key)) this.fetched.push(key);
    return super.get(key, options);
  }
  async getRange(key, range, options) {
    this.fetched.push(`${key} ${"suffixLength" in range ? "index" : "range"}`);
    return super.getRange(key, range, options);
  }
}

test("every zarr-python store reads exactly with the workers fetching, in both output modes; this thread fetches no chunk", async () => {
  const server = await serve(dir);
  try {
    // (Not the arrays the package refuses, nor those it hands to zarr.get, which fetches here.)
    for (const c of manifest.filter((m) => !m.refused && !m.fallback)) {
      const store = new Watched(`http://127.0.0.1:${server.address().port}/${c.store}`);
      const root = zarr.root(store);
      const arr = await zarr.open(c.path ? root.resolve(c.path) : root, { kind: "array" });
      const want = expectedOf(c);
      const read = c.decoded ? getDecoded : get;
      // (Shard indexes, and shards a read wants whole, are read on this thread, through the
      // store: a whole read of a sharded array reads each shard in one request, its index from
      // its bytes; nested shards have their inner indexes read by range.)
      const sharded = JSON.stringify(c.codecs).includes("sharding_indexed");
      const nested = (JSON.stringify(c.codecs).match(/sharding_indexed/g) ?? []).length > 1;
      for (const options of [{ pool, workerFetch: true }, { pool, useSharedArrayBuffer: false, workerFetch: true }]) {
        store.fetched.length = 0;
        const got = await read(arr, null, options);
        assert.deepEqual(got.shape, c.shape, c.case);
        assert.ok(bits(got.data).equals(want), `${c.case} (shared output: ${options.useSharedArrayBuffer !== false}): values differ`);
        const whole = store.fetched.filter((k) => !k.includes(" "));
        if (!sharded) assert.deepEqual(store.fetched, [], `${c.case}: fetched on this thread`);
        else if (nested) assert.deepEqual(whole, [], `${c.case}: no shard fetched whole on this thread`);
        else assert.deepEqual(store.fetched, [...new Set(whole)], `${c.case}: each shard once, whole, on this thread`);
      }
    }
  } finally {
    server.close();
  }
});



async function openOver(url, c) {
  const root = zarr.root(new zarr.FetchStore(url));
  return zarr.open(c.path ? root.resolve(c.path) : root, { kind: "array" });
}

test("the workers' requests carry workerFetch's headers; missing chunks (404) read as the fill value", async () => {
  const metadata = /(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/;
  for (const name of ["v2_fill_nan", "v3_sharded_missing"]) {
    const c = manifest.find((m) => m.case === name);
    const files = filesIn(join(dir, c.store));
    const { server, requests, url } = await serveFiles(files);
    try {
      const arr = await openOver(url, c);
      // (The sharded array's first column: part of each shard it touches, read by range.)
      const selection = name === "v2_fill_nan" ? null : [null, zarr.slice(0, 1)];
      const got = await get(arr, selection, { pool, workerFetch: { headers: { "x-token": "abc" }, cache: "no-store" } });
      const item = got.data.BYTES_PER_ELEMENT;
      const column = (b) => Buffer.concat(Array.from({ length: c.shape[0] }, (_, r) => b.subarray(r * c.shape[1] * item, (r * c.shape[1] + 1) * item)));
      assert.ok(bits(got.data).equals(selection ? column(expectedOf(c)) : expectedOf(c)), name);
      const workers = requests.filter((r) => r.headers["x-token"] === "abc");
      assert.ok(workers.length > 0 && workers.every((r) => r.method === "GET" && !metadata.test(r.path)), name);
      if (name === "v2_fill_nan") {
        // Every chunk was asked for by the workers, the missing ones too (answered 404).
        assert.ok(requests.filter((r) => !metadata.test(r.path)).every((r) => r.headers["x-token"] === "abc"), name);
        assert.ok(c.missing_chunks.length > 0 && workers.some((r) => !files.has(r.path)), `${name}: a missing chunk asked for`);
      } else {
        // Each shard's index is read through the store (without workerFetch's options); the
        // workers fetch inner chunks by range, with them.
        const store = requests.filter((r) => r.headers["x-token"] === undefined && !metadata.test(r.path));
        assert.ok(store.length > 0 && store.every((r) => r.method === "HEAD" || /^bytes=\d+-\d+$/.test(r.headers.range)), name);
        assert.ok(workers.every((r) => /^bytes=\d+-\d+$/.test(r.headers.range)), name);
      }
    } finally {
      server.close();
    }
  }
});

test("a server error, a short range and a damaged chunk: errors with a code naming the array and chunk; the pool goes on", async () => {
  const c = manifest.find((m) => m.case === "v3_default");
  const sharded = manifest.find((m) => m.case === "v3_sharded_end");
  const files = filesIn(join(dir, c.store));
  const chunk = [...files.keys()].find((k) => k.startsWith("/c/"));
  const key = chunk.slice(1);
  // 500 for one chunk.
  let site = await serveFiles(files, (path, _req, res) => path === chunk && (res.writeHead(500).end(), true));
  try {
    const arr = await openOver(site.url, c);
    const e = await get(arr, null, { pool, workerFetch: true }).then(() => assert.fail("read"), (e) => e);
    assert.equal(errorCode(e), "STORE_FAILED", e.message);
    assert.match(e.message, new RegExp(`^array "/": chunk ${key}: the store failed on .*${key}: Unexpected response status 500`));
  } finally {
    site.server.close();
  }
  // A damaged chunk (its zstd frame cut short).
  const damaged = new Map(files);
  damaged.set(chunk, files.get(chunk).subarray(0, files.get(chunk).length - 7));
  site = await serveFiles(damaged);
  try {
    const arr = await openOver(site.url, c);
    const e = await get(arr, null, { pool, workerFetch: true }).then(() => assert.fail("read"), (e) => e);
    assert.equal(errorCode(e), "CORRUPT_CHUNK", e.message);
    assert.match(e.message, new RegExp(`^array "/": chunk ${key}: `));
  } finally {
    site.server.close();
  }
  // An inner chunk's range answered short (206 with fewer bytes and no Content-Range).
  const shardFiles = filesIn(join(dir, sharded.store));
  site = await serveFiles(shardFiles, (path, req, res) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    // (Not the index at the shard's end, which the store reads.)
    if (!range || !path.startsWith("/c/") || Number(range[2]) === shardFiles.get(path).length - 1) return false;
    const bytes = shardFiles.get(path).subarray(Number(range[1]), Number(range[2]));
    res.writeHead(206, { "content-length": bytes.length }).end(bytes);
    return true;
  });
  try {
    const arr = await openOver(site.url, sharded);
    // (Part of each shard: its inner chunks fetched by range, not the shard whole.)
    const e = await get(arr, [null, zarr.slice(0, 40, 2)], { pool, workerFetch: true }).then(() => assert.fail("read"), (e) => e);
    // (The workers fetch a shard's inner chunks as one merged range: the answer is short of it.)
    assert.equal(errorCode(e), "STORE_FAILED", e.message);
    assert.match(e.message, /^array "\/": chunk c\/\d+\/\d+ \(inner chunk \d+\): the store failed on http:\S+\/c\/\d+\/\d+ \(bytes \d+-\d+\): it answered \d+ bytes of the \d+ asked for/);
  } finally {
    site.server.close();
  }
  // The pool still reads, the workers still fetching.
  await readsAgain(c, files);
});

/** The pool reads `c` exactly again, the workers fetching, from `files` served anew. */
async function readsAgain(c, files) {
  const site = await serveFiles(files);
  try {
    const got = await get(await openOver(site.url, c), null, { pool, workerFetch: true });
    assert.ok(bits(got.data).equals(expectedOf(c)), `${c.case}: read again`);
  } finally {
    site.server.close();
  }
}

test("an abort rejects at once and stops the workers' fetches; the pool goes on", async () => {
  const c = manifest.find((m) => m.case === "v3_default");
  const files = filesIn(join(dir, c.store));
  // Chunks are answered only after a long wait: the workers' requests are in flight when the abort comes.
  const held = [];
  const site = await serveFiles(files, (path, _req, res) => path.startsWith("/c/") && held.push(res) > 0);
  try {
    const arr = await openOver(site.url, c);
    const controller = new AbortController();
    const read = get(arr, null, { pool, workerFetch: true, signal: controller.signal });
    while (site.requests.filter((r) => r.path.startsWith("/c/")).length < 2) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await assert.rejects(read, { name: "AbortError" });
    // Each request the workers had sent is closed by them, unanswered.
    const asked = site.requests.filter((r) => r.path.startsWith("/c/"));
    for (let i = 0; i < 200 && !asked.every((r) => r.closed); i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(asked.every((r) => r.closed), `${asked.filter((r) => !r.closed).length} of ${asked.length} requests still open`);
  } finally {
    for (const res of held) res.destroy();
    site.server.close();
  }
  await readsAgain(c, files);
});

test("workerFetch a worker cannot honour is refused before any chunk is read (INVALID_ARGUMENT); without a pool it is not used", async () => {
  const c = manifest.find((m) => m.case === "v3_default");
  const files = filesIn(join(dir, c.store));
  const site = await serveFiles(files);
  try {
    const arr = await openOver(site.url, c);
    const memory = await zarr.open(zarr.root(new Map([...files].map(([k, v]) => [k, v]))), { kind: "array" });
    const refused = [
      [memory, true, /needs a store with a url/],
      [arr, "yes", /must be a boolean or an object/],
      [arr, { headers: { a: 1 } }, /headers must be a Headers or an object of strings/],
      [arr, { signal: new AbortController().signal }, /workerFetch\.signal/],
      [arr, { credentials: 3 }, /workerFetch\.credentials/],
    ];
    for (const [a, workerFetch, message] of refused) {
      const before = site.requests.length;
      const e = await get(a, null, { pool, workerFetch }).then(() => assert.fail(String(workerFetch)), (e) => e);
      assert.equal(errorCode(e), "INVALID_ARGUMENT", e.message);
      assert.match(e.message, message);
      assert.equal(site.requests.length, before, "nothing fetched");
    }
    // A Headers object is taken as its entries.
    const got = await get(arr, null, { pool, workerFetch: { headers: new Headers({ "x-a": "b" }) } });
    assert.ok(bits(got.data).equals(expectedOf(c)));
    assert.ok(site.requests.some((r) => r.headers["x-a"] === "b"));
    // Without a pool, the store fetches (its requests carry no such header).
    const n = site.requests.length;
    const plain = await get(arr, null, { workerFetch: { headers: { "x-b": "c" } } });
    assert.ok(bits(plain.data).equals(expectedOf(c)));
    assert.ok(site.requests.length > n && site.requests.slice(n).every((r) => r.headers["x-b"] === undefined));
  } finally {
    site.server.close();
  }
});
