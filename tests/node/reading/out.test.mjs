// `out`: get and getDecoded read into the caller's typed array (one thread, pooled with a
// shared output and with transferred results, and on zarr.get's path), return it as `data`,
// and refuse one of another type or length before anything is read.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get, getDecoded, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

registerCodecs();

const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));

/** A fixture store (zarr-python's) in memory, and its array. */
async function fixture(name) {
  const c = manifest.find((m) => m.case === name);
  const { memoryStore } = await import("../shared/files.mjs");
  const store = memoryStore(join(dir, c.store));
  return { c, arr: await zarr.open(c.path ? zarr.root(store).resolve(c.path) : zarr.root(store), { kind: "array" }) };
}

const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

test("get and getDecoded fill the caller's output and return it; a second read reuses it", async () => {
  for (const name of ["v3_default", "v3_sharded_end", "v2_blosc_lz4", "v3_packed_uint8"]) {
    const { c, arr } = await fixture(name);
    const want = await get(arr);
    const selection = c.shape.map((d) => zarr.slice(1, d, 2));
    const box = await get(arr, selection);
    for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
      const out = new want.data.constructor(want.data.length).fill(7);
      const got = await get(arr, null, { ...options, out });
      assert.equal(got.data, out, `${name}: the caller's array is the result`);
      assert.ok(bits(out).equals(bits(want.data)), `${name} ${Object.keys(options)}`);
      // A shared output, at an offset in a larger SharedArrayBuffer: the workers write into it.
      const Ctor = want.data.constructor;
      const sab = new SharedArrayBuffer((box.data.length + 3) * Ctor.BYTES_PER_ELEMENT);
      const view = new Ctor(sab, 2 * Ctor.BYTES_PER_ELEMENT, box.data.length);
      const again = await get(arr, selection, { ...options, out: view });
      assert.equal(again.data, view);
      assert.ok(bits(view).equals(bits(box.data)), `${name} box`);
      assert.equal(new Ctor(sab)[0], 0, "nothing written before the view");
      assert.equal(new Ctor(sab).at(-1), 0, "nothing written after the view");
    }
    const decoded = await getDecoded(arr);
    const into = new Float64Array(decoded.data.length);
    assert.equal((await getDecoded(arr, null, { pool, out: into })).data, into);
    assert.ok(bits(into).equals(bits(decoded.data)));
  }
});

test("an output of another type or length is refused before anything is read; zarr.get's path fills it too", async () => {
  const { arr } = await fixture("v3_default");
  const want = await get(arr);
  let reads = 0;
  const counting = { get: async (k) => (k.endsWith("zarr.json") || reads++, arr.store.get(k)), getRange: (...x) => arr.store.getRange(...x) };
  const counted = await zarr.open(zarr.root(counting), { kind: "array" });
  const before = reads;
  const wrong = [
    [new Float32Array(want.data.length), "WRONG_ARRAY_TYPE"],
    [new Float64Array(want.data.length - 1), "SHAPE_MISMATCH"],
    [Array.from(want.data), "WRONG_ARRAY_TYPE"],
  ];
  for (const [out, code] of wrong) {
    for (const options of [{}, { pool }]) {
      await assert.rejects(get(counted, null, { ...options, out }), (e) => e.code === code);
    }
  }
  assert.equal(reads, before, "no chunk read");
  // A zfp array, which get reads through zarr.get.
  const meta = {
    zarr_format: 3, node_type: "array", shape: [4, 4], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [4, 4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "zfp", configuration: { mode: "reversible" } }],
  };
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const zfp = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const values = Float64Array.from({ length: 16 }, (_, i) => i * 1.5);
  await set(zfp, null, { data: values, shape: [4, 4], stride: [4, 1] });
  const out = new Float64Array(16);
  assert.equal((await get(zfp, null, { out })).data, out);
  assert.deepEqual([...out], [...values]);
  await assert.rejects(get(zfp, null, { out: new Float64Array(3) }), (e) => e.code === "SHAPE_MISMATCH");
  const decodedOut = new Float64Array(16);
  assert.equal((await getDecoded(zfp, null, { out: decodedOut })).data, decodedOut);
  assert.deepEqual([...decodedOut], [...values]);
});

test("onProgress counts every chunk once, up to the total, on get, getDecoded, set and writePacked", async () => {
  const { writePacked } = await import("zarr-wasm-codecs");
  const { c, arr } = await fixture("v3_sharded_end");
  const chunks = c.shape.reduce((n, d, i) => n * Math.ceil(d / c.chunks[i]), 1);
  for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
    for (const read of [get, getDecoded]) {
      const calls = [];
      await read(arr, null, { ...options, onProgress: (done, total) => calls.push([done, total]) });
      assert.deepEqual(calls, Array.from({ length: chunks }, (_, i) => [i + 1, chunks]), `${read.name} ${Object.keys(options)}`);
    }
  }
  const calls = [];
  const values = Float64Array.from({ length: 40 * 50 }, (_, i) => Math.cos(i / 40));
  const { array } = await writePacked(zarr.root(new Map()), values, {
    shape: [40, 50], chunkShape: [10, 25], target: "int16", onProgress: (done, total) => calls.push([done, total]),
  });
  assert.deepEqual(calls, [1, 2, 3, 4, 5, 6, 7, 8].map((i) => [i, 8]));
  calls.length = 0;
  await set(array, [zarr.slice(0, 20), null], { data: values.subarray(0, 1000), shape: [20, 50], stride: [50, 1] }, {
    onProgress: (done, total) => calls.push([done, total]),
  });
  assert.deepEqual(calls, [1, 2, 3, 4].map((i) => [i, 4]));
});
