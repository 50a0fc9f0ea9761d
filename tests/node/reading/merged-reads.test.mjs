// Merged range reads (issue: a viewer's reads). Over zarr-python 3.4.2's sharded stores
// (tests/fixtures/stores; values held to its expected.bin), counted by a recording store or
// server: a whole read makes one data request a shard, a window one a shard it touches, on every
// path (get, getDecoded, getStored, pooled, the workers fetching, zarr.get over the wrapped
// store); merged answers split back exactly; the limits are options; an aborted read never
// aborts another's request; bad servers give the right values or STORE_FAILED naming the path
// and the range; one abort listener on a signal however many reads share it; the shard-index
// cache stays within its bound over a long pan (a store said to be `immutable`).
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { errorCode, get, getDecoded, getStored, open, set, validatingFetch, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesIn, serveFiles } from "../shared/files.mjs";

const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const caseOf = (name) => manifest.find((m) => m.case === name);
const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const expectedOf = (c) => readFileSync(join(dir, c.expected));


/** An in-memory store of `files` that records every request: whole gets (chunk files) and ranges, by kind. */
function recording(files) {
  const log = { data: [], index: [], whole: [] };
  const slice = (b, r) => ("suffixLength" in r ? b.slice(b.length - r.suffixLength) : b.slice(r.offset, r.offset + r.length));
  return {
    log,
    async get(key) {
      if (!/(zarr\.json|\.zarray|\.zattrs)$/.test(key)) log.whole.push(key);
      return files.get(key);
    },
    async getRange(key, range) {
      (("suffixLength" in range) ? log.index : log.data).push(key);
      await new Promise((r) => setTimeout(r, 1));
      return files.has(key) ? slice(files.get(key), range) : undefined;
    },
  };
}

// v3_sharded_end: 40 x 50 float64, shards 20 x 25 (2 x 2 = 4 shards), inner chunks 10 x 5 (10 a shard), zstd, crc32c index at the end.
const sharded = caseOf("v3_sharded_end");
const [ROWS, COLS] = [40, 50];
const expected = new Float64Array(expectedOf(sharded).buffer.slice(0));
function windowOf([r0, r1, c0, c1]) {
  const want = [];
  for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) want.push(expected[i * COLS + j]);
  return want;
}
const perShard = (paths) => [...new Set(paths)].map((p) => paths.filter((q) => q === p).length);

const paths = {
  "get": (s, sel, o) => open(s).then((a) => get(a, sel, o)),
  "get pooled": (s, sel, o) => open(s).then((a) => get(a, sel, { ...o, pool })),
  "get pooled, transferred": (s, sel, o) => open(s).then((a) => get(a, sel, { ...o, pool, useSharedArrayBuffer: false })),
  "getStored": (s, sel, o) => open(s).then((a) => getStored(a, sel, o)),
  "zarr.get over withWasmCodecs": (s, sel, o) =>
    zarr.open.v3(zarr.root(withWasmCodecs(s, o)), { kind: "array" }).then((a) => zarr.get(a, sel)),
  "zarr.get over withWasmCodecs, pooled": (s, sel, o) =>
    zarr.open.v3(zarr.root(withWasmCodecs(s, { ...o, pool })), { kind: "array" }).then((a) => zarr.get(a, sel)),
};

test("a whole sharded read makes one data request a shard, a window one a shard it touches, on every path; values exact", async () => {
  const files = filesIn(join(dir, sharded.store));
  for (const [name, read] of Object.entries(paths)) {
    // The whole array: 4 shards, each wanted whole: one request a shard, its index read from it.
    let store = recording(files);
    let got = await read(store, null);
    assert.ok(bits(got.data).equals(bits(expected)), `${name}: values`);
    assert.deepEqual(perShard(store.log.whole), [1, 1, 1, 1], `${name}: ${JSON.stringify(store.log)}`);
    assert.equal(store.log.data.length + store.log.index.length, 0, name);
    // Windows: in one shard (every inner chunk of it touched: the shard whole); in one shard,
    // part of it (its index, then one range); across all four, part of each (not aligned to
    // inner chunks: four indexes, four ranges).
    for (const [w, shards, indexes] of [[[2, 18, 3, 22], 1, 0], [[2, 8, 3, 12], 1, 1], [[15, 25, 20, 30], 4, 4]]) {
      store = recording(files);
      const sel = [zarr.slice(w[0], w[1]), zarr.slice(w[2], w[3])];
      got = await read(store, sel);
      assert.deepEqual([...got.data], windowOf(w), `${name} ${w}`);
      const requests = [...store.log.data, ...store.log.whole];
      assert.deepEqual(perShard(requests), Array(shards).fill(1), `${name} ${w}: ${JSON.stringify(store.log)}`);
      assert.equal(store.log.index.length, indexes, `${name} ${w}: indexes read`);
    }
  }
  // getDecoded (float64 with no packing: the values themselves).
  const store = recording(files);
  const got = await getDecoded(await open(store));
  assert.ok(bits(got.data).equals(bits(expected)));
  assert.equal(store.log.whole.length, 4);
});

