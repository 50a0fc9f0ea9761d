// What apps met through the wrapped store (withWasmCodecs) and zarrita's other extensions:
// 64-bit fill values exact whichever side consolidated metadata is on (zarr-python 3.4.2's
// stores, tests/fixtures/consolidated); no listener left on a caller's signal and no
// MaxListenersExceededWarning; strings and bytes zarrita has no codec for read on the package's
// path (zarr-python's stores, values against the package's own get, which tests/node/vlen and
// written tests hold to zarr-python); a store's failure at zarr.open coded STORE_FAILED with
// path and key; zarr.set over the wrapped store refused with a coded error where zarrita cannot
// encode, and set() writing through the same arrays; metadata zarr.open cannot read refused with
// the code and path the package's open gives it, advising open and get only where they read it.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { get, open, set, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";

const fixtures = fileURLToPath(new URL("../../fixtures/", import.meta.url));

test("int64 fill values beyond 2^53 are exact with zarrita's consolidated metadata inside or outside the wrapper (v2 and v3)", async () => {
  const expected = JSON.parse(readFileSync(join(fixtures, "consolidated/expected.json"), "utf8"));
  for (const fmt of ["v3", "v2"]) {
    const want = expected[fmt].map(BigInt);
    const stores = {
      "consolidated inside": async (fs) => zarr.extendStore(fs, (s) => zarr.withConsolidatedMetadata(s, { format: fmt }), (s) => withWasmCodecs(s)),
      "consolidated outside": async (fs) => zarr.extendStore(fs, (s) => withWasmCodecs(s), (s) => zarr.withConsolidatedMetadata(s, { format: fmt })),
    };
    for (const [name, make] of Object.entries(stores)) {
      const label = `${fmt}, ${name}`;
      const store = await make(new FileSystemStore(join(fixtures, "consolidated", `${fmt}.zarr`)));
      const arr = await zarr.open(zarr.root(store).resolve("big"), { kind: "array" });
      assert.deepEqual(Array.from((await zarr.get(arr)).data), want, `${label}: zarr.get`);
      assert.deepEqual(Array.from((await get(await open(zarr.root(store).resolve("big")))).data), want, `${label}: the package's get`);
    }
  }
});

test("zarr.get with a signal over the wrapped store: one listener on it while reading, none after, no warning (one thread and pooled)", async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w.name);
  process.on("warning", onWarning);
  const pool = new WorkerPool(2);
  try {
    const files = new Map();
    const base = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
    // 3 x 3 chunks, written by zarrita (plain int16: any writer gives the same bytes).
    const arr = await zarr.create(zarr.root(base), { shape: [30, 30], chunkShape: [10, 10], dtype: "int16" });
    const data = Int16Array.from({ length: 900 }, (_, i) => i - 450);
    await zarr.set(arr, null, { data, shape: [30, 30], stride: [30, 1] });
    for (const options of [{}, { pool }]) {
      const a = await zarr.open.v3(zarr.root(withWasmCodecs(base, options)), { kind: "array" });
      const controller = new AbortController();
      let most = 0;
      const watch = setInterval(() => (most = Math.max(most, getEventListeners(controller.signal, "abort").length)), 0);
      for (let i = 0; i < 4; i++) assert.deepEqual((await zarr.get(a, null, { signal: controller.signal })).data, data);
      clearInterval(watch);
      assert.ok(most <= 1, `${JSON.stringify(Object.keys(options))}: ${most} listeners at once`);
      assert.equal(getEventListeners(controller.signal, "abort").length, 0, "no listener left after the reads");
    }
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(warnings.filter((w) => w === "MaxListenersExceededWarning"), []);
  } finally {
    process.off("warning", onWarning);
    await pool.terminate();
  }
});

/** An item of zarrita's chunk data (an Array, or its item classes), as a string to compare. */
const itemsOf = (data) => Array.from({ length: data.length }, (_, i) => {
  const x = data.get ? data.get(i) : data[i];
  return x instanceof Uint8Array ? `bytes:${Array.from(x)}` : String(x);
});

