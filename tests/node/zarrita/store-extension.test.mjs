// `withWasmCodecs(store, options)`: a zarrita store extension that has every array zarr.open
// opens through the wrapped store read its chunks on the package's own path. Every numeric
// store of the fixtures (zarr-python's, zarrs', pcodec's, the package's written ones, the
// misread ones) reads through zarr.get over the wrapped store exactly as the package's `get`
// reads it (and as zarr-python read it, where its values are committed): one thread, pooled
// (values handed back and written into shared memory), and pooled with the workers fetching
// over HTTP. zarrita's own codecs never run: its registry is emptied for this file (no
// `registerCodecs()`). Then: edge chunks from `arr.getChunk`, shard indexes read once,
// composition with zarrita's extensions and an app's chunk cache in either order, the fetch
// limit, errors with their codes through zarr.get (and the pool going on), an abort, and the
// options refused at wrap time.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { errorCode, get, open, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { coreAccess } from "../../../dist/reading/access.js";
import { serve } from "../../../scripts/serve.mjs";
import { filesUnder, memoryStore, rejection } from "../shared/files.mjs";
import { crc32c } from "../shared/random-arrays.mjs";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const fixtures = join(repo, "tests/fixtures");
const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

// zarrita's codecs must not run for arrays opened through the wrapped store: each registry
// entry is replaced by one that records its use and fails.
const used = new Set();
for (const name of [...zarr.registry.keys()]) {
  zarr.registry.set(name, () => {
    used.add(name);
    return Promise.reject(new Error(`zarrita's ${name} codec was asked for`));
  });
}

const pool = new WorkerPool(2);
after(() => pool.terminate());

/** Every store directory of the fixtures with the array's path in it and zarr-python's values where committed. */
function cases() {
  const out = [];
  const add = (group, manifest, list) => {
    for (const c of list) {
      const expected = c.expected && !c.decoded ? join(fixtures, group, c.expected) : undefined;
      out.push({ name: `${group}/${c.case}`, dir: join(fixtures, group, c.store), path: c.path ?? "", expected: expected && existsSync(expected) ? expected : undefined });
    }
  };
  const json = (p) => JSON.parse(readFileSync(join(fixtures, p), "utf8"));
  add("stores", null, json("stores/manifest.json"));
  add("extensions/stores", null, json("extensions/manifest.json").cases);
  add("pcodec", null, json("pcodec/manifest.json").cases);
  for (const group of ["written/stores", "misread/stores", "stored/stores", "dtypes/stores", "exttypes/stores"]) {
    for (const name of filesUnder(join(fixtures, group)).map((p) => relative(join(fixtures, group), p).split(sep)[0])) {
      const dir = join(fixtures, group, name);
      if (!statSync(dir).isDirectory() || out.some((c) => c.dir === dir)) continue;
      out.push({ name: `${group}/${name}`, dir, path: "" });
    }
  }
  // The demo's real data (NOAA OISST, gridded observations) in each of its forms.
  const demo = join(repo, "www/data/real");
  for (const file of filesUnder(demo).filter((p) => /\.zarr[\/\\](zarr\.json|\.zarray)$/.test(p))) {
    const dir = dirname(file);
    out.push({ name: `demo/${relative(demo, dir).split(sep).join("/")}`, dir, path: "" });
  }
  return out;
}

const CASES = cases();

/** Opens `c` with zarr.open over `store` wrapped (or not) by the extension. */
async function openIn(store, c) {
  const root = zarr.root(store);
  return zarr.open(c.path ? root.resolve(c.path) : root, { kind: "array" });
}

/**
 * What the package's own `get` reads of `c` (opened by the package's `open`, which opens every
 * data type), and whether zarrita can open it itself (its own zarr.open, and a chunk grid its
 * indexing has); undefined for arrays whose items `get` gives as other than a typed array of
 * numbers (bool, strings, raw bytes, ...).
 */
