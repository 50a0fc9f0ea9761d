// What a newcomer reached that gave a silent wrong answer or an uncoded error, refused now
// with a coded Error before anything is written: codec lists out of zarr v3's order (the
// lists zarr-python 3.4.2 refuses, tests/fixtures/chains/refused.json, plus [zfp, bytes]),
// NaN and infinities under zfp's lossy modes, selections that are not integers, slices or
// null, reads too large to plan or allocate, a pool option that is not a pool, and zarrita's
// errors leaving get with a code on the error itself.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { errorCode, get, getDecoded, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

import { rejection } from "../shared/files.mjs";

registerCodecs();

const refused = JSON.parse(readFileSync(new URL("../../fixtures/chains/refused.json", import.meta.url), "utf8"));
const pool = new WorkerPool(2);
after(() => pool.terminate());

const BYTES = { name: "bytes", configuration: { endian: "little" } };

function metaOf(codecs, { shape = [4, 4], chunks = [4, 4], dtype = "float64", fill = 0 } = {}) {
  return {
    zarr_format: 3, node_type: "array", shape, data_type: dtype, fill_value: fill, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs,
  };
}

function storeOf(meta) {
  return new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
}

/** A hash of every key and value of a Map store. */
function hashOf(store) {
  const h = createHash("sha256");
  for (const [k, v] of [...store].sort(([a], [b]) => (a < b ? -1 : 1))) h.update(k).update(v);
  return h.digest("hex");
}

const value = { data: Float64Array.from({ length: 16 }, (_, i) => i / 4), shape: [4, 4], stride: [4, 1] };

test("codec lists zarr-python refuses, and [zfp, bytes], are refused at open, get and set; nothing is written", async () => {
  assert.equal(refused.zarr, "3.4.2");
  const cases = [
    ...refused.chains.map((c) => ({ ...c, want: c.zarr_python })),
    // zarr-python has no zfp codec to refuse it with; two array -> bytes codecs, as above.
    { case: "zfp_then_bytes", codecs: [{ name: "zfp", configuration: { mode: "reversible" } }, BYTES], want: "Only one ArrayBytesCodec" },
    { case: "bytes_then_zfp", codecs: [BYTES, { name: "zfp", configuration: { mode: "reversible" } }], want: "Only one ArrayBytesCodec" },
  ];
  for (const c of cases) {
    assert.ok(c.want, `zarr-python refused ${c.case}`);
    const store = storeOf(metaOf(c.codecs));
    const before = hashOf(store);
    const opened = await rejection(() => open(zarr.root(store)));
    assert.equal(opened.code, "INVALID_METADATA", `${c.case}: ${opened.message}`);
    assert.match(opened.message, /^array "\/": /);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    for (const options of [{}, { pool }]) assert.equal((await rejection(() => get(arr, null, options))).code, "INVALID_METADATA", c.case);
    assert.equal((await rejection(() => set(arr, null, value))).code, "INVALID_METADATA", c.case);
    assert.equal(hashOf(store), before, `${c.case}: the store is unchanged`);
  }
  // zarrita's own arrays with no codecs (zarr.create's default) still read, as bytes.
  const plain = storeOf(metaOf([]));
  const arr = await open(zarr.root(plain));
  await set(arr, null, value);
  assert.deepEqual([...(await get(arr)).data], [...value.data]);
});

test("zfp's lossy modes refuse NaN and infinities (NON_FINITE) before writing; reversible keeps them", async () => {
  const lossy = [
    { mode: "fixed_accuracy", tolerance: 0.001 },
    { mode: "fixed_rate", rate: 16 },
    { mode: "fixed_precision", precision: 20 },
  ];
  for (const configuration of lossy) {
    for (const bad of [NaN, Infinity, -Infinity]) {
      const store = storeOf(metaOf([{ name: "zfp", configuration }]));
      const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
      const data = Float64Array.from(value.data);
      data[9] = bad;
      const before = hashOf(store);
      const e = await rejection(() => set(arr, null, { ...value, data }));
      assert.equal(e.code, "NON_FINITE", `${configuration.mode} ${bad}: ${e.message}`);
      assert.match(e.message, /element 9/);
      // zarr.set through registerCodecs' zfp: zarrita's error, the package's code inside it.
      const viaZarrita = await rejection(() => zarr.set(arr, null, { ...value, data }));
      assert.equal(errorCode(viaZarrita), "NON_FINITE");
      assert.equal(hashOf(store), before, "nothing written");
    }
  }
  const store = storeOf(metaOf([{ name: "zfp", configuration: { mode: "reversible" } }]));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const data = Float64Array.from(value.data);
  [data[3], data[9], data[12]] = [NaN, Infinity, -Infinity];
  await set(arr, null, { ...value, data });
  assert.deepEqual([...(await get(arr)).data], [...data]);
});