test("strings and bytes zarrita has no codec for (v2 vlen-bytes, v2 categorize + delta) read through the wrapped store", async () => {
  for (const name of ["vlen/stores/v2_bytes_blosc", "written/stores/v2_utf32_categorize_delta", "written/stores/v2_utf32_categorize_delta_be"]) {
    const fs = new FileSystemStore(join(fixtures, `${name}.zarr`));
    const mine = await get(await open(fs));
    const arr = await zarr.open.v2(zarr.root(withWasmCodecs(fs)), { kind: "array" });
    const got = await zarr.get(arr);
    assert.deepEqual(got.shape, mine.shape, name);
    assert.equal(got.data.constructor, mine.data.constructor, `${name}: zarrita's item form`);
    assert.deepEqual(itemsOf(got.data), itemsOf(mine.data), name);
    // A window, and an edge chunk as zarrita gives it: the whole chunk's shape.
    const window = await zarr.get(arr, [zarr.slice(1, 4), zarr.slice(2, 5)]);
    const mineWindow = await get(await open(fs), [zarr.slice(1, 4), zarr.slice(2, 5)]);
    assert.deepEqual(itemsOf(window.data), itemsOf(mineWindow.data), `${name}: a window`);
    const last = arr.shape.map((n, i) => Math.floor((n - 1) / arr.chunks[i]));
    const edge = await arr.getChunk(last);
    assert.deepEqual(edge.shape, arr.chunks, `${name}: an edge chunk's shape`);
    const inside = arr.shape.map((n, i) => n - last[i] * arr.chunks[i]);
    const region = await get(await open(fs), last.map((c, i) => zarr.slice(c * arr.chunks[i], c * arr.chunks[i] + inside[i])));
    const edgeItems = itemsOf(edge.data);
    const regionItems = itemsOf(region.data);
    for (let r = 0; r < inside[0]; r++) {
      for (let c = 0; c < inside[1]; c++) assert.equal(edgeItems[r * arr.chunks[1] + c], regionItems[r * inside[1] + c], `${name}: edge chunk at ${r}, ${c}`);
    }
  }
});

test("a store's failure at zarr.open through the wrapped store is STORE_FAILED with the path and the key", async () => {
  const failing = { async get() { throw new Error("connection reset"); } };
  for (const [name, opening] of [
    ["zarr.open", (s) => zarr.open(zarr.root(s).resolve("sst"), { kind: "array" })],
    ["zarr.open.v3", (s) => zarr.open.v3(zarr.root(s).resolve("sst"), { kind: "array" })],
    ["zarr.open.v2", (s) => zarr.open.v2(zarr.root(s).resolve("sst"), { kind: "array" })],
  ]) {
    const e = await opening(withWasmCodecs(failing)).then(() => assert.fail("opened"), (x) => x);
    assert.equal(e.code, "STORE_FAILED", `${name}: ${e.message}`);
    assert.equal(e.path, "/sst", name);
    assert.match(e.key, /^\/sst\/(zarr\.json|\.zarray|\.zattrs)$/, name);
    assert.match(e.cause?.message ?? "", /connection reset/, name);
  }
});

test("zarr.set over the wrapped store: refused, coded and naming set() and registerCodecs(), where zarrita's registry cannot encode; set() writes through the same array", async () => {
  const files = new Map();
  const base = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
  // scale_offset + cast_value, as the spec's example: 0.1 steps in int16.
  const meta = {
    zarr_format: 3, node_type: "array", shape: [6], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [
      { name: "scale_offset", configuration: { offset: 0, scale: 10 } },
      { name: "cast_value", configuration: { data_type: "int16" } },
      { name: "bytes", configuration: { endian: "little" } },
    ],
  };
  files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
  const arr = await zarr.open.v3(zarr.root(withWasmCodecs(base)), { kind: "array" });
  const value = { data: Float64Array.of(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), shape: [6], stride: [1] };
  const e = await zarr.set(arr, null, value).then(() => assert.fail("zarr.set wrote"), (x) => x);
  assert.equal(e.code, "UNSUPPORTED", e.message);
  assert.equal(e.path, "/");
  assert.equal(e.codec, "scale_offset");
  assert.match(e.message, /set\(arr, selection, value\)/);
  assert.match(e.message, /registerCodecs\(\)/);
  assert.deepEqual([...files.keys()], ["/zarr.json"], "nothing written");
  // The package's set writes through the same array object; both reads give its values back
  // (x * 10 rounded to int16 and back: the values themselves).
  await set(arr, null, value);
  assert.deepEqual(Array.from((await zarr.get(arr)).data), Array.from(value.data));
  assert.deepEqual(new Int16Array(files.get("/c/0").buffer.slice(0)), Int16Array.of(1, 2, 3, 4));
});