async function reference(c) {
  const arr = await open(zarr.root(memoryStore(c.dir)).resolve(c.path || "/")).catch(() => undefined);
  // (Arrays get hands to zarr.get, strings say, would run zarrita's codecs, which are gone here.)
  // (An array the package refuses, such as codecs around sharding_indexed, has no reference.)
  if (!arr || typeof (await coreAccess(arr).catch(() => "refused")) === "string") return undefined;
  const got = await get(arr).catch(() => undefined);
  if (!got || !ArrayBuffer.isView(got.data) || got.data instanceof zarr.BoolArray || typeof got.data.BYTES_PER_ELEMENT !== "number") return undefined;
  const zarritaOpens = await openIn(memoryStore(c.dir), c).then(() => !notRegular(c), () => false);
  return { ...got, zarritaOpens };
}

test("the cases are every fixture store", () => {
  assert.ok(CASES.length >= 200, `${CASES.length} stores`);
});

/** Whether `c`'s array has a chunk grid zarrita's indexing cannot represent (refused at open, see below). */
function notRegular(c) {
  const file = join(c.dir, c.path, "zarr.json");
  return existsSync(file) && JSON.parse(readFileSync(file, "utf8")).chunk_grid?.name !== "regular";
}

/**
 * A zarr.get result's values in C order: zarrita lays out an array with a transpose (zarr v2's
 * order F too) in that order, and says so in the stride.
 */
function cOrder({ data, shape, stride }) {
  // Copied as unsigned integers of the values' width: a float's NaN payload is kept.
  const Bits = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array, 8: BigUint64Array }[data.BYTES_PER_ELEMENT];
  const from = new Bits(data.buffer, data.byteOffset, data.length);
  const out = new Bits(data.length);
  const index = shape.map(() => 0);
  for (let n = 0; n < out.length; n++) {
    out[n] = from[index.reduce((at, k, i) => at + k * stride[i], 0)];
    for (let i = shape.length - 1; i >= 0 && ++index[i] === shape[i]; i--) index[i] = 0;
  }
  return out;
}