test("the merge limits are options: size 0 asks for each inner chunk alone; the values are the same", async () => {
  const files = filesIn(join(dir, sharded.store));
  // zarrita asks for each inner chunk that is there alone.
  const theirs = recording(files);
  await zarr.get(await zarr.open.v3(zarr.root(theirs), { kind: "array" }));
  assert.ok(theirs.log.data.length > 4);
  for (const [name, read] of Object.entries(paths)) {
    const store = recording(files);
    const got = await read(store, null, { mergeRanges: { size: 0 } });
    assert.ok(bits(got.data).equals(bits(expected)), name);
    assert.equal(store.log.data.length, theirs.log.data.length, `${name}: one request an inner chunk`);
  }
  // A read of every other column of inner chunks: gaps of one chunk's bytes, merged with the default
  // gap, not with gap 0.
  for (const [gap, most] of [[undefined, 4], [0, 40]]) {
    const store = recording(files);
    const arr = await open(store);
    const sel = [null, zarr.slice(0, 50, 10)];
    const got = await get(arr, sel, gap === undefined ? {} : { mergeRanges: { gap } });
    const want = [];
    for (let i = 0; i < ROWS; i++) for (let j = 0; j < COLS; j += 10) want.push(expected[i * COLS + j]);
    assert.deepEqual([...got.data], want);
    assert.ok(store.log.data.length <= most, `gap ${gap}: ${store.log.data.length} requests`);
    if (gap === 0) assert.ok(store.log.data.length > 4, `gap 0: ${store.log.data.length} requests (no gap bridged)`);
  }
  const arr = await open(recording(files));
  for (const mergeRanges of [{ gap: -1 }, { size: 1.5 }, "big", null]) {
    await assert.rejects(get(arr, null, { mergeRanges }), (e) => e.code === "INVALID_ARGUMENT" && /mergeRanges/.test(e.message), JSON.stringify(mergeRanges));
  }
});

test("nested and transposed shards, and a shard with missing chunks, read exactly with merged requests", async () => {
  for (const name of ["v3_nested_sharded", "v3_nested_sharded_deep", "v3_transpose_sharded_end", "v3_sharded_missing", "v3_sharded_start", "v3_transpose_nested_sharded"]) {
    const c = caseOf(name);
    const files = filesIn(join(dir, c.store));
    for (const options of [{}, { pool }]) {
      const store = recording(files);
      const root = zarr.root(store);
      const arr = await open(c.path ? root.resolve(c.path) : root);
      const got = await get(arr, null, options);
      assert.ok(bits(got.data).equals(expectedOf(c)), `${name} ${Object.keys(options)}`);
      // (Nested shards' inner indexes are ranges too, read one by one.)
      const alone = recording(files);
      const again = await get(await open(c.path ? zarr.root(alone).resolve(c.path) : zarr.root(alone)), null, { ...options, mergeRanges: { size: 0 } });
      assert.ok(bits(again.data).equals(expectedOf(c)), `${name} ${Object.keys(options)}, unmerged`);
      // Shards read whole (one request each, nothing else), but for nested ones (their indexes
      // first, inner indexes by range).
      const requests = store.log.data.length + store.log.whole.length + store.log.index.length;
      if (!name.includes("nested")) assert.equal(requests, new Set(store.log.whole).size, `${name}: ${JSON.stringify(store.log)}`);
      assert.ok(requests < alone.log.data.length + alone.log.index.length, `${name}: ${requests} requests merged, more not`);
    }
  }
});


const dataRequests = (requests) => requests.filter((r) => r.path.startsWith("/c/") && r.method === "GET" && /^bytes=\d+-\d+$/.test(r.range ?? ""));

