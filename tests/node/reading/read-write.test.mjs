// The package's own read and write path (get, set, open, getDecoded's direct path) against
// zarr-python's stores: tests/node/fixtures (scale_offset / cast_value stores, sharded and
// compressed ones among them) and tests/node/fixtures/big64 (64-bit metadata beyond 2^53),
// each made by the generate.py beside it. Also: get equals zarr.get over random arrays and
// selections, and bad input is refused with a code, leaving the store as it was.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";

import { createChain, get, getDecoded, open, registerCodecs, set, setAtomic, writePacked } from "zarr-wasm-codecs";
import { filesUnder } from "../shared/files.mjs";
import { randomArray, randomSelection, rng } from "../shared/random-arrays.mjs";

registerCodecs();

const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
const expected = JSON.parse(readFileSync(join(fixtures, "expected.json"), "utf8"));
const big64 = JSON.parse(readFileSync(join(fixtures, "big64/expected.json"), "utf8"));
const hex = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex");
const CTORS = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array,
};

/** An in-memory copy of a store directory. */
function memoryCopy(dir) {
  return new Map(filesUnder(dir).map((p) => ["/" + relative(dir, p).split(sep).join("/"), new Uint8Array(readFileSync(p))]));
}

/** Every key of a store with the hash of its bytes. */
const snapshot = (store) => new Map([...store].map(([k, v]) => [k, createHash("sha256").update(v).digest("hex")]));

