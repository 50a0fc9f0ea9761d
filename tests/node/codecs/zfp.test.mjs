// The zfp fixtures (streams written by zfpy 1.0.1, tests/fixtures/zfp) read and written through
// zarrita with this package's zfp codec, which runs in its own wasm module, and read with the
// package's get (which reads zfp arrays through zarr.get).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as zarr from "zarrita";
import { get, registerCodecs, set } from "zarr-wasm-codecs";

import { zfpChunkKey, zfpStore } from "../../browser/zfp-store.js";

registerCodecs();

const cases = JSON.parse(readFileSync(new URL("../../fixtures/zfp/cases.json", import.meta.url), "utf8"));
const hex = (view) => Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString("hex");
const fromHex = (s) => new Uint8Array(Buffer.from(s, "hex"));
const CTORS = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  float16: globalThis.Float16Array, float32: Float32Array, float64: Float64Array,
};

/** A one-chunk array whose chunk is `stream`, in an in-memory store. */
async function zfpArray(c, stream) {
  const store = zfpStore(c, stream);
  return { store, key: zfpChunkKey(c), arr: await zarr.open.v3(zarr.root(store), { kind: "array" }) };
}

// Node 20 has no Float16Array, which zarrita needs for float16 arrays (the browser test reads them).
const usable = cases.filter((c) => CTORS[c.data_type]);

test(`zarr.get of zfpy's streams gives zfpy's values (${usable.length} cases)`, async () => {
  for (const c of usable) {
    const { arr } = await zfpArray(c, fromHex(c.stream));
    const got = await zarr.get(arr);
    // A 0-d array reads as a scalar.
    const data = c.shape.length === 0 ? CTORS[c.data_type].of(got) : got.data;
    assert.equal(hex(data), c.decoded, c.id);
  }
});

test("zarr.set writes zfpy's stream byte for byte (reversible and fixed modes)", async () => {
  let compared = 0;
  for (const c of usable) {
    if (c.id.endsWith("/tiny") && c.configuration.mode !== "reversible") continue; // see tests/zfp.rs
    const { store, key, arr } = await zfpArray(c, null);
    const bytes = fromHex(c.values);
    const data = new CTORS[c.data_type](bytes.buffer);
    const stride = c.shape.map((_, i) => c.shape.slice(i + 1).reduce((a, b) => a * b, 1));
    await zarr.set(arr, null, c.shape.length === 0 ? data[0] : { data, shape: c.shape, stride });
    assert.equal(Buffer.from(store.get(key)).toString("hex"), c.stream, c.id);
    compared++;
  }
  assert.ok(compared > 400, `${compared} compared`);
});

test("a corrupt zfp chunk gives an Error with a code; the module keeps working", async () => {
  const c = usable.find((x) => x.configuration.mode === "fixed_accuracy");
  const stream = fromHex(c.stream);
  const { arr } = await zfpArray(c, stream.slice(0, 8));
  await assert.rejects(zarr.get(arr), (err) => {
    let e = err;
    while (e && !e.code && e.cause) e = e.cause;
    assert.equal(e.code, "CHUNK_LENGTH");
    return true;
  });
  const ok = await zfpArray(c, stream);
  assert.equal(hex((await zarr.get(ok.arr)).data), c.decoded);
});

test(`get of zfpy's streams gives zfpy's values, whole and in a strided box (${usable.length} cases)`, async () => {
  for (const c of usable) {
    const { arr } = await zfpArray(c, fromHex(c.stream));
    const whole = await get(arr);
    const data = c.shape.length === 0 ? CTORS[c.data_type].of(whole) : whole.data;
    assert.equal(hex(data), c.decoded, c.id);
    if (c.shape.length === 0) continue;
    // Every other element from the second on, against zfpy's values picked the same way.
    const box = c.shape.map((d) => zarr.slice(d > 2 ? 1 : 0, d, 2));
    const got = await get(arr, box, { pool: true });
    const all = new CTORS[c.data_type](fromHex(c.decoded).buffer);
    const strides = c.shape.map((_, i) => c.shape.slice(i + 1).reduce((a, b) => a * b, 1));
    const picked = [];
    const walk = (k, offset) => {
      if (k === c.shape.length) return picked.push(all[offset]);
      for (let i = c.shape[k] > 2 ? 1 : 0; i < c.shape[k]; i += 2) walk(k + 1, offset + i * strides[k]);
    };
    walk(0, 0);
    assert.equal(hex(got.data), hex(CTORS[c.data_type].from(picked)), c.id);
  }
});