test("over HTTP, the workers fetch one merged range a shard and decode its chunks; a shard read whole is one request through the store (get and zarr.get over the wrapped store)", async () => {
  const files = filesIn(join(dir, sharded.store));
  const site = await serveFiles(files);
  // (A window of part of the two shards of the first 25 columns, whose last column of inner
  // chunks it leaves out: ranges, not whole shards.)
  const part = [null, zarr.slice(0, 20)];
  try {
    for (const [how, read] of Object.entries({
      get: async (sel) => get(await zarr.open.v3(zarr.root(new zarr.FetchStore(site.url)), { kind: "array" }), sel, { pool, workerFetch: true }),
      wrapped: async (sel) => zarr.get(await zarr.open.v3(zarr.root(withWasmCodecs(new zarr.FetchStore(site.url), { pool, workerFetch: true })), { kind: "array" }), sel),
    })) {
      site.requests.length = 0;
      const got = await read(part);
      assert.deepEqual([...got.data], [...expected].filter((_, i) => i % COLS < 20), how);
      // Each shard: its index (through the store: zarrita's FetchStore asks for its size, then
      // its last bytes), then one range for its chunks, fetched by a worker.
      const shardRequests = site.requests.filter((r) => r.path.startsWith("/c/"));
      const last = (r) => Number(/-(\d+)$/.exec(r.range ?? "")?.[1]) === files.get(r.path).length - 1;
      assert.deepEqual(perShard(shardRequests.filter((r) => r.method === "HEAD").map((r) => r.path)), [1, 1], `${how}: the size of each shard`);
      assert.deepEqual(perShard(shardRequests.filter((r) => r.method === "GET" && last(r)).map((r) => r.path)), [1, 1], `${how}: an index request a shard`);
      assert.deepEqual(perShard(dataRequests(site.requests).filter((r) => !last(r)).map((r) => r.path)), [1, 1], `${how}: one data range a shard: ${JSON.stringify(shardRequests)}`);
      // The whole array: each shard one request, its index read from its bytes.
      site.requests.length = 0;
      assert.ok(bits((await read(null)).data).equals(bits(expected)), how);
      assert.deepEqual(site.requests.filter((r) => r.path.startsWith("/c/")).map((r) => `${r.method} ${r.range ?? ""}`), Array(4).fill("GET "), `${how}: a request a shard`);
    }
  } finally {
    site.server.close();
  }
});

test("bad servers: a range answered whole (200), short, with another Content-Range or cut: the right values or STORE_FAILED naming the path and the range", async () => {
  const files = filesIn(join(dir, sharded.store));
  const isData = (path, req) => path.startsWith("/c/") && /^bytes=\d+-\d+$/.exec(req.headers.range ?? "") && req.method === "GET";
  const lastByte = (path, req) => Number(/-(\d+)$/.exec(req.headers.range)[1]) === files.get(path).length - 1;
  const servers = {
    whole: (path, req, res) => isData(path, req) && !lastByte(path, req) && (res.writeHead(200, { "content-length": files.get(path).length }).end(files.get(path)), true),
    short: (path, req, res) => {
      if (!isData(path, req) || lastByte(path, req)) return false;
      const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range).map(Number);
      const bytes = files.get(path).subarray(a, b);
      res.writeHead(206, { "content-length": bytes.length, "content-range": `bytes ${a}-${b - 1}/${files.get(path).length}` }).end(bytes);
      return true;
    },
    shifted: (path, req, res) => {
      if (!isData(path, req) || lastByte(path, req)) return false;
      const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range).map(Number);
      const bytes = files.get(path).subarray(a + 1, b + 2);
      res.writeHead(206, { "content-length": bytes.length, "content-range": `bytes ${a + 1}-${b + 1}/${files.get(path).length}` }).end(bytes);
      return true;
    },
    cut: (path, req, res) => {
      if (!isData(path, req) || lastByte(path, req)) return false;
      const [, a, b] = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range).map(Number);
      res.writeHead(206, { "content-length": b - a + 1, "content-range": `bytes ${a}-${b}/${files.get(path).length}` });
      res.write(files.get(path).subarray(a, a + 10));
      setTimeout(() => res.destroy(), 5);
      return true;
    },
  };
  for (const [kind, answer] of Object.entries(servers)) {
    const site = await serveFiles(files, answer);
    try {
      // (A window of part of each shard: ranges, not whole shards.)
      const part = [null, zarr.slice(0, 40, 2)];
      const reads = {
        "this thread": async () => get(await zarr.open.v3(zarr.root(new zarr.FetchStore(site.url)), { kind: "array" }), part),
        "this thread, validatingFetch": async () => get(await zarr.open.v3(zarr.root(new zarr.FetchStore(site.url, { fetch: validatingFetch() })), { kind: "array" }), part),
        "the workers": async () => get(await zarr.open.v3(zarr.root(new zarr.FetchStore(site.url)), { kind: "array" }), part, { pool, workerFetch: true }),
      };
      for (const [who, read] of Object.entries(reads)) {
        // zarrita's FetchStore does not show this thread the answer's Content-Range: a shifted
        // range of the right length is caught where the package sees the headers only
        // (validatingFetch, the workers' own fetch: docs/reading.md).
        if (kind === "shifted" && who === "this thread") continue;
        const outcome = await read().then((got) => got, (e) => e);
        const seesHeaders = who !== "this thread";
        if (outcome instanceof Error) {
          assert.equal(errorCode(outcome), "STORE_FAILED", `${kind}, ${who}: ${outcome.message}`);
          assert.match(outcome.message, /\/c\/\d\/\d/, `${kind}, ${who}: names the path`);
          assert.match(outcome.message, /bytes \d+-\d+/, `${kind}, ${who}: names the range`);
          assert.ok(kind !== "whole" || !seesHeaders, `${kind}, ${who}: the range taken out of a whole answer`);
        } else {
          assert.deepEqual([...outcome.data], [...expected].filter((_, i) => i % COLS < 40 && i % 2 === 0), `${kind}, ${who}: values`);
          assert.equal(kind, "whole", `${kind}, ${who}: read without an error`);
          assert.ok(seesHeaders, `${kind}, ${who}: a whole answer where the headers are seen`);
        }
      }
    } finally {
      site.server.close();
    }
  }
});