function inputOf(dir, name, dtype, shape) {
  const bytes = readFileSync(join(dir, `${name}.input.bin`));
  const data = new CTORS[dtype](bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  return { data, shape, stride };
}

/** Element i of a zarr.get-style result as comparable text (bits for floats). */
function same(a, b, what) {
  assert.deepEqual(a.shape, b.shape, what);
  assert.deepEqual(a.stride, b.stride, what);
  assert.equal(a.data.constructor, b.data.constructor, what);
  assert.equal(hex(a.data), hex(b.data), what);
}

// ---------------------------------------------------------------------------------------
// zarr-python's stores
// ---------------------------------------------------------------------------------------

for (const [name, want] of Object.entries(expected)) {
  test(`get ${name}: zarr-python's values bit for bit, whole and in selections`, async () => {
    const arr = await zarr.open.v3(zarr.root(new FileSystemStore(join(fixtures, "stores", `${name}.zarr`))), { kind: "array" });
    const whole = await get(arr);
    assert.deepEqual(whole.shape, want.shape);
    assert.equal(hex(whole.data), want.read_hex);
    const selections = [
      arr.shape.map((d) => zarr.slice(1, d - 1, 2)),
      arr.shape.map((d) => zarr.slice(Math.floor(d / 3), null)),
      arr.shape.map((d, i) => (i === 0 ? d - 1 : null)),
      arr.shape.map((d) => -1),
    ];
    for (const s of selections) {
      const theirs = await zarr.get(arr, s);
      const ours = await get(arr, s);
      if (typeof theirs !== "object") assert.ok(Object.is(ours, theirs), `${s}: ${ours} vs ${theirs}`);
      else same(ours, theirs, JSON.stringify(s));
    }
  });
}

const writable = Object.keys(expected).filter((n) => expected[n].shards === null);
for (const name of writable) {
  test(`set ${name}: chunk files equal zarr-python's, byte for byte`, async () => {
    const dir = join(fixtures, "stores", `${name}.zarr`);
    const store = new Map([["/zarr.json", new Uint8Array(readFileSync(join(dir, "zarr.json")))]]);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    await set(arr, null, inputOf(join(fixtures, "stores"), name, arr.dtype, arr.shape));
    const missing = new Set(expected[name].missing_chunks);
    for (const key of expected[name].chunk_keys) {
      let a = store.get(`/${key}`);
      let b = readFileSync(join(dir, key));
      if (name.endsWith("_gzip")) [a, b] = [gunzipSync(a), gunzipSync(b)];
      assert.equal(Buffer.from(a).toString("hex"), Buffer.from(b).toString("hex"), key);
    }
    assert.ok([...store.keys()].every((k) => k === "/zarr.json" || expected[name].chunk_keys.includes(k.slice(1)) || missing.has(k.slice(1))));
  });
}

test("set of a region rewrites only the chunks it touches and reads back as written", async () => {
  const store = memoryCopy(join(fixtures, "stores", "design_2d.zarr"));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const before = snapshot(store);
  const region = [zarr.slice(3, 20, 2), zarr.slice(40, 45)];
  const values = new Float64Array(9 * 5).map((_, i) => -5 + i * 0.1);
  await set(arr, region, { data: values, shape: [9, 5], stride: [5, 1] });
  const after = snapshot(store);
  const changed = [...after.keys()].filter((k) => after.get(k) !== before.get(k)).sort();
  assert.deepEqual(changed, ["/c/0/2", "/c/1/2"]);
  const back = await get(arr, region);
  // Written through the codecs (uint8, steps of 0.1 from -10): each value comes back as the
  // codec's decoding of its encoding, which zarr.get of the same store agrees with.
  same(back, await zarr.get(arr, region), "region");
  for (let i = 0; i < values.length; i++) assert.ok(Math.abs(back.data[i] - values[i]) < 0.051, `${i}`);
  // Untouched values are unchanged.
  const fresh = await zarr.open.v3(zarr.root(memoryCopy(join(fixtures, "stores", "design_2d.zarr"))), { kind: "array" });
  const all = await get(arr);
  const orig = await get(fresh);
  for (let i = 0; i < 37; i++) {
    for (let j = 0; j < 53; j++) {
      const inRegion = i >= 3 && i < 20 && (i - 3) % 2 === 0 && j >= 40 && j < 45;
      if (!inRegion) assert.ok(Object.is(all.data[i * 53 + j], orig.data[i * 53 + j]), `${i},${j}`);
    }
  }
});

// ---------------------------------------------------------------------------------------
// 64-bit metadata beyond 2^53
// ---------------------------------------------------------------------------------------

const causeCode = (err) => {
  let e = err;
  while (e && !e.code && e.cause) e = e.cause;
  return e?.code;
};

for (const [name, want] of Object.entries(big64)) {
  const dir = join(fixtures, "big64", "stores", `${name}.zarr`);
  test(`big64 ${name}: get reads zarr.json exactly, even for an array zarr.open rounded`, async () => {
    const arr = await zarr.open.v3(zarr.root(memoryCopy(dir)), { kind: "array" });
    assert.equal(hex((await get(arr)).data), want.read_hex);
    // The missing chunk reads as the exact fill value.
    const store = memoryCopy(dir);
    store.delete("/c/0");
    const holed = await zarr.open.v3(zarr.root(store), { kind: "array" });
    const first = await get(holed, [0]);
    assert.equal(first, BigInt(want.fill_value_text));
  });

  test(`big64 ${name}: open() then zarr.get and zarr.set with registerCodecs() are exact`, async () => {
    const arr = await open(memoryCopy(dir));
    assert.equal(arr.fillValue, BigInt(want.fill_value_text));
    assert.equal(hex((await zarr.get(arr)).data), want.read_hex);
    const store = new Map([["/zarr.json", new Uint8Array(readFileSync(join(dir, "zarr.json")))]]);
    const empty = await open(store);
    await zarr.set(empty, null, inputOf(join(fixtures, "big64", "stores"), name, want.dtype, want.shape));
    for (const key of want.chunk_keys) {
      assert.equal(Buffer.from(store.get(`/${key}`)).toString("hex"), readFileSync(join(dir, key)).toString("hex"), key);
    }
  });

  test(`big64 ${name}: set writes zarr-python's chunk bytes`, async () => {
    const store = new Map([["/zarr.json", new Uint8Array(readFileSync(join(dir, "zarr.json")))]]);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    await set(arr, null, inputOf(join(fixtures, "big64", "stores"), name, want.dtype, want.shape));
    for (const key of want.chunk_keys) {
      assert.equal(Buffer.from(store.get(`/${key}`)).toString("hex"), readFileSync(join(dir, key)).toString("hex"), key);
    }
  });

  test(`big64 ${name}: zarr.open + zarr.get refuses the rounded metadata (INEXACT_NUMBER)`, async () => {
    const arr = await zarr.open.v3(zarr.root(memoryCopy(dir)), { kind: "array" });
    await assert.rejects(zarr.get(arr), (err) => {
      assert.equal(causeCode(err), "INEXACT_NUMBER", String(err));
      let e = err;
      while (e.cause) e = e.cause;
      assert.match(e.message, /open\(\)/);
      return true;
    });
  });
}

test("createChain: a number beyond 2^53 where an int64 is read is refused; a bigint or a string is exact", async () => {
  const meta = (offset) => ({ data_type: "int64", fill_value: 0, chunk_shape: [1], codecs: [{ name: "scale_offset", configuration: { offset } }, { name: "bytes", configuration: { endian: "little" } }] });
  await assert.rejects(createChain(meta(2 ** 63 - 1024)), (e) => e.code === "INEXACT_NUMBER");
  await assert.rejects(createChain(meta(9007199254740993)), (e) => e.code === "INEXACT_NUMBER");
  for (const offset of [9007199254740993n, "9007199254740993"]) {
    const chain = await createChain(meta(offset));
    const bytes = chain.encode(BigInt64Array.of(9007199254740993n));
    assert.equal(new DataView(bytes.buffer, bytes.byteOffset).getBigInt64(0, true), 0n);
  }
  // Text is read exactly.
  const chain = await createChain(JSON.stringify(meta(0)).replace('"offset":0', '"offset":9007199254740993'));
  assert.equal(new DataView(chain.encode(BigInt64Array.of(9007199254740994n)).buffer).getBigInt64(0, true), 1n);
});

// ---------------------------------------------------------------------------------------
// get equals zarr.get over random arrays and selections
// ---------------------------------------------------------------------------------------

test("property: get equals zarr.get (with the package's codecs) over random arrays and selections", async () => {
  const r = rng(20261123);
  let compared = 0;
  for (let round = 0; round < 150; round++) {
    const { arr, desc } = await randomArray(r, round);
    for (let k = 0; k < 4; k++) {
      const selection = k === 0 ? null : randomSelection(r, arr.shape);
      const what = `${desc} ${JSON.stringify(selection)}`;
      const ours = await get(arr, selection);
      let theirs;
      try {
        theirs = await zarr.get(arr, selection);
      } catch (e) {
        // zarrita 0.7 cannot read a selection with no elements; get gives the empty result.
        assert.match(String(e), /empty iterator/, what);
        assert.ok(ours.shape.includes(0) && ours.data.length === 0, what);
        compared++;
        continue;
      }
      if (typeof theirs !== "object") assert.ok(Object.is(ours, theirs), what);
      else same(ours, theirs, what);
      compared++;
    }
  }
  assert.equal(compared, 600);
});

// ---------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------

test("truncated and oversized chunks are refused (CHUNK_LENGTH) by get and by zarr.get", async () => {
  for (const delta of [-3, 1]) {
    const store = memoryCopy(join(fixtures, "stores", "design_2d.zarr"));
    const bytes = store.get("/c/0/0");
    store.set("/c/0/0", delta < 0 ? bytes.slice(0, bytes.length + delta) : Uint8Array.from([...bytes, 7]));
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    await assert.rejects(get(arr), (e) => e.code === "CHUNK_LENGTH");
    await assert.rejects(zarr.get(arr), (e) => causeCode(e) === "CHUNK_LENGTH");
    // Other chunks still read.
    assert.equal((await get(arr, [zarr.slice(20, 30), zarr.slice(20, 30)])).data.length, 100);
  }
});

test("set, setAtomic and writePacked refuse wrong typed arrays, shapes and strides; the store is unchanged", async () => {
  const store = memoryCopy(join(fixtures, "stores", "design_2d.zarr"));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const before = snapshot(store);
  const n = 37 * 53;
  const bad = [
    [{ data: new Int16Array(n), shape: [37, 53], stride: [53, 1] }, "WRONG_ARRAY_TYPE"],
    [{ data: new BigInt64Array(n), shape: [37, 53], stride: [53, 1] }, "WRONG_ARRAY_TYPE"],
    [{ data: new Float32Array(n), shape: [37, 53], stride: [53, 1] }, "WRONG_ARRAY_TYPE"],
    [{ data: Array.from({ length: n }, () => 1), shape: [37, 53], stride: [53, 1] }, "WRONG_ARRAY_TYPE"],
    [{ data: new Float64Array(n - 1), shape: [37, 53], stride: [53, 1] }, "CHUNK_LENGTH"],
    [{ data: new Float64Array(n), shape: [53, 37], stride: [37, 1] }, "SHAPE_MISMATCH"],
    [{ data: new Float64Array(n), shape: [37, 53], stride: [53] }, "INVALID_STRIDE"],
    [{ data: new Float64Array(n), shape: [37, 53], stride: [52, 1] }, "INVALID_STRIDE"],
    [{ data: new Float64Array(n), shape: [37, 53], stride: [53, 2] }, "INVALID_STRIDE"],
    [1n, "WRONG_ARRAY_TYPE"],
    ["1", "WRONG_ARRAY_TYPE"],
  ];
  for (const [value, code] of bad) {
    for (const write of [set, setAtomic]) {
      await assert.rejects(write(arr, null, value), (e) => {
        assert.equal(e.code, code, e.message);
        return true;
      });
    }
  }
  // A value that fails to encode in a later chunk (beyond uint8 with out_of_range clamp is
  // fine, but +Infinity has no mapping): nothing is written.
  const values = new Float64Array(n).fill(1);
  values[n - 1] = Infinity;
  await assert.rejects(set(arr, null, { data: values, shape: [37, 53], stride: [53, 1] }), (e) => e.code === "CAST");
  // A transposed (F-order) layout is fine.
  assert.deepEqual(snapshot(store), before);
  const f = new Float64Array(n);
  for (let i = 0; i < 37; i++) for (let j = 0; j < 53; j++) f[j * 37 + i] = i + j / 100;
  await set(arr, null, { data: f, shape: [37, 53], stride: [1, 37] });
  const back = await get(arr);
  assert.ok(Math.abs(back.data[5 * 53 + 7] - 5.07) < 0.051);

  const target = new Map();
  await assert.rejects(writePacked(zarr.root(target), new Int16Array(4), { shape: [4] }), (e) => e.code === "WRONG_ARRAY_TYPE");
  await assert.rejects(writePacked(zarr.root(target), new Float64Array(4), { shape: [5] }), (e) => e.code === "CHUNK_LENGTH");
  // An encode that fails (a compressor that throws) leaves no zarr.json behind.
  zarr.registry.set("failing", async () => ({ fromConfig: () => ({ kind: "bytes_to_bytes", encode: () => { throw Object.assign(new Error("no"), { code: "TEST" }); }, decode: (b) => b }) }));
  await assert.rejects(
    writePacked(zarr.root(target), new Float64Array([1, 2, 3, 4]), { shape: [4], target: "uint8", compressors: [{ name: "failing" }] }),
    (e) => e.code === "CODEC_FAILED" && /codec "failing" failed to encode: no/.test(e.message) && e.cause.code === "TEST",
  );
  assert.equal(target.size, 0);
  const { array } = await writePacked(zarr.root(target), new Float64Array([1, 2, NaN, 4]), { shape: [4], target: "uint8" });
  assert.ok(target.has("/zarr.json"));
  const decoded = await getDecoded(array);
  assert.ok(Number.isNaN(decoded.data[2]));
});

test("gzip honours its level: levels 1 and 9 give different streams that decode alike", async () => {
  const field = new Float64Array(4096).map((_, i) => Math.round(Math.sin(i / 50) * 10) + ((i * 7919) % 5));
  const sizes = {};
  const read = {};
  for (const level of [1, 9]) {
    const store = new Map();
    const arr = await zarr.create(zarr.root(store), {
      shape: [4096], chunkShape: [4096], dtype: "float64",
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level } }],
    });
    await set(arr, null, { data: field, shape: [4096], stride: [1] });
    sizes[level] = store.get("/c/0").length;
    read[level] = hex((await get(arr)).data);
  }
  assert.ok(sizes[9] < sizes[1], `level 9 ${sizes[9]} bytes, level 1 ${sizes[1]}`);
  assert.equal(read[1], read[9]);
  assert.equal(read[1], hex(field));
  const arr = await zarr.create(zarr.root(new Map()), {
    shape: [4], chunkShape: [4], dtype: "float64",
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 12 } }],
  });
  await assert.rejects(set(arr, null, { data: new Float64Array(4), shape: [4], stride: [1] }), (e) => e.code === "INVALID_CONFIG");
});
