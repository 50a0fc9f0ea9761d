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
import { filesUnder } from "./files.mjs";

registerCodecs();

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
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

function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The chains the property test draws from: [array type, codecs, fill, value generator]. */
const CHAINS = [
  ["float64", [{ name: "scale_offset", configuration: { offset: -10, scale: 10 } }, { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } }], "NaN", (r) => (r() < 0.1 ? NaN : -10 + r() * 25)],
  ["float32", [{ name: "scale_offset", configuration: { offset: 0, scale: 100 } }, { name: "cast_value", configuration: { data_type: "int16", out_of_range: "clamp" } }], 0, (r) => (r() - 0.5) * 600],
  ["float64", [{ name: "cast_value", configuration: { data_type: "int32", rounding: "towards-zero" } }], 7, (r) => (r() - 0.5) * 1e6],
  ["int16", [{ name: "scale_offset", configuration: { offset: 3, scale: 2 } }], 3, (r) => Math.round((r() - 0.5) * 30000) | 1],
  ["uint16", [{ name: "cast_value", configuration: { data_type: "uint8", out_of_range: "wrap" } }], 0, (r) => Math.floor(r() * 65536)],
  ["float64", [], "NaN", (r) => (r() - 0.5) * 1e3],
  ["int64", [{ name: "scale_offset", configuration: { offset: 5 } }], 5, (r) => BigInt(Math.floor((r() - 0.5) * 2 ** 52))],
];
const COMPRESSORS = [[], [{ name: "gzip", configuration: { level: 1 } }], [{ name: "zstd", configuration: { level: 1, checksum: false } }]];

/** A random array written by zarr.set (unsharded), or assembled into shards by hand. */
async function randomArray(r, round) {
  const [dtype, codecs, fill, value] = CHAINS[Math.floor(r() * CHAINS.length)];
  const rank = 1 + Math.floor(r() * 3);
  const shape = Array.from({ length: rank }, () => 1 + Math.floor(r() * 13));
  const chunkShape = shape.map((d) => 1 + Math.floor(r() * d));
  const compressors = COMPRESSORS[Math.floor(r() * COMPRESSORS.length)];
  const endian = r() < 0.2 ? "big" : "little";
  const chain = [...codecs, { name: "bytes", configuration: { endian } }, ...compressors];
  const sharded = r() < 0.3;
  const store = new Map();
  const data = CTORS[dtype].from({ length: shape.reduce((a, b) => a * b, 1) }, () => value(r));
  const meta = {
    zarr_format: 3, node_type: "array", shape, data_type: dtype, fill_value: fill, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunkShape } },
    chunk_key_encoding: { name: "default", configuration: { separator: r() < 0.5 ? "/" : "." } },
    codecs: chain,
  };
  const encode = (m) => new TextEncoder().encode(JSON.stringify(m, (_, v) => (typeof v === "bigint" ? Number(v) : v)));
  store.set("/zarr.json", encode(meta));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  // Some chunks stay missing.
  if (r() < 0.7) await zarr.set(arr, null, { data, shape, stride });
  else await zarr.set(arr, shape.map((d) => zarr.slice(0, Math.ceil(d / 2))), await zarr.get(await zarr.open.v3(zarr.root(new Map([...store, ["/zarr.json", encode(meta)]])), { kind: "array" }), shape.map((d) => zarr.slice(0, Math.ceil(d / 2)))));
  if (!sharded) return { arr, desc: JSON.stringify({ round, dtype, shape, chunkShape, chain: chain.map((c) => c.name) }) };
  // Shards of 1-2 inner chunks per dimension, assembled from the chunks just written:
  // inner chunks in C order, then the index (offset, nbytes as uint64 little-endian) and a
  // crc32c placeholder that zarrita 0.7 does not check.
  const perShard = shape.map((d, i) => 1 + Math.floor(r() * Math.min(2, Math.ceil(d / chunkShape[i]))));
  const shardShape = chunkShape.map((c, i) => c * perShard[i]);
  const grid = shape.map((d, i) => Math.ceil(d / shardShape[i]));
  const sep = meta.chunk_key_encoding.configuration.separator;
  const shardedStore = new Map();
  const each = (dims) => dims.reduce((acc, n) => acc.flatMap((a) => Array.from({ length: n }, (_, i) => [...a, i])), [[]]);
  for (const s of each(grid)) {
    const parts = [];
    const index = new DataView(new ArrayBuffer(16 * perShard.reduce((a, b) => a * b, 1) + 4));
    let offset = 0;
    each(perShard).forEach((inner, k) => {
      const coords = inner.map((c, i) => s[i] * perShard[i] + c);
      const bytes = store.get(`/c${sep}${coords.join(sep)}`);
      if (!bytes || r() < 0.15) {
        index.setBigUint64(16 * k, 2n ** 64n - 1n, true);
        index.setBigUint64(16 * k + 8, 2n ** 64n - 1n, true);
        return;
      }
      index.setBigUint64(16 * k, BigInt(offset), true);
      index.setBigUint64(16 * k + 8, BigInt(bytes.length), true);
      parts.push(bytes);
      offset += bytes.length;
    });
    const out = new Uint8Array(offset + index.byteLength);
    let at = 0;
    for (const p of parts) out.set(p, (at += p.length) - p.length);
    out.set(new Uint8Array(index.buffer), offset);
    if (r() < 0.9) shardedStore.set(`/c${sep}${s.join(sep)}`, out);
  }
  const shardedMeta = {
    ...meta,
    chunk_grid: { name: "regular", configuration: { chunk_shape: shardShape } },
    codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: chunkShape, codecs: chain, index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }], index_location: "end" } }],
  };
  shardedStore.set("/zarr.json", encode(shardedMeta));
  // A store with range reads, which sharding needs.
  const ranged = {
    get: async (key) => shardedStore.get(key),
    getRange: async (key, range) => {
      const bytes = shardedStore.get(key);
      if (!bytes) return undefined;
      return "suffixLength" in range ? bytes.slice(bytes.length - range.suffixLength) : bytes.slice(range.offset, range.offset + range.length);
    },
  };
  const sharr = await zarr.open.v3(zarr.root(ranged), { kind: "array" });
  return { arr: sharr, desc: JSON.stringify({ round, dtype, shape, chunkShape, shardShape, chain: chain.map((c) => c.name) }) };
}

function randomSelection(r, shape) {
  return shape.map((d) => {
    const k = r();
    if (k < 0.2) return null;
    if (k < 0.35) return Math.floor(r() * d) - (r() < 0.3 ? d : 0);
    const a = Math.floor(r() * (d + 2)) - 1;
    const b = Math.floor(r() * (d + 2)) - 1;
    return zarr.slice(r() < 0.2 ? null : a, r() < 0.2 ? null : b, 1 + Math.floor(r() * 3));
  });
}

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
  await assert.rejects(writePacked(zarr.root(target), new Float64Array([1, 2, 3, 4]), { shape: [4], target: "uint8", compressors: [{ name: "failing" }] }), (e) => e.code === "TEST");
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