test("an aborted read never aborts a request another read still needs; both through the wrapped store and get", async () => {
  const files = filesIn(join(dir, sharded.store));
  // Every request is held 30 ms: the abort comes while the shared index requests are in flight.
  const base = recording(files);
  const slow = {
    get: async (key, opts) => {
      if (key.includes("/c/")) await new Promise((r) => setTimeout(r, 30));
      opts?.signal?.throwIfAborted();
      return base.get(key);
    },
    getRange: async (key, range, opts) => {
      await new Promise((r) => setTimeout(r, 30));
      opts?.signal?.throwIfAborted();
      return base.getRange(key, range);
    },
  };
  for (const wrapped of [false, true]) {
    const store = wrapped ? withWasmCodecs(slow) : slow;
    const arr = wrapped ? await zarr.open.v3(zarr.root(store), { kind: "array" }) : await open(store);
    const read = (signal) => (wrapped ? zarr.get(arr, null, { signal }) : get(arr, null, { signal }));
    const first = new AbortController();
    const aborted = read(first.signal);
    const other = read(new AbortController().signal);
    setTimeout(() => first.abort(), 10);
    await assert.rejects(aborted, { name: "AbortError" });
    const got = await other;
    assert.ok(bits(got.data).equals(bits(expected)), `wrapped ${wrapped}`);
  }
});

test("one abort listener on a signal shared by many reads, chunks and pool jobs; no MaxListenersExceededWarning", async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on("warning", onWarning);
  try {
    const files = filesIn(join(dir, sharded.store));
    const controller = new AbortController();
    const signal = controller.signal;
    const most = { n: 0 };
    const watch = setInterval(() => (most.n = Math.max(most.n, getEventListeners(signal, "abort").length)), 0);
    const a = await zarr.open.v3(zarr.root(withWasmCodecs(recording(files), { pool })), { kind: "array" });
    const b = await open(recording(files));
    const reads = [];
    for (let i = 0; i < 40; i++) {
      const w = [i % 30, (i % 30) + 10, i % 40, (i % 40) + 10];
      const sel = [zarr.slice(w[0], w[1]), zarr.slice(w[2], w[3])];
      reads.push(zarr.get(a, sel, { signal }).then((got) => assert.deepEqual([...got.data], windowOf(w))));
      reads.push(get(b, sel, { signal, pool }).then((got) => assert.deepEqual([...got.data], windowOf(w))));
      reads.push(get(b, sel, { signal }).then((got) => assert.deepEqual([...got.data], windowOf(w))));
    }
    most.n = Math.max(most.n, getEventListeners(signal, "abort").length);
    await Promise.all(reads);
    clearInterval(watch);
    assert.ok(most.n <= 1, `${most.n} abort listeners on the signal`);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map(String), []);
  } finally {
    process.off("warning", onWarning);
  }
});

