// Errors as data: every coded error carries, besides its message, the array's `path`, the
// chunk's `key` where a chunk is involved and the `codec` where one failed, on one thread, in
// the pool, through zarr.get over a wrapped store and on writes, so that an app shows or logs
// them without parsing the message.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { createChain, get, getDecoded, registerCodecs, set, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

/** An 8 x 8 float64 array at /sst in 4 x 4 chunks, packed as int16 with zstd, and its store. */
async function packed(files = new Map()) {
  const arr = await zarr.create(zarr.root(files).resolve("sst"), {
    shape: [8, 8], chunkShape: [4, 4], dtype: "float64", fillValue: 0,
    codecs: [
      { name: "scale_offset", configuration: { offset: 0, scale: 10 } },
      { name: "cast_value", configuration: { data_type: "int16" } },
      { name: "bytes", configuration: { endian: "little" } },
      { name: "zstd", configuration: { level: 3, checksum: false } },
    ],
  });
  await set(arr, null, { data: Float64Array.from({ length: 64 }, (_, i) => i / 10), shape: [8, 8], stride: [8, 1] });
  return { arr, files };
}

/** The fields of `e` an app reads. */
const fields = (e) => ({ code: e.code, path: e.path, key: e.key, codec: e.codec });

test("a damaged zstd chunk: CORRUPT_CHUNK with the array's path, the chunk's key and the codec, on one thread and pooled", async () => {
  const { arr, files } = await packed();
  // Cut inside its frame.
  files.set("/sst/c/1/0", files.get("/sst/c/1/0").subarray(0, 6));
  for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
    const e = await get(arr, null, options).then(() => assert.fail("read a damaged chunk"), (x) => x);
    assert.deepEqual(fields(e), { code: "CORRUPT_CHUNK", path: "/sst", key: "c/1/0", codec: "zstd" }, `${Object.keys(options)}: ${e.message}`);
  }
  const d = await getDecoded(arr).then(() => assert.fail("read a damaged chunk"), (x) => x);
  assert.deepEqual(fields(d), { code: "CORRUPT_CHUNK", path: "/sst", key: "c/1/0", codec: "zstd" });
});

test("zarr.get over a wrapped store keeps the fields", async () => {
  const { files } = await packed();
  files.set("/sst/c/0/1", files.get("/sst/c/0/1").subarray(0, 5));
  const store = withWasmCodecs({ get: async (key) => files.get(key) });
  const arr = await zarr.open(zarr.root(store).resolve("sst"), { kind: "array" });
  const e = await zarr.get(arr).then(() => assert.fail("read a truncated chunk"), (x) => x);
  assert.equal(e.code, "CORRUPT_CHUNK", e.message);
  assert.equal(e.path, "/sst");
  assert.equal(e.key, "c/0/1");
  assert.equal(e.codec, "zstd");
});

test("a store that fails: STORE_FAILED with the path it failed on and the array's path, no codec", async () => {
  const { files } = await packed();
  const failing = { get: async (key) => { if (key.endsWith("c/1/1")) throw new Error("connection reset"); return files.get(key); } };
  const arr = await zarr.open.v3(zarr.root(failing).resolve("sst"), { kind: "array" });
  const e = await get(arr).then(() => assert.fail("read through a failing store"), (x) => x);
  assert.deepEqual(fields(e), { code: "STORE_FAILED", path: "/sst", key: "/sst/c/1/1", codec: undefined });
});

test("a write cast_value refuses: CAST with the array's path, the chunk's key and the codec; one thread and pooled", async () => {
  for (const options of [{}, { pool }]) {
    const { arr } = await packed();
    const data = Float64Array.from({ length: 64 }, (_, i) => (i === 37 ? 1e9 : i));
    const e = await set(arr, null, { data, shape: [8, 8], stride: [8, 1] }, options).then(() => assert.fail("wrote 1e9 as int16"), (x) => x);
    assert.equal(e.code, "CAST", e.message);
    assert.equal(e.path, "/sst");
    assert.equal(e.codec, "cast_value");
    // Element 37 (row 4, column 5) is in chunk (1, 1).
    assert.equal(e.key, "c/1/1", `${Object.keys(options)}: ${e.message}`);
  }
});