test("a selection entry that is not null, an integer or zarr.slice is refused (INVALID_SELECTION) on every path", async () => {
  const plainStore = storeOf(metaOf([BYTES]));
  const plain = await zarr.open.v3(zarr.root(plainStore), { kind: "array" });
  await set(plain, null, value);
  // A zfp array: get reads it through zarr.get.
  const zfpStore = storeOf(metaOf([{ name: "zfp", configuration: { mode: "reversible" } }]));
  const zfp = await zarr.open.v3(zarr.root(zfpStore), { kind: "array" });
  await set(zfp, null, value);
  const bad = [["2", 0], [1.5, 0], [{}, 0], [0, true], [0n, 0], [zarr.slice(0.5, 3), null], "all", [null, null, null]];
  for (const arr of [plain, zfp]) {
    for (const selection of bad) {
      const what = `${arr === zfp ? "zfp" : "plain"} ${String(selection)}`;
      for (const options of [{}, { pool }]) {
        const e = await rejection(() => get(arr, selection, options));
        assert.equal(e.code, "INVALID_SELECTION", `${what}: ${e.message}`);
      }
      assert.equal((await rejection(() => getDecoded(arr, selection))).code, "INVALID_SELECTION", what);
      const before = hashOf(arr === zfp ? zfpStore : plainStore);
      assert.equal((await rejection(() => set(arr, selection, 1))).code, "INVALID_SELECTION", what);
      assert.equal(hashOf(arr === zfp ? zfpStore : plainStore), before);
    }
  }
  // The refusal prints a slice's bounds as they were given (JSON would print NaN as null).
  for (const [slice, printed] of [[zarr.slice(NaN, 3), "zarr.slice(NaN, 3, null)"], [zarr.slice(0, Infinity, 2), "zarr.slice(0, Infinity, 2)"], [zarr.slice(0, 3, 0.5), "zarr.slice(0, 3, 0.5)"]]) {
    const e = await rejection(() => get(plain, [slice, null]));
    assert.equal(e.code, "INVALID_SELECTION");
    assert.ok(e.message.endsWith(`got ${printed}`), e.message);
  }
  // Out of bounds, as zarr.get refuses it, now with a code; valid selections still read.
  assert.equal((await rejection(() => get(plain, [4, 0]))).code, "INVALID_SELECTION");
  assert.equal(await get(plain, [-1, -1]), value.data[15]);
  assert.deepEqual([...(await get(plain, [zarr.slice(1, 3), 2])).data], [value.data[6], value.data[10]]);
});

test("a read too large to plan or to allocate is refused with TOO_LARGE at once; the module goes on", async () => {
  // 2^40 x 2^40 values in 1024 x 1024 chunks: 2^60 chunks.
  const huge = await zarr.open.v3(zarr.root(storeOf(metaOf([BYTES], { shape: [2 ** 40, 2 ** 40], chunks: [1024, 1024] }))), { kind: "array" });
  for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
    const started = performance.now();
    const e = await rejection(() => get(huge, null, options));
    assert.equal(e.code, "TOO_LARGE", e.message);
    assert.ok(performance.now() - started < 1000, "refused before planning");
  }
  // A small box of it reads (missing chunks: the fill value).
  assert.deepEqual([...(await get(huge, [zarr.slice(0, 2), zarr.slice(2 ** 40 - 2, null)])).data], [0, 0, 0, 0]);
  // 2^20 x 2^20 float64 (8 TiB) in 2^14 x 2^14 chunks: 4096 chunks to plan, but no output.
  const big = await zarr.open.v3(zarr.root(storeOf(metaOf([BYTES], { shape: [2 ** 20, 2 ** 20], chunks: [2 ** 14, 2 ** 14] }))), { kind: "array" });
  for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
    const started = performance.now();
    const e = await rejection(() => get(big, null, options));
    assert.equal(e.code, "TOO_LARGE", `${JSON.stringify(Object.keys(options))}: ${e.message}`);
    assert.ok(performance.now() - started < 1000, "refused before reading");
  }
  assert.equal(await get(big, [5, 5], { pool }), 0);
});

