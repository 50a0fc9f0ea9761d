// getStored: every store whose chain begins with scale_offset / cast_value (zarr-python's
// fixtures, the demo's fields, and stores with the codecs inside shards, after a transpose and
// on a float32 array) reads as zarr-python reads the store's stored twin (the same chunks
// without those codecs: tests/fixtures/stored/make.py), byte for byte, missing chunks
// included: whole and in slices, one thread and pooled (shared and transferred), into `out`,
// and over HTTP with the pool's workers fetching the chunks.
// A chain without value codecs reads as get; bad options and selections are refused as get's.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { errorCode, get, getStored, registerCodecs, WorkerPool } from "zarr-wasm-codecs";

import { serve } from "../../../scripts/serve.mjs";
import { everyOther, memoryStore as memoryStoreOf, rejection } from "../shared/files.mjs";

registerCodecs();

const root = fileURLToPath(new URL("../../../", import.meta.url));
const dir = join(root, "tests/fixtures/stored");
const { cases } = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const pool = new WorkerPool(2);
after(() => pool.terminate());

const TYPED = { int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array };

/** A store of the repository's, in memory. */
const memoryStore = (path) => memoryStoreOf(join(root, path));

function expected(c) {
  const bytes = readFileSync(join(dir, c.expected));
  const Typed = TYPED[c.data_type];
  return new Typed(bytes.buffer, bytes.byteOffset, bytes.byteLength / Typed.BYTES_PER_ELEMENT);
}

test("the fixtures cover each stored type, sharding, a transpose and missing chunks", () => {
  assert.ok(cases.length >= 19);
  assert.deepEqual([...new Set(cases.map((c) => c.data_type))].sort(), ["int16", "int8", "uint16", "uint8"]);
  for (const name of ["sharded_int16", "transpose_uint8", "float32_int8"]) assert.ok(cases.some((c) => c.case.endsWith(name)), name);
});

for (const c of cases) {
  test(`${c.case}: getStored equals zarr-python's read of the stored twin`, async () => {
    const arr = await zarr.open(zarr.root(memoryStore(c.store)), { kind: "array" });
    const want = expected(c);
    const Typed = TYPED[c.data_type];
    const whole = await getStored(arr);
    assert.equal(whole.data.constructor, Typed);
    assert.deepEqual(whole.shape, c.shape);
    assert.deepEqual(whole.data, want);
    // Pooled: shared output and transferred output, and into `out`.
    for (const useSharedArrayBuffer of [true, false]) {
      const pooled = await getStored(arr, null, { pool, useSharedArrayBuffer });
      assert.deepEqual(new Typed(pooled.data), want, `pool, shared ${useSharedArrayBuffer}`);
    }
    const out = new Typed(want.length);
    const into = await getStored(arr, null, { out });
    assert.equal(into.data, out);
    assert.deepEqual(out, want);
    // Every other element along every dimension.
    const sel = c.shape.map((d) => zarr.slice(1, d, 2));
    assert.deepEqual((await getStored(arr, sel, { pool })).data, everyOther(want, c.shape));
    // One element.
    const last = c.shape.map((d) => d - 1);
    assert.equal(await getStored(arr, last), want[want.length - 1]);
  });
}

test("over HTTP, the pool's workers fetching the chunks: every case as zarr-python reads its twin", async () => {
  const server = await serve(root);
  try {
    for (const c of cases) {
      const store = new zarr.FetchStore(`http://127.0.0.1:${server.address().port}/${c.store}`);
      const arr = await zarr.open(zarr.root(store), { kind: "array" });
      const got = await getStored(arr, null, { pool, workerFetch: true });
      assert.deepEqual(got.data, expected(c), c.case);
    }
  } finally {
    server.close();
  }
});

test("a chain without scale_offset or cast_value: getStored is get", async () => {
  const arr = await zarr.open(zarr.root(memoryStore("tests/fixtures/stores/v3_default.zarr")), { kind: "array" });
  const [a, b] = [await get(arr), await getStored(arr)];
  assert.equal(b.data.constructor, Float64Array);
  assert.deepEqual(b.data, a.data);
});

test("getStored refuses what get refuses, before reading", async () => {
  const c = cases[0];
  const arr = await zarr.open(zarr.root(memoryStore(c.store)), { kind: "array" });
  assert.equal(errorCode(await rejection(() => getStored(arr, [0, 0, 0]))), "INVALID_SELECTION");
  assert.equal(errorCode(await rejection(() => getStored(arr, null, { out: new Float64Array(c.shape[0] * c.shape[1]) }))), "WRONG_ARRAY_TYPE");
  assert.equal(errorCode(await rejection(() => getStored(arr, null, { out: new Uint8Array(3) }))), "SHAPE_MISMATCH");
  assert.equal(errorCode(await rejection(() => getStored(arr, null, { concurrency: 0 }))), "INVALID_ARGUMENT");
  // A damaged chunk names its chunk.
  const store = memoryStore(c.store);
  const damaged = { get: async (k) => (k === "/c/0/0" ? new Uint8Array([1, 2, 3]) : store.get(k)) };
  const bad = await zarr.open(zarr.root(damaged), { kind: "array" });
  const e = await rejection(() => getStored(bad));
  assert.ok(errorCode(e), String(e));
  assert.match(e.message, /c\/0\/0/);
});