test("every numeric store reads through zarr.get over the wrapped store as get reads it: one thread and pooled both ways", async (t) => {
  let read = 0;
  const [refused, unopened] = [[], []];
  for (const c of CASES) {
    const want = await reference(c);
    if (!want) continue;
    if (!want.zarritaOpens) unopened.push(c.name);
    const e = await openIn(withWasmCodecs(memoryStore(c.dir)), c).then(() => undefined, (error) => error);
    if (e) {
      assert.equal(e.code, "UNSUPPORTED", `${c.name}: ${e.message}`);
      assert.match(e.message, /this package's open\(\) and get\(\)/);
      refused.push(c.name);
      continue;
    }
    if (c.expected) {
      const committed = readFileSync(c.expected);
      assert.ok(bits(want.data).equals(committed), `${c.name}: get equals zarr-python's values`);
    }
    const variants = [
      ["one thread", {}, {}],
      ["pooled (shared memory, Node's default)", { pool }, {}],
      ["pooled, values handed back", { pool }, { useSharedArrayBuffer: false }],
      ["pooled, zarr.get's shared output", { pool }, { useSharedArrayBuffer: true }],
    ];
    for (const [how, options, getOptions] of variants) {
      const store = withWasmCodecs(memoryStore(c.dir), options);
      const arr = await openIn(store, c);
      const got = await zarr.get(arr, null, getOptions);
      assert.deepEqual(got.shape, want.shape, `${c.name} ${how}`);
      assert.equal(got.data.constructor, want.data.constructor, `${c.name} ${how}`);
      assert.ok(bits(cOrder(got)).equals(bits(want.data)), `${c.name} ${how}: values differ`);
    }
    // A strided box across edge chunks.
    const store = withWasmCodecs(memoryStore(c.dir));
    const arr = await openIn(store, c);
    const selection = arr.shape.map((d) => zarr.slice(1, d, 2));
    const box = await zarr.get(arr, selection);
    const own = await get(await openIn(memoryStore(c.dir), c), selection);
    assert.ok(bits(cOrder(box)).equals(bits(own.data)), `${c.name}: a strided box`);
    read++;
  }
  assert.ok(read >= 190, `${read} numeric stores read`);
  // Refused at open: exactly the arrays zarrita cannot open itself (data types it lacks, chunk grids it cannot index).
  assert.deepEqual(refused, unopened);
  assert.ok(unopened.length >= 2);
  t.diagnostic(`${read} stores read, ${refused.length} refused at open (zarrita cannot open them), of ${CASES.length}`);
  assert.deepEqual([...used], [], "zarrita's codecs were asked for");
});

test("over HTTP with a pool and workerFetch, every numeric store reads as get reads it; this thread fetches no chunk", async (t) => {
  const server = await serve(repo);
  try {
    let read = 0;
    for (const c of CASES) {
      const want = await reference(c);
      if (!want?.zarritaOpens) continue;
      const fetched = [];
      class Watched extends zarr.FetchStore {
        async get(key, options) {
          if (!/(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/.test(key)) fetched.push(key);
          return super.get(key, options);
        }
        async getRange(key, range, options) {
          if (!("suffixLength" in range)) fetched.push(`${key} range`);
          return super.getRange(key, range, options);
        }
      }
      const url = `http://127.0.0.1:${server.address().port}/${relative(repo, c.dir).split(sep).join("/")}`;
      const store = withWasmCodecs(new Watched(url), { pool, workerFetch: true });
      const arr = await openIn(store, c);
      // (Shard indexes, and shards a read wants whole, are fetched on this thread through the
      // store, each shard once; the rest by the workers.)
      assert.ok(bits(cOrder(await zarr.get(arr))).equals(bits(want.data)), `${c.name}: values differ`);
      fetched.length = 0;
      const got = await zarr.get(arr);
      assert.ok(bits(cOrder(got)).equals(bits(want.data)), `${c.name}: values differ`);
      const meta = join(c.dir, c.path || "", "zarr.json");
      const sharded = existsSync(meta) && /sharding_indexed/.test(readFileSync(meta, "utf8"));
      const whole = fetched.filter((k) => !k.endsWith(" range"));
      if (!sharded) assert.deepEqual(fetched, [], `${c.name}: fetched on this thread`);
      else assert.deepEqual(whole, [...new Set(whole)], `${c.name}: each shard at most once whole on this thread`);
      read++;
    }
    assert.ok(read >= 190, `${read} numeric stores read`);
    t.diagnostic(`${read} stores read over HTTP`);
  } finally {
    server.close();
  }
});

test("an array zarrita cannot open itself is refused at open with a code naming the package's open and get", async () => {
  for (const name of ["rectilinear_2d", "rectilinear_overflow_3d"]) {
    const c = CASES.find((k) => k.name === `extensions/stores/${name}`);
    const e = await rejection(() => openIn(withWasmCodecs(memoryStore(c.dir)), c));
    assert.equal(e.code, "UNSUPPORTED", `${name}: ${e.message}`);
    assert.match(e.message, /open\b.*\bget\b/, e.message);
  }
});

test("getChunk gives zarrita's chunk: the whole chunk shape, C order, an edge chunk's rest the fill value", async () => {
  // v3_default: [37, 45] in [16, 20] chunks, fill 0, chunk [1, 1] missing.
  const c = CASES.find((k) => k.name === "stores/v3_default");
  const want = readFileSync(c.expected);
  const values = new Float64Array(want.buffer, want.byteOffset, want.byteLength / 8);
  for (const options of [{}, { pool }]) {
    const arr = await openIn(withWasmCodecs(memoryStore(c.dir), options), c);
    for (const coords of [[0, 0], [2, 2], [1, 1], [2, 0]]) {
      const chunk = await arr.getChunk(coords);
      assert.deepEqual(chunk.shape, [16, 20]);
      assert.deepEqual(chunk.stride, [20, 1]);
      assert.ok(chunk.data instanceof Float64Array);
      for (let i = 0; i < 16; i++) {
        for (let j = 0; j < 20; j++) {
          const [y, x] = [coords[0] * 16 + i, coords[1] * 20 + j];
          const expected = y < 37 && x < 45 ? values[y * 45 + x] : 0;
          assert.equal(chunk.data[i * 20 + j], expected, `${JSON.stringify(coords)} [${i}, ${j}]`);
        }
      }
    }
    await assert.rejects(arr.getChunk([0]), (e) => e.code === "INVALID_SELECTION");
  }
});

test("a sharded store's indexes are read once across reads where the store is said to be immutable, as zarrita reads them", async () => {
  const c = CASES.find((k) => k.name === "stores/v3_sharded_end");
  const store = memoryStore(c.dir);
  // (A store in memory shows no validator: `immutable` keeps indexes between reads.)
  const arr = await openIn(withWasmCodecs(store, { immutable: true }), c);
  await zarr.get(arr, [zarr.slice(0, 4), null]);
  const indexes = () => store.requests.filter((r) => r.endsWith("suffix")).length;
  const first = indexes();
  assert.ok(first > 0);
  await zarr.get(arr, [zarr.slice(2, 6), null]);
  await zarr.get(arr);
  const shards = [...store.files.keys()].filter((k) => k.startsWith("/c/")).length;
  // (No index read by range again; the whole read wants every shard whole: each is fetched in
  // one request, its index read from it.)
  const wholes = store.requests.filter((r) => /^\/c\/\d+\/\d+$/.test(r)).length;
  assert.equal(indexes(), first, "each shard's index read by range once");
  assert.equal(wholes, shards, "each shard read whole once by the whole read");
});

/** An app's decoded-chunk cache, as a viewer adds one: an array extension over whatever it is given. */
const withChunkCache = zarr.defineStoreExtension((_store, opts) => ({
  arrayExtensions: [
    zarr.defineArrayExtension((array) => ({
      async getChunk(coords, options) {
        const key = `${array.path}:${coords.join(",")}`;
        if (!opts.cache.has(key)) opts.cache.set(key, await array.getChunk(coords, options));
        return opts.cache.get(key);
      },
    })),
  ],
}));

test("it composes with consolidated metadata, range coalescing and an app's chunk cache, in either order", async () => {
  // A v2 group with consolidated metadata (.zmetadata), made from two v2 stores.
  const names = ["v2_blosc_lz4", "v3_sharded_end"];
  const group = { get: undefined, getRange: undefined };
  const parts = names.map((n) => ({ n, c: CASES.find((k) => k.name === `stores/${n}`) }));
  const files = new Map([["/.zgroup", new TextEncoder().encode('{"zarr_format": 2}')]]);
  const meta = { ".zgroup": { zarr_format: 2 } };
  for (const { n, c } of parts) {
    for (const [k, v] of memoryStore(c.dir).files) {
      files.set(`/${n}${k}`, v);
      if (k.endsWith(".zarray") || k.endsWith(".zattrs")) meta[`${n}${k}`] = JSON.parse(new TextDecoder().decode(v));
    }
  }
  files.set("/.zmetadata", new TextEncoder().encode(JSON.stringify({ zarr_consolidated_format: 1, metadata: meta })));
  const requests = [];
  group.get = async (k) => (requests.push(k), files.get(k));
  group.getRange = async (k, r) => {
    requests.push(`${k} range`);
    const b = files.get(k);
    return b && ("suffixLength" in r ? b.slice(b.length - r.suffixLength) : b.slice(r.offset, r.offset + r.length));
  };
  const wrap = (s) => withWasmCodecs(s, { pool });
  const consolidated = (s) => zarr.withConsolidatedMetadata(s, { format: "v2" });
  const coalesced = (s) => zarr.withRangeCoalescing(s);
  const orders = [
    ["ours first", [wrap, coalesced, consolidated]],
    ["ours last", [consolidated, coalesced, wrap]],
  ];
  for (const [how, exts] of orders) {
    const cache = new Map();
    const store = await zarr.extendStore(group, ...exts, (s) => withChunkCache(s, { cache }));
    for (const { n, c } of parts) {
      requests.length = 0;
      const arr = await zarr.open(zarr.root(store).resolve(n), { kind: "array" });
      const want = await reference(c);
      const got = await zarr.get(arr);
      assert.ok(bits(got.data).equals(bits(want.data)), `${how} ${n}: values differ`);
      const chunkRequests = requests.length;
      assert.ok(chunkRequests > 0, `${how} ${n}`);
      // The app's cache answers the second read: no request reaches the store.
      requests.length = 0;
      const again = await zarr.get(arr);
      assert.ok(bits(again.data).equals(bits(want.data)), `${how} ${n}: from the cache`);
      assert.deepEqual(requests, [], `${how} ${n}: the app's cache is outside ours`);
    }
    assert.ok(cache.size > 0);
  }
  assert.deepEqual([...used], []);
});

test("fetches wait in one limit across every read through the wrapped store", async () => {
  const c = CASES.find((k) => k.name === "stores/v3_default");
  const inner = memoryStore(c.dir);
  let [now, most] = [0, 0];
  const slow = {
    get: async (k) => {
      now++;
      most = Math.max(most, now);
      await new Promise((r) => setTimeout(r, 2));
      now--;
      return inner.get(k);
    },
  };
  const arr = await openIn(withWasmCodecs(slow, { concurrency: 2 }), c);
  most = 0;
  await Promise.all([zarr.get(arr), zarr.get(arr), zarr.get(arr)]);
  assert.equal(most, 2);
});

test("errors keep their codes through zarr.get, naming the array and the chunk; the pool goes on", async () => {
  const c = CASES.find((k) => k.name === "stores/v3_default");
  const want = await reference(c);
  for (const options of [{}, { pool }]) {
    // A damaged chunk.
    const damaged = memoryStore(c.dir);
    damaged.files.set("/c/0/0", damaged.files.get("/c/0/0").slice(0, 20));
    const arr = await openIn(withWasmCodecs(damaged, options), c);
    const e = await rejection(() => zarr.get(arr));
    assert.equal(e.code, "CORRUPT_CHUNK", e.message);
    assert.match(e.message, /^array "\/": chunk c\/0\/0: /);
    // A failing store.
    const failing = memoryStore(c.dir);
    const broken = { ...failing, get: async (k) => (k.endsWith("c/1/0") ? Promise.reject(new Error("connection reset")) : failing.get(k)) };
    const arr2 = await openIn(withWasmCodecs(broken, options), c);
    const e2 = await rejection(() => zarr.get(arr2));
    assert.equal(e2.code, "STORE_FAILED", e2.message);
    assert.match(e2.message, /c\/1\/0/);
    // An abort.
    const controller = new AbortController();
    const arr3 = await openIn(withWasmCodecs(memoryStore(c.dir), options), c);
    const reading = zarr.get(arr3, null, { signal: controller.signal });
    controller.abort();
    const e3 = await rejection(() => reading);
    assert.equal(e3.name, "AbortError");
    // And reads go on.
    const ok = await zarr.get(arr3);
    assert.ok(bits(ok.data).equals(bits(want.data)));
  }
  // A shard index that fails its crc32c.
  const s = CASES.find((k) => k.name === "stores/v3_sharded_end");
  const store = memoryStore(s.dir);
  const shard = store.files.get("/c/0/0").slice();
  shard[shard.length - 10] ^= 1;
  store.files.set("/c/0/0", shard);
  const arr = await openIn(withWasmCodecs(store, { pool }), s);
  const e = await rejection(() => zarr.get(arr));
  assert.equal(e.code, "CHECKSUM", e.message);
  assert.equal(errorCode(e), "CHECKSUM");
  assert.ok(crc32c);
});

test("options are checked when the store is wrapped (INVALID_ARGUMENT)", () => {
  const store = new Map();
  for (const options of [{ concurrency: 0 }, { concurrency: "4" }, { pool: "yes" }, { pool, workerFetch: true }, { pool, workerFetch: 3 }]) {
    assert.throws(() => withWasmCodecs({ get: async (k) => store.get(k) }, options), (e) => e.code === "INVALID_ARGUMENT", JSON.stringify(Object.keys(options)));
  }
});