test("get of a truncated zfp chunk rejects with CHUNK_LENGTH; the module keeps working", async () => {
  const c = usable.find((x) => x.configuration.mode === "fixed_accuracy" && x.shape.length === 3 && x.stream.length > 128);
  const stream = fromHex(c.stream);
  const { arr } = await zfpArray(c, stream.slice(0, 8));
  // (get reads zfp arrays through zarr.get, whose pipeline error holds the codec's as its cause.)
  await assert.rejects(get(arr), (err) => {
    let e = err;
    while (e && !e.code && e.cause) e = e.cause;
    assert.equal(e.code, "CHUNK_LENGTH");
    return true;
  });
  const ok = await zfpArray(c, stream);
  assert.equal(hex((await get(ok.arr)).data), c.decoded);
});

test("a transpose before zfp: the stream is zfpy's of the transposed chunk, read so on both paths and written so by set", async () => {
  // Each case's array (shape [r, c]) is the stored chunk of an array of shape [c, r] with
  // transpose [1, 0]: zfpy's stream of the case's values is that array's chunk, and the array
  // holds the case's decoded values transposed.
  const ids = ["float64/fixed_precision=8/6x9/smooth", "int16/reversible/6x9/smooth", "float32/fixed_rate=8/6x9/smooth", "uint8/reversible/5x7/noise"];
  for (const id of ids) {
    const c = cases.find((x) => x.id === id);
    assert.ok(c, id);
    const [r, k] = c.shape;
    const flipped = { ...c, shape: [k, r] };
    const meta = JSON.parse(new TextDecoder().decode(zfpStore(flipped).get("/zarr.json")));
    meta.codecs.unshift({ name: "transpose", configuration: { order: [1, 0] } });
    const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))], [zfpChunkKey(flipped), Buffer.from(c.stream, "hex")]]);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    const Ctor = { float64: Float64Array, float32: Float32Array, int16: Int16Array, uint8: Uint8Array }[c.data_type];
    const typed = (h) => { const b = Buffer.from(h, "hex"); return new Ctor(b.buffer.slice(b.byteOffset, b.byteOffset + b.length)); };
    const transposed = (v) => Ctor.from({ length: v.length }, (_, n) => v[(n % r) * k + Math.floor(n / r)]);
    const want = transposed(typed(c.decoded));
    // The package's own path.
    const own = await get(arr);
    assert.deepEqual([...own.data], [...want], `${id}: get`);
    // zarr.get, through zarrita's transpose and the package's zfp in its registry.
    const z = await zarr.get(arr);
    const at = (i, j) => z.data[i * z.stride[0] + j * z.stride[1]];
    assert.deepEqual(Array.from({ length: k * r }, (_, n) => at(Math.floor(n / r), n % r)), [...want], `${id}: zarr.get`);
    // set (which leaves a transpose before zfp to zarr.set) writes zfpy's stream of the
    // case's values.
    const into = new Map([["/zarr.json", store.get("/zarr.json")]]);
    const target = await zarr.open.v3(zarr.root(into), { kind: "array" });
    await set(target, null, { data: transposed(typed(c.values)), shape: [k, r], stride: [r, 1] });
    assert.equal(Buffer.from(into.get(zfpChunkKey(flipped))).toString("hex"), c.stream, `${id}: set`);
  }
});
