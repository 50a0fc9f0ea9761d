// numcodecs.pcodec: every store zarr-python 3.4.2 wrote with numcodecs 0.17.1 + pcodec 1.1.0
// (tests/fixtures/pcodec, with the script that wrote them; v3 and v2, each data type, mode,
// delta spec, level and paging, NaN and infinities, packed int16, sharded) reads to the values
// zarr-python read, bit for bit: through the package's get (each chunk decoded whole in the
// pcodec module, then its box placed), one thread and in a pool, whole and in strided boxes;
// through getDecoded; and through zarr.get with registerCodecs(). set writes zarr-python's
// chunk bytes; damaged chunks and configurations numcodecs refuses are coded errors naming the
// array.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { errorCode, get, getDecoded, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

registerCodecs();

const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = new URL("../../fixtures/pcodec/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("manifest.json", dir), "utf8"));
const bytesOf = (view) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

/** A zarr.get result's values in C order (zarrita gives an order F array's in F order, stride [1, ...]). */
function cBytes({ data, shape, stride }) {
  if (shape.length !== 2 || stride[1] === 1) return bytesOf(data);
  const out = new data.constructor(data.length);
  for (let i = 0; i < shape[0]; i++) for (let j = 0; j < shape[1]; j++) out[i * shape[1] + j] = data[i * stride[0] + j * stride[1]];
  return bytesOf(out);
}
const storeOf = (c) => new FileSystemStore(new URL(c.store, dir).pathname);
const expectedOf = (c) => readFileSync(new URL(c.expected, dir));

// float16 arrays need Float16Array, which Node 20 lacks (zarrita refuses to open them there).
const readable = (c) => c.dtype !== "float16" || typeof Float16Array !== "undefined";
// A 64-bit fill value beyond 2^53, which zarr.open's JSON.parse rounds (open() keeps it exact).
const bigFill = (c) => /^-?\d{16,}$/.test(String(c.fill_value));

/** A strided box of an array's shape (every third value from 1 on each axis), and its values in `full`. */
function stridedBox(shape, full) {
  const selection = shape.map((d) => zarr.slice(Math.min(1, d - 1), d, 3));
  const counts = shape.map((d) => Math.ceil((d - Math.min(1, d - 1)) / 3));
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const n = counts.reduce((a, b) => a * b, 1);
  const out = new full.constructor(n);
  for (let k = 0; k < n; k++) {
    let rest = k;
    let at = 0;
    for (let i = shape.length - 1; i >= 0; i--) {
      at += (Math.min(1, shape[i] - 1) + 3 * (rest % counts[i])) * strides[i];
      rest = Math.floor(rest / counts[i]);
    }
    out[k] = full[at];
  }
  return { selection, values: out };
}

test("every pcodec store zarr-python wrote reads to zarr-python's values: get, pooled get, zarr.get and open", async () => {
  assert.equal(manifest.cases.length, 44);
  let read = 0;
  for (const c of manifest.cases) {
    if (!readable(c)) {
      // float16 with no Float16Array: opened, and get refused with a code that says what
      // reads it (getDecoded, tested below).
      const e = await get(await open(storeOf(c))).catch((e) => e);
      assert.equal(e.code, "UNSUPPORTED_DATA_TYPE", `${c.case}: ${e}`);
      assert.match(e.message, /getDecoded/);
      continue;
    }
    const expected = expectedOf(c);
    const exact = await open(storeOf(c));
    const own = await get(exact);
    assert.deepEqual(own.shape, c.shape, c.case);
    assert.ok(bytesOf(own.data).equals(expected), `${c.case}: get`);
    const full = new own.data.constructor(expected.buffer.slice(expected.byteOffset, expected.byteOffset + expected.byteLength));
    const box = stridedBox(c.shape, full);
    assert.ok(bytesOf((await get(exact, box.selection)).data).equals(bytesOf(box.values)), `${c.case}: get of a strided box`);
    for (const useSharedArrayBuffer of [true, false]) {
      const pooled = await get(exact, null, { pool, useSharedArrayBuffer });
      assert.ok(bytesOf(pooled.data).equals(expected), `${c.case}: pooled get (shared ${useSharedArrayBuffer})`);
      const pooledBox = await get(exact, box.selection, { pool, useSharedArrayBuffer });
      assert.ok(bytesOf(pooledBox.data).equals(bytesOf(box.values)), `${c.case}: pooled get of a strided box`);
    }
    // (open() hands a zarr v2 array to zarrita as zarrita reads .zarray: a big fill value
    // rounded, which get, set and getDecoded read exactly; README.)
    if (c.zarr_format === 3 || !bigFill(c)) assert.ok(cBytes(await zarr.get(exact)).equals(expected), `${c.case}: zarr.get`);
    if (!bigFill(c)) {
      const arr = await zarr.open(storeOf(c), { kind: "array" });
      assert.ok(cBytes(await zarr.get(arr)).equals(expected), `${c.case}: zarr.open + zarr.get`);
      // get of an array zarr.open opened reads on the own path too.
      assert.ok(bytesOf((await get(arr)).data).equals(expected), `${c.case}: zarr.open + get`);
    }
    read++;
  }
  assert.ok(read >= 40, `${read} stores read`);
});

test("getDecoded of pcodec stores: zarr-python's float values as float64, one thread and pooled", async () => {
  // zarr v3 arrays with no attributes: getDecoded masks nothing, so it gives the values.
  const floats = manifest.cases.filter((c) => c.zarr_format === 3 && (c.dtype === "float64" || c.dtype === "float32"));
  assert.ok(floats.some((c) => c.case === "v3_packed_int16_pcodec") && floats.some((c) => c.shards));
  for (const c of floats) {
    const e = expectedOf(c);
    const Values = c.dtype === "float64" ? Float64Array : Float32Array;
    const want = bytesOf(Float64Array.from(new Values(e.buffer.slice(e.byteOffset, e.byteOffset + e.byteLength))));
    const arr = await open(storeOf(c));
    assert.ok(bytesOf((await getDecoded(arr)).data).equals(want), `${c.case}: getDecoded`);
    assert.ok(bytesOf((await getDecoded(arr, null, { pool })).data).equals(want), `${c.case}: pooled getDecoded`);
  }
});

test("set writes zarr-python's pco bytes, chunk for chunk (encode byte-identical in wasm)", async () => {
  const cases = manifest.cases.filter((c) => c.zarr_format === 3 && !c.shards && readable(c));
  let chunks = 0;
  for (const c of cases) {
    const source = storeOf(c);
    const text = readFileSync(new URL(`${c.store}/zarr.json`, dir));
    const store = new Map([["/zarr.json", new Uint8Array(text)]]);
    const values = await get(await open(source));
    await set(await open(store), null, values);
    // Every chunk zarr-python stored is written with its bytes; the missing ones (all fill) too,
    // which zarr-python leaves out (set writes every chunk it is given).
    // After a compressor (zstd), the pco streams inside are compared: zstd's own bytes depend on
    // its build.
    const meta = { dataType: "uint8", shape: c.chunks, codecs: c.codecs, fillValue: 0 };
    const compressors = await Promise.all(c.codecs.slice(c.codecs.findIndex((m) => m.name === "numcodecs.pcodec") + 1).map(async (m) => (await zarr.registry.get(m.name)()).fromConfig(m.configuration, meta)));
    const stream = async (bytes) => {
      for (const codec of [...compressors].reverse()) bytes = await codec.decode(bytes);
      return Buffer.from(bytes);
    };
    const files = [...store.keys()].filter((k) => k !== "/zarr.json");
    for (const key of files) {
      const theirs = await source.get(key);
      if (theirs === undefined) continue;
      assert.ok((await stream(store.get(key))).equals(await stream(theirs)), `${c.case} ${key}: set's pco stream differs from zarr-python's`);
      chunks++;
    }
    assert.ok(bytesOf((await get(await open(store))).data).equals(expectedOf(c)), `${c.case}: set then get`);
  }
  assert.ok(chunks >= 150, `${chunks} chunks compared`);
});

test("values written back by zarr.set with pcodec are read back the same, with zarr-python's configuration", async () => {
  for (const c of manifest.cases.filter((c) => c.zarr_format === 3 && !c.shards && readable(c))) {
    const text = readFileSync(new URL(`${c.store}/zarr.json`, dir));
    const store = new Map([["/zarr.json", new Uint8Array(text)]]);
    const arr = await open(store);
    const original = await get(await open(storeOf(c)));
    await zarr.set(arr, null, original);
    const back = await get(arr);
    assert.ok(bytesOf(back.data).equals(bytesOf(original.data)), c.case);
  }
});

test("damaged or truncated pcodec chunks are CORRUPT_CHUNK naming the array; the module goes on", async () => {
  const c = manifest.cases.find((c) => c.case === "v3_f8_2d_noise");
  const files = storeOf(c);
  const damaged = {
    async get(key, opts) {
      const bytes = await files.get(key, opts);
      if (!key.endsWith("c/0/0") || !bytes) return bytes;
      return bytes.subarray(0, bytes.length >> 1);
    },
  };
  const arr = await zarr.open(damaged, { kind: "array" });
  const e = await zarr.get(arr).catch((e) => e);
  assert.equal(errorCode(e), "CORRUPT_CHUNK", String(e));
  const own = await open(damaged);
  for (const options of [{}, { pool, useSharedArrayBuffer: true }, { pool, useSharedArrayBuffer: false }]) {
    const e2 = await get(own, null, options).catch((e) => e);
    assert.equal(e2.code, "CORRUPT_CHUNK", String(e2));
    assert.match(e2.message, /^array "\/": chunk c\/0\/0: /, e2.message);
  }
  // An empty chunk, and a stream of the right type but another length (a 1000-value chunk of
  // another store, where this one's hold 320).
  const other = await storeOf(manifest.cases.find((c) => c.case === "v3_f8_1d_specials_classic")).get("/c/0");
  for (const bad of [new Uint8Array(0), other]) {
    const store = { get: async (key, opts) => (key.endsWith("c/1/0") ? bad : await files.get(key, opts)) };
    for (const options of [{}, { pool }]) {
      const e3 = await get(await open(store), null, options).catch((e) => e);
      assert.equal(e3.code, "CORRUPT_CHUNK", String(e3));
      assert.match(e3.message, /chunk c\/1\/0/, e3.message);
    }
  }
  // The module and the pool keep working.
  assert.ok(bytesOf((await get(await open(storeOf(c)))).data).equals(expectedOf(c)));
  assert.ok(bytesOf((await get(await open(storeOf(c)), null, { pool })).data).equals(expectedOf(c)));
});

test("a pcodec configuration numcodecs refuses is INVALID_CONFIG when a chunk is written", async () => {
  const c = manifest.cases.find((c) => c.case === "v3_f8_2d_empty_config");
  const meta = JSON.parse(readFileSync(new URL(`${c.store}/zarr.json`, dir), "utf8"));
  for (const bad of [{ level: 13 }, { delta_spec: "try_consecutive" }, { mode_spec: "try_dict" }, { unknown: 1 }]) {
    meta.codecs = meta.codecs.map((codec) => (codec.name === "numcodecs.pcodec" ? { ...codec, configuration: bad } : codec));
    const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
    const arr = await open(store);
    const data = new Float64Array(c.shape[0] * c.shape[1]).fill(1.5);
    const e = await zarr.set(arr, null, { data, shape: c.shape, stride: [c.shape[1], 1] }).catch((e) => e);
    assert.equal(errorCode(e), "INVALID_CONFIG", `${JSON.stringify(bad)}: ${e}`);
  }
});