test("options.pool that is not a pool is refused (INVALID_ARGUMENT)", async () => {
  const arr = await zarr.open.v3(zarr.root(storeOf(metaOf([BYTES]))), { kind: "array" });
  for (const p of ["yes", 1, {}, { run() {} }]) {
    const e = await rejection(() => get(arr, null, { pool: p }));
    assert.equal(e.code, "INVALID_ARGUMENT", String(p));
  }
});

test("zarrita's errors leave get with a code on the error itself and the original as cause", async () => {
  // A zfp array read through zarr.get (an identity transpose first, a chain the package's own
  // path leaves to zarrita) whose gzip stream is damaged: zarrita's CodecPipelineError around
  // the package's CORRUPT_CHUNK.
  const transpose = { name: "transpose", configuration: { order: [0, 1] } };
  const store = storeOf(metaOf([transpose, { name: "zfp", configuration: { mode: "reversible" } }, { name: "gzip", configuration: { level: 1 } }]));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  await set(arr, null, value);
  store.set("/c/0/0", store.get("/c/0/0").slice(0, 12));
  const e = await rejection(() => get(arr));
  assert.ok(e.code, `a code on the error itself: ${e.message}`);
  assert.equal(e.code, "CORRUPT_CHUNK", e.message);
  assert.equal(errorCode(e.cause), "CORRUPT_CHUNK", "the original, zarrita's, is the cause");
  assert.notEqual(e.cause.code, "CORRUPT_CHUNK");
  assert.match(e.message, /^array "\/": /);
  // A codec zarrita does not know.
  const unknown = storeOf(metaOf([{ name: "scale_ofset", configuration: { scale: 2, offset: 0 } }, BYTES]));
  unknown.set("/c/0/0", new Uint8Array(128));
  const u = await rejection(async () => get(await zarr.open.v3(zarr.root(unknown), { kind: "array" })));
  assert.equal(u.code, "UNKNOWN_CODEC", u.message);
});

/** A Map store whose requests for keys `fails` picks throw, as a lost connection does. */
function failingStore(meta, fails) {
  const files = storeOf(meta);
  const store = {
    files,
    fails,
    get: async (key) => {
      if (store.fails(key)) throw new TypeError("fetch failed: connection reset");
      return files.get(key);
    },
    set: async (key, bytes) => {
      if (store.fails(key)) throw new TypeError("fetch failed: connection reset");
      files.set(key, bytes);
    },
  };
  return store;
}

const PACKED = [
  { name: "scale_offset", configuration: { offset: 0, scale: 4 } },
  { name: "cast_value", configuration: { data_type: "int16" } },
  BYTES,
];

test("a store's failure leaves open, get, getDecoded and set as STORE_FAILED, naming the array and the key, the store's error as cause", async () => {
  const chains = {
    own: PACKED, // the package's own path
    zarrita: [{ name: "zfp", configuration: { mode: "reversible" } }], // zarr.get's path
  };
  for (const [path, codecs] of Object.entries(chains)) {
    const store = failingStore(metaOf(codecs, { shape: [8, 4] }), () => false);
    const arr = await open(store);
    await set(arr, null, { data: Float64Array.from({ length: 32 }, (_, i) => i / 4), shape: [8, 4], stride: [4, 1] });
    store.fails = (key) => key === "/c/1/0";
    for (const [how, read] of [
      ["get", () => get(arr)],
      ["get pooled", () => get(arr, null, { pool })],
      ["get pooled, transferred", () => get(arr, null, { pool, useSharedArrayBuffer: false })],
      ["getDecoded", () => getDecoded(arr)],
      ["set of part of a chunk (read first)", () => set(arr, [zarr.slice(4, 5), null], { data: new Float64Array(4), shape: [1, 4], stride: [4, 1] })],
    ]) {
      const e = await rejection(read);
      assert.equal(e.code, "STORE_FAILED", `${path}, ${how}: ${e.message}`);
      assert.match(e.message, /^array "\/": .*\/c\/1\/0.*connection reset/, `${path}, ${how}`);
      assert.match(String(e.cause), /connection reset/);
    }
    // The first chunk still reads.
    assert.deepEqual([...(await get(arr, [zarr.slice(0, 4), null])).data].slice(0, 3), [0, 0.25, 0.5]);
    // A write the store refuses part way.
    const before = hashOf(store.files);
    store.fails = (key) => key === "/c/0/0";
    const w = await rejection(() => set(arr, [zarr.slice(4, 8), null], { data: new Float64Array(16), shape: [4, 4], stride: [4, 1] }).then(
      () => set(arr, null, { data: new Float64Array(32), shape: [8, 4], stride: [4, 1] }),
    ));
    assert.equal(w.code, "STORE_FAILED", `${path}, set: ${w.message}`);
    assert.notEqual(hashOf(store.files), before, "the first write went through");
    // open, with zarr.json out of reach.
    store.fails = (key) => key.endsWith("zarr.json");
    const o = await rejection(() => open(store));
    assert.equal(o.code, "STORE_FAILED", `${path}, open: ${o.message}`);
  }
});