test("a long pan over many shards keeps no more shard indexes than shardIndexBytes", async () => {
  // 64 x 64 int16 in 8 x 8 shards of 4 x 4 inner chunks (64 shards; each index 4 x 16 bytes + crc32c).
  const meta = {
    zarr_format: 3, node_type: "array", shape: [64, 64], data_type: "int16", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [8, 8] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{
      name: "sharding_indexed",
      configuration: {
        chunk_shape: [4, 4], codecs: [{ name: "bytes", configuration: { endian: "little" } }],
        index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }], index_location: "end",
      },
    }],
  };
  const files = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const writable = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v), getRange: async () => undefined };
  const data = Int16Array.from({ length: 64 * 64 }, (_, i) => (i * 7) % 1000 - 500);
  await set(await open(writable), null, { data, shape: [64, 64], stride: [64, 1] });
  const INDEX = 4 * 16 + 4;
  for (const wrapped of [false, true]) {
    const store = recording(files);
    // (A Map shows no validators: `immutable` keeps its indexes between reads.)
    const bound = { shardIndexBytes: 8 * INDEX, immutable: true };
    const arr = wrapped ? await zarr.open.v3(zarr.root(withWasmCodecs(store, bound)), { kind: "array" }) : await open(store);
    // (The top half of a shard: its index, then a range; a whole shard would be read in one request.)
    const read = (r, c) => {
      const sel = [zarr.slice(r * 8, r * 8 + 4), zarr.slice(c * 8, c * 8 + 8)];
      return wrapped ? zarr.get(arr, sel) : get(arr, sel, bound);
    };
    // The pan: every shard once, row by row.
    for (let r = 0; r < 8; r++) {
      for (let c = 0; c < 8; c++) {
        const got = await read(r, c);
        const want = [];
        for (let i = r * 8; i < r * 8 + 4; i++) for (let j = c * 8; j < c * 8 + 8; j++) want.push(data[i * 64 + j]);
        assert.deepEqual([...got.data], want);
      }
    }
    assert.equal(store.log.index.length, 64);
    // The last 8 shards' indexes are kept; the first ones' are not.
    for (let c = 0; c < 8; c++) await read(7, c);
    assert.equal(store.log.index.length, 64, `wrapped ${wrapped}: the last 8 indexes kept`);
    await read(0, 0);
    assert.equal(store.log.index.length, 65, `wrapped ${wrapped}: the first index was let go`);
  }
});

test("zarr.open over the wrapped store reads an array's metadata once: the package takes the text zarr.open read", async () => {
  const files = filesIn(join(dir, sharded.store));
  const asked = [];
  const store = { get: async (key) => (asked.push(key), files.get(key)), getRange: recording(files).getRange };
  const arr = await zarr.open.v3(zarr.root(withWasmCodecs(store)), { kind: "array" });
  const got = await zarr.get(arr, [zarr.slice(0, 10), zarr.slice(0, 10)]);
  assert.deepEqual([...got.data], windowOf([0, 10, 0, 10]));
  assert.deepEqual(asked.filter((k) => k.endsWith("zarr.json")), ["/zarr.json"]);
  // A second array opened over the same wrapped store reads it again (its own open), once.
  const wrapped = withWasmCodecs(store);
  await zarr.get(await zarr.open.v3(zarr.root(wrapped), { kind: "array" }), [0, 0]);
  await zarr.get(await zarr.open.v3(zarr.root(wrapped), { kind: "array" }), [0, 0]);
  assert.equal(asked.filter((k) => k.endsWith("zarr.json")).length, 3);
});

test("concurrency counts requests: a sharded read keeps at most that many in flight, whole shards, indexes and ranges alike", async () => {
  const files = filesIn(join(dir, sharded.store));
  const w = [2, 8, 3, 40];
  const window = [zarr.slice(w[0], w[1]), zarr.slice(w[2], w[3])];
  for (const [concurrency, sel] of [[1, null], [2, null], [1, window], [3, window]]) {
    const base = recording(files);
    const load = { now: 0, most: 0 };
    const counted = (f) => async (...args) => {
      load.most = Math.max(load.most, ++load.now);
      await new Promise((r) => setTimeout(r, 3));
      try {
        return await f(...args);
      } finally {
        load.now--;
      }
    };
    const store = { get: counted(base.get), getRange: counted(base.getRange) };
    const reader = await open(store);
    for (const options of [{ concurrency }, { concurrency, pool }]) {
      load.most = 0;
      const got = await get(reader, sel, options);
      assert.deepEqual([...got.data], sel ? windowOf(w) : [...expected]);
      assert.ok(load.most <= concurrency, `${load.most} requests in flight, ${concurrency} allowed`);
    }
  }
});