test("an error of the wasm alone (createChain): the codec, and no array or chunk", async () => {
  const chain = await createChain({ data_type: "float64", fill_value: 0, chunk_shape: [2], codecs: [
    { name: "cast_value", configuration: { data_type: "uint8" } }, { name: "bytes", configuration: {} }] });
  const e = (() => { try { chain.encode(Float64Array.of(1, NaN)); } catch (x) { return x; } })();
  assert.deepEqual(fields(e), { code: "CAST", path: undefined, key: undefined, codec: "cast_value" });
  const c = await createChain({ data_type: "float64", fill_value: 0, chunk_shape: [2], codecs: [
    { name: "cast_value", configuration: { data_type: "uint8", rounding: "up" } }, { name: "bytes", configuration: {} }] }).catch((x) => x);
  assert.equal(c.code, "INVALID_CONFIG", c.message);
  assert.equal(c.codec, "cast_value");
});

test("every refusal a codec makes names it: chunks cut, damaged or grown, for every codec family, one thread and pooled", async () => {
  const B = { name: "bytes", configuration: { endian: "little" } };
  // Chain, and the codec a refusal may name: the one that refuses, which the loop checks is in the chain.
  const chains = {
    bytes: ["float32", [B]],
    zstd: ["float32", [B, { name: "zstd", configuration: { level: 3, checksum: false } }]],
    gzip: ["float32", [B, { name: "gzip", configuration: { level: 5 } }]],
    blosc: ["float32", [B, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }]],
    crc32c: ["float32", [B, { name: "crc32c" }]],
    "numcodecs.zlib": ["float32", [B, { name: "numcodecs.zlib", configuration: { level: 1 } }]],
    "numcodecs.lz4": ["float32", [B, { name: "numcodecs.lz4", configuration: { acceleration: 1 } }]],
    zfp: ["float32", [{ name: "zfp", configuration: { mode: "fixed_rate", rate: 8 } }]],
    "numcodecs.zfpy": ["float32", [{ name: "numcodecs.zfpy", configuration: { mode: 2, rate: 8, tolerance: -1, precision: -1 } }]],
    "numcodecs.pcodec": ["float32", [{ name: "numcodecs.pcodec", configuration: { level: 8 } }]],
    "scale_offset + cast_value": ["float64", [{ name: "scale_offset", configuration: { offset: 0, scale: 10 } }, { name: "cast_value", configuration: { data_type: "int16" } }, B]],
  };
  const damages = {
    cut: (b) => b.subarray(0, b.length >> 1),
    flipped: (b) => b.map((x, i) => (i > 2 && i < b.length - 2 ? x ^ 0x5a : x)),
    grown: (b) => Uint8Array.from([...b, 1, 2, 3]),
  };
  let refused = 0;
  for (const [name, [dtype, codecs]] of Object.entries(chains)) {
    const names = codecs.map((c) => c.name).concat(codecs.some((c) => c.name.startsWith("numcodecs.") && c.name !== "numcodecs.zfpy" && c.name !== "numcodecs.pcodec") ? codecs.map((c) => c.name.replace("numcodecs.", "")) : []);
    for (const [damage, damaged] of Object.entries(damages)) {
      const files = new Map();
      const arr = await zarr.create(zarr.root(files).resolve("a"), { shape: [16, 16], chunkShape: [8, 8], dtype, fillValue: 0, codecs });
      const data = dtype === "float64" ? Float64Array.from({ length: 256 }, (_, i) => i / 10) : Float32Array.from({ length: 256 }, (_, i) => Math.sin(i));
      await set(arr, null, { data, shape: [16, 16], stride: [16, 1] });
      files.set("/a/c/0/0", damaged(files.get("/a/c/0/0")));
      for (const options of [{}, { pool }]) {
        const e = await get(arr, null, options).then(() => undefined, (x) => x);
        // (Damage a codec cannot see, flipped bits of raw values or of a zfp stream, trailing bytes zfp ignores, reads.)
        if (!e) continue;
        refused++;
        const label = `${name}, ${damage}${options.pool ? ", pooled" : ""}: ${e.code} ${e.message}`;
        assert.ok(["CHUNK_LENGTH", "CORRUPT_CHUNK", "CHECKSUM"].includes(e.code), label);
        assert.equal(e.path, "/a", label);
        assert.equal(e.key, "c/0/0", label);
        assert.ok(names.includes(e.codec), `${label}: codec ${e.codec}`);
      }
    }
  }
  assert.ok(refused >= 40, `${refused} refusals`);
});