test("set with an aborted signal rejects with its reason and the store is unchanged, on the package's path and zarr.set's", async () => {
  // (A transpose before zfp, which codes a chunk whole, is written by zarr.set.)
  const chains = { own: PACKED, zarrita: [{ name: "transpose", configuration: { order: [1, 0] } }, { name: "zfp", configuration: { mode: "reversible" } }] };
  for (const [path, codecs] of Object.entries(chains)) {
    const store = storeOf(metaOf(codecs, { shape: [8, 8] }));
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    const whole = { data: Float64Array.from({ length: 64 }, (_, i) => i / 4), shape: [8, 8], stride: [8, 1] };
    await set(arr, null, whole);
    const before = hashOf(store);
    const other = { data: new Float64Array(64).fill(2), shape: [8, 8], stride: [8, 1] };
    // Aborted before the call.
    const e = await rejection(() => set(arr, null, other, { signal: AbortSignal.abort() }));
    assert.equal(e.name, "AbortError", path);
    assert.equal(hashOf(store), before, path);
    // Aborted after the first chunk is encoded (the package's path encodes chunk by chunk).
    const controller = new AbortController();
    const reason = new Error("panned away");
    const e2 = await rejection(() => set(arr, null, other, { signal: controller.signal, onProgress: () => controller.abort(reason) }));
    assert.equal(e2, reason, path);
    assert.equal(hashOf(store), before, path);
    // Not aborted: written.
    await set(arr, null, other, { signal: new AbortController().signal });
    assert.deepEqual([...(await get(arr)).data], [...other.data]);
  }
});

test("a callback that throws leaves get as INTERNAL with the callback's error as cause", async () => {
  const store = storeOf(metaOf(PACKED));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  await set(arr, null, value);
  const mine = new RangeError("my progress bar broke");
  const e = await rejection(() => get(arr, null, { onProgress: () => { throw mine; } }));
  assert.equal(e.code, "INTERNAL");
  assert.equal(e.cause, mine);
  assert.match(e.message, /^array "\/": my progress bar broke/);
});

test("another codec's failure in a read leaves get as CODEC_FAILED, naming the codec and the chunk", async () => {
  // A bytes -> bytes codec from zarrita's registry that the package does not have.
  zarr.registry.set("flaky", async () => ({
    fromConfig: () => ({ kind: "bytes_to_bytes", encode: (b) => b, decode: () => { throw new RangeError("flaky lost its state"); } }),
  }));
  const store = storeOf(metaOf([...PACKED, { name: "flaky", configuration: {} }]));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  await set(arr, null, value);
  for (const options of [{}, { pool }]) {
    const e = await rejection(() => get(arr, null, options));
    assert.equal(e.code, "CODEC_FAILED", e.message);
    assert.match(e.message, /^array "\/": chunk c\/0\/0: codec "flaky" failed to decode: flaky lost its state/);
    assert.ok(e.cause instanceof RangeError);
  }
});