test("metadata zarr.open over the wrapped store refuses has the code and path open gives it: files that are not JSON, unknown data types (v3, v2), an unknown chunk grid", async (t) => {
  const text = (v) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));
  const v3 = (edit) => {
    const meta = {
      zarr_format: 3, node_type: "array", shape: [4, 4], data_type: "float32", fill_value: 0, attributes: {},
      chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 2] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    };
    edit(meta);
    return meta;
  };
  const v2 = { zarr_format: 2, shape: [4, 4], chunks: [2, 2], dtype: "<f4", fill_value: 0, order: "C", compressor: null, filters: null };
  // Each case: the array's files (under /a) and the code the package's open gives.
  const CASES = {
    "zarr.json that is not JSON": [{ "zarr.json": '{"zarr_format": 3, "node_type": "array", ' }, "INVALID_METADATA"],
    ".zarray that is not JSON": [{ ".zarray": "{oops" }, "INVALID_METADATA"],
    ".zattrs that is not JSON": [{ ".zarray": v2, ".zattrs": "{oops" }, "INVALID_METADATA"],
    "float128": [{ "zarr.json": v3((m) => (m.data_type = "float128")) }, "UNKNOWN_DATA_TYPE"],
    "a made-up data type": [{ "zarr.json": v3((m) => (m.data_type = "made_up_type")) }, "UNKNOWN_DATA_TYPE"],
    "a made-up chunk grid": [{ "zarr.json": v3((m) => (m.chunk_grid = { name: "made_up_grid", configuration: { chunk_shape: [2, 2] } })) }, "UNSUPPORTED"],
    "a v2 dtype nobody registered (<f16)": [{ ".zarray": { ...v2, dtype: "<f16" } }, "UNKNOWN_DATA_TYPE"],
  };
  for (const [name, [given, code]] of Object.entries(CASES)) {
    await t.test(name, async () => {
      const files = new Map(Object.entries(given).map(([file, v]) => [`/a/${file}`, text(v)]));
      const store = { get: async (k) => files.get(k) };
      const byOpen = await open(zarr.root(store).resolve("a")).then(() => assert.fail(`${name}: open opened it`), (x) => x);
      assert.equal(byOpen.code, code, `${name}, open: ${byOpen.message}`);
      assert.equal(byOpen.path, "/a", `${name}, open`);
      const version = "zarr.json" in given ? "v3" : "v2";
      for (const [how, opening] of [
        ["zarr.open", (s) => zarr.open(s, { kind: "array" })],
        [`zarr.open.${version}`, (s) => zarr.open[version](s, { kind: "array" })],
      ]) {
        const e = await opening(zarr.root(withWasmCodecs(store)).resolve("a")).then(() => assert.fail(`${name}, ${how}: opened`), (x) => x);
        assert.equal(e.code, code, `${name}, ${how}: ${e.message}`);
        assert.equal(e.path, "/a", `${name}, ${how}`);
        if (code === "INVALID_METADATA") {
          // (Naming the file that is not JSON.)
          assert.match(e.message, new RegExp(`${Object.keys(given).at(-1).replace(".", "\\.")} is not valid JSON`), `${name}, ${how}`);
        } else {
          // open's own refusal: no advice to read it with open and get, which refuse it too.
          assert.equal(e.message, byOpen.message, `${name}, ${how}`);
        }
      }
    });
  }
});

test("an array zarrita cannot open is refused at zarr.open over the wrapped store with advice to use open and get only where they read it", async () => {
  // zarr-extensions' rectilinear grid, as zarrs wrote it: open and get read it (their values
  // are zarrs', tests/node/codecs/extensions.test.mjs), through the same wrapped store.
  const dir = join(fixtures, "extensions/stores/rectilinear_2d.zarr");
  const want = readFileSync(join(fixtures, "extensions/stores/rectilinear_2d.expected.bin"));
  const store = withWasmCodecs(new FileSystemStore(dir));
  const e = await zarr.open(zarr.root(store), { kind: "array" }).then(() => assert.fail("opened"), (x) => x);
  assert.equal(e.code, "UNSUPPORTED", e.message);
  assert.equal(e.path, "/");
  assert.match(e.message, /this package's open\(\) and get\(\)/);
  const got = await get(await open(zarr.root(store)));
  assert.ok(Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength).equals(want), "open and get read it");
  // The same grid with sharding, which open refuses: its refusal, with no such advice.
  const meta = JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8"));
  meta.codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [1, 1], codecs: meta.codecs, index_codecs: [{ name: "bytes", configuration: { endian: "little" } }] } }];
  const sharded = { get: async (k) => (k === "/zarr.json" ? new TextEncoder().encode(JSON.stringify(meta)) : undefined), getRange: async () => undefined };
  const byOpen = await open(zarr.root(sharded)).then(() => assert.fail("open opened it"), (x) => x);
  const refused = await zarr.open(zarr.root(withWasmCodecs(sharded)), { kind: "array" }).then(() => assert.fail("opened"), (x) => x);
  assert.deepEqual([refused.code, refused.path, refused.message], [byOpen.code, byOpen.path, byOpen.message]);
  assert.doesNotMatch(refused.message, /open\(\) and get\(\)/);
});