test("numcodecs' delta with astype, which zarrita reads wrong, is refused by zarr.get after registerCodecs (UNSUPPORTED), read exactly here (one thread and pooled) and written as zarr-python writes it", async () => {
  const { default: FileSystemStore } = await import("@zarrita/storage/fs");
  const dir = new URL("../../fixtures/misread/", import.meta.url);
  const expected = JSON.parse(readFileSync(new URL("expected.json", dir), "utf8"));
  for (const [name, c] of Object.entries(expected)) {
    const store = new FileSystemStore(new URL(c.store, dir).pathname);
    // zarrita's own delta ignores astype: after registerCodecs() zarr.get refuses, naming get,
    // rather than give other values than zarr-python's.
    const arr = await zarr.open(zarr.root(store), { kind: "array" });
    await assert.rejects(zarr.get(arr), (e) => errorCode(e) === "UNSUPPORTED" && /ignores astype/.test(e.message) && /package's get/.test(e.message), name);
    const want = new Float64Array(Uint8Array.from(Buffer.from(c.values_hex, "hex")).buffer);
    // The package's reads: zarr-python's values.
    for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
      const got = await get(arr, null, options);
      assert.deepEqual(Array.from(got.data), Array.from(want), `${name} ${JSON.stringify(Object.keys(options))}`);
    }
    assert.deepEqual(Array.from((await getDecoded(arr)).data), Array.from(want));
    // set writes zarr-python's chunks (no compressor: the float32 differences as they are).
    const files = new Map();
    const copy = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
    const meta = c.zarr_format === 3 ? "zarr.json" : ".zarray";
    files.set(`/${meta}`, new Uint8Array(readFileSync(new URL(`${c.store}/${meta}`, dir))));
    const target = await open(zarr.root(copy));
    await set(target, null, { data: want, shape: c.shape, stride: [c.shape[1], 1] }, { pool });
    for (const key of c.zarr_format === 3 ? ["c/0/0", "c/1/1"] : ["0.0", "1.1"]) {
      assert.deepEqual(files.get(`/${key}`), new Uint8Array(readFileSync(new URL(`${c.store}/${key}`, dir))), `${name} ${key}`);
    }
  }
});

test("a chain of array -> array codecs with no array -> bytes codec is refused (INVALID_METADATA), as zarr-python refuses it", async () => {
  const files = new Map();
  const store = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
  const codecs = [{ name: "scale_offset", configuration: { offset: 0, scale: 2 } }];
  files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(metaOf(codecs))));
  await assert.rejects(open(zarr.root(store)), (e) => e.code === "INVALID_METADATA" && /array -> bytes/.test(e.message));
  await assert.rejects(set(new zarr.Array(store, "/", metaOf(codecs)), null, 1), (e) => e.code === "INVALID_METADATA");
  assert.equal(files.size, 1);
  // An empty list (zarrita's zarr.create writes it) is read as little-endian bytes, as zarrita reads it.
  files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(metaOf([]))));
  const arr = await open(zarr.root(store));
  await set(arr, [0, 0], 2.5);
  assert.equal(await get(arr, [0, 0]), 2.5);
});

test("an empty selection of an array read through zarr.get is the empty result (zarrita 0.7 throws), as on the package's own path", async () => {
  const files = new Map();
  const store = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
  // An identity transpose: left to zarr.get.
  const meta = metaOf([{ name: "transpose", configuration: { order: [0, 1] } }, BYTES], { chunks: [2, 2] });
  files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
  const arr = await open(zarr.root(store));
  await assert.rejects(zarr.get(arr, [zarr.slice(2, 2), null]), /empty iterator/);
  for (const options of [{}, { pool }]) {
    const got = await get(arr, [zarr.slice(2, 2), null], options);
    assert.deepEqual([got.data.constructor.name, got.data.length, got.shape, got.stride], ["Float64Array", 0, [0, 4], [4, 1]]);
    const decoded = await getDecoded(arr, [null, zarr.slice(3, 1)], options);
    assert.deepEqual([decoded.data.length, decoded.shape], [0, [4, 0]]);
  }
  // The same on the package's own path.
  files.set("/b/zarr.json", new TextEncoder().encode(JSON.stringify(metaOf([BYTES]))));
  const own = await get(await open(zarr.root(store).resolve("b")), [zarr.slice(2, 2), null]);
  assert.deepEqual([own.data.length, own.shape, own.stride], [0, [0, 4], [4, 1]]);
});
