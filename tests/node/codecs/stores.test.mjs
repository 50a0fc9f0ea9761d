// The stores users have, as zarr-python 3.4.2 (numcodecs 0.17.1) and xarray write them
// (tests/fixtures/stores, with make.py): zstd, blosc (every cname and shuffle), lz4, gzip,
// zlib, sharded with crc32c, zarr v2 arrays (byte orders, separators, fill values, filters)
// and CF-packed xarray stores. Each is read with `get` (or `getDecoded` for xarray's decoded
// values) on one thread and with the pool, both output modes, and must equal what
// zarr-python read, bit for bit; each read is checked to have run on the package's own path
// unless the case is one that path leaves to zarr.get. Damaged chunks are errors with a
// code naming the array and the chunk, and the pool goes on.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { errorCode, get, getDecoded, open, registerCodecs, WorkerPool } from "zarr-wasm-codecs";
import { coreAccess, decodedAccess } from "../../../dist/reading/access.js";
import { serve } from "../../../scripts/serve.mjs";
import { everyOther, filesUnder } from "../shared/files.mjs";
import { crc32c } from "../shared/random-arrays.mjs";
import { memoryStore as emptyStore } from "../../fixtures/written/cases.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const CTORS = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array, bool: zarr.BoolArray,
};
/** Cases the package's own path leaves to zarr.get (make.py marks them: zarrita reads them as zarr-python does). */
const FALLBACK = new Set(manifest.filter((c) => c.fallback).map((c) => c.case));

/** A store directory in memory, with the range reads sharding needs. */
function memoryStore(storeDir) {
  const store = emptyStore();
  for (const p of filesUnder(storeDir)) store.files.set("/" + relative(storeDir, p).split(sep).join("/"), new Uint8Array(readFileSync(p)));
  return store;
}

async function opened(c) {
  const store = memoryStore(join(dir, c.store));
  const location = c.path ? zarr.root(store).resolve(c.path) : zarr.root(store);
  return { store, arr: await zarr.open(location, { kind: "array" }) };
}

function expectedOf(c) {
  const bytes = readFileSync(join(dir, c.expected));
  const Ctor = c.decoded ? Float64Array : CTORS[c.dtype];
  // (zarrita's BoolArray has no static BYTES_PER_ELEMENT: one byte a value.)
  return new Ctor(bytes.buffer, bytes.byteOffset, bytes.byteLength / (Ctor.BYTES_PER_ELEMENT ?? 1));
}

const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

const pool = new WorkerPool(2);
after(() => pool.terminate());

test("the fixture stores are every case make.py writes", () => {
  assert.equal(manifest.length, 96);
});

for (const c of manifest.filter((m) => m.refused)) {
  test(`${c.case}: refused (${c.refused}), which zarrita reads wrong`, async () => {
    const { arr } = await opened(c);
    for (const options of [{}, { pool }]) {
      await assert.rejects(get(arr, null, options), (e) => e.code === c.refused && e.message.includes(c.refused_why), "refused, saying why");
    }
    // zarr.get (with the package's codecs registered) reads it otherwise (it drops the codecs
    // around a sharding codec; it decodes fixedscaleoffset in float64, rounding): it fails or
    // reads other values than zarr-python's.
    const want = expectedOf(c);
    const read = await zarr.get(arr).then((got) => got.data, (e) => e);
    assert.ok(read instanceof Error || !bits(read).equals(bits(want)), "zarrita reads it wrong");
  });
}

for (const c of manifest.filter((m) => !m.refused)) {
  test(`${c.case}: ${c.decoded ? "getDecoded" : "get"} equals zarr-python, one thread and pooled`, async () => {
    const { arr } = await opened(c);
    const want = expectedOf(c);
    const access = await (c.decoded ? decodedAccess : coreAccess)(arr);
    if (FALLBACK.has(c.case)) assert.equal(typeof access, "string", "read through zarr.get");
    else assert.notEqual(typeof access, "string", `on the package's own path, not: ${access}`);
    const read = c.decoded ? getDecoded : get;
    for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
      const got = await read(arr, null, options);
      assert.deepEqual(got.shape, c.shape);
      assert.equal(got.data.constructor, want.constructor);
      assert.ok(bits(got.data).equals(bits(want)), `${c.case} ${JSON.stringify(Object.keys(options))}: values differ`);
    }
    // A box across partial edge chunks and the missing one, with a step of 2 from index 1.
    const selection = c.shape.map((d) => zarr.slice(1, d, 2));
    const box = await read(arr, selection, {});
    const values = want instanceof zarr.BoolArray ? new Uint8Array(want.buffer, want.byteOffset, want.byteLength) : want;
    assert.ok(bits(box.data).equals(bits(everyOther(values, c.shape))), "a strided box equals zarr-python's values there");
  });
}

test("open() reads v2 arrays exactly too (64-bit fill values)", async () => {
  for (const name of ["v2_int64_bigfill", "v2_uint64_maxfill", "v3_int64_bigfill"]) {
    const c = manifest.find((m) => m.case === name);
    const store = memoryStore(join(dir, c.store));
    const arr = await open(zarr.root(store));
    const got = await get(arr);
    assert.ok(bits(got.data).equals(bits(expectedOf(c))), name);
    const missing = c.missing_chunks[0].map((k, i) => k * c.chunks[i]);
    assert.equal(String(got.data[missing[0] * c.shape[1] + missing[1]]), c.fill_value, `${name}: the fill value, exactly`);
  }
});

test("over HTTP (zarrita's FetchStore) the pool takes each response's buffer uncopied; an in-memory store's bytes are never taken", async () => {
  const server = await serve(dir);
  try {
    for (const name of ["v3_default", "v3_sharded_end", "v2_blosc_lz4"]) {
      const c = manifest.find((m) => m.case === name);
      assert.ok(c, name);
      // A FetchStore that keeps what it answered, to see which buffers went to the workers.
      const [answered, indexes] = [[], []];
      class Watched extends zarr.FetchStore {
        async get(key, options) {
          const bytes = await super.get(key, options);
          if (bytes && !/(zarr\.json|\.zarray|\.zattrs)$/.test(key)) answered.push(bytes);
          return bytes;
        }
        async getRange(key, range, options) {
          const bytes = await super.getRange(key, range, options);
          if (bytes) ("suffixLength" in range ? indexes : answered).push(bytes);
          return bytes;
        }
      }
      const store = new Watched(`http://127.0.0.1:${server.address().port}/${c.store}`);
      const arr = await zarr.open(c.path ? zarr.root(store).resolve(c.path) : zarr.root(store), { kind: "array" });
      const want = expectedOf(c);
      for (const [round, options] of [{ pool }, { pool, useSharedArrayBuffer: false }].entries()) {
        answered.length = indexes.length = 0;
        const got = await get(arr, null, options);
        assert.ok(bits(got.data).equals(bits(want)), `${name}: values differ`);
        // Every chunk (inner chunk) went to a worker as it came: its buffer is detached here.
        // A shard index is read on the main thread and keeps its bytes.
        assert.ok(answered.length > 1, name);
        assert.deepEqual(answered.map((b) => b.byteLength), answered.map(() => 0), `${name}: every chunk handed over`);
        // A shard the read wants whole is fetched in one request, its index read from it (so no
        // index request); the array keeps the indexes, so the second read asks for each shard's
        // chunks by one range and reads no index either.
        assert.equal(indexes.length, 0);
        assert.ok(indexes.every((b) => b.byteLength > 0), `${name}: shard indexes kept`);
      }
      // The same array from memory: every stored buffer is whole after pooled reads.
      const { store: memory, arr: fromMemory } = await opened(c);
      const before = new Map([...memory.files].map(([k, v]) => [k, Buffer.from(v)]));
      await get(fromMemory, null, { pool });
      await get(fromMemory, null, { pool, useSharedArrayBuffer: false });
      for (const [k, v] of memory.files) assert.ok(Buffer.from(v).equals(before.get(k)), `${name} ${k} kept`);
    }
  } finally {
    server.close();
  }
});

test("a FetchStore inside zarrita's byte cache keeps its cached bytes: the pool takes copies, and every read equals zarr-python's", async () => {
  const server = await serve(dir);
  try {
    for (const name of ["v3_default", "v3_sharded_end"]) {
      const c = manifest.find((m) => m.case === name);
      const store = zarr.withByteCaching(new zarr.FetchStore(`http://127.0.0.1:${server.address().port}/${c.store}`));
      const arr = await zarr.open(zarr.root(store), { kind: "array" });
      // The second and third reads are answered from the cache, whose buffers the first must not have taken.
      for (let read = 0; read < 3; read++) {
        for (const options of [{ pool }, { pool, useSharedArrayBuffer: false }, {}]) {
          const got = await get(arr, null, options);
          assert.ok(bits(got.data).equals(bits(expectedOf(c))), `${name} read ${read}`);
        }
      }
    }
  } finally {
    server.close();
  }
});

test("a chunk whose bytes cannot be sent to a worker fails its read at once with a code; the pool goes on", { timeout: 60000 }, async () => {
  const server = await serve(dir);
  try {
    const c = manifest.find((m) => m.case === "v3_default");
    // A FetchStore whose answers are already detached (as if something had transferred them).
    class Detaching extends zarr.FetchStore {
      async get(key, options) {
        const bytes = await super.get(key, options);
        if (bytes && !key.endsWith("zarr.json")) structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
        return bytes;
      }
    }
    const arr = await zarr.open(zarr.root(new Detaching(`http://127.0.0.1:${server.address().port}/${c.store}`)), { kind: "array" });
    await assert.rejects(get(arr, null, { pool }), (e) => typeof e.code === "string" && /^array "\/"/.test(e.message));
    const { arr: good } = await opened(c);
    assert.ok(bits((await get(good, null, { pool })).data).equals(bits(expectedOf(c))));
  } finally {
    server.close();
  }
});

/** Every compressed chunk of these cases, damaged three ways: each read is an error with a code. */
const DAMAGE = ["v3_default", "v3_zstd5_checksum", "v3_blosc_lz4_shuffle", "v3_blosc_zstd_bitshuffle", "v3_gzip1", "v2_blosc_lz4", "v2_lz4", "v2_zlib", "v3_numcodecs_lz4"];

test("damaged chunks are errors with a code naming the array and chunk; the pool goes on", async () => {
  for (const name of DAMAGE) {
    const c = manifest.find((m) => m.case === name);
    const damages = [
      ["truncated", (b) => b.slice(0, b.length >> 1)],
      ["empty", () => new Uint8Array(0)],
      ["garbage", (b) => b.map((x, i) => (i < 16 ? x : (x * 7 + i) & 255))],
    ];
    // An lz4 block has no checksum: garbage that still decodes to the chunk's size cannot be
    // told from data (numcodecs reads it too), so lz4 is damaged only in ways it can see.
    for (const [how, damage] of damages.filter(([how]) => !(how === "garbage" && /lz4$/.test(name)))) {
      const { store, arr } = await opened(c);
      const key = c.zarr_format === 2 ? "/0.0" : "/c/0/0";
      const good = store.files.get(key);
      assert.ok(good, `${name} has chunk ${key}`);
      store.files.set(key, damage(good));
      for (const options of [{}, { pool }]) {
        await assert.rejects(get(arr, null, options), (e) => {
          assert.ok(["CORRUPT_CHUNK", "CHECKSUM", "CHUNK_LENGTH"].includes(e.code), `${name} ${how}: ${e.code} ${e.message}`);
          assert.match(e.message, /^array "\/": chunk (c\/0\/0|0\.0): /, `${name} ${how}: ${e.message}`);
          return true;
        });
      }
    }
  }
  // The pool still reads.
  const c = manifest.find((m) => m.case === "v3_default");
  const { arr } = await opened(c);
  assert.ok(bits((await get(arr, null, { pool })).data).equals(bits(expectedOf(c))));
});

test("a shard index whose crc32c does not match is refused (CHECKSUM)", async () => {
  const c = manifest.find((m) => m.case === "v3_sharded_end");
  const { store, arr } = await opened(c);
  const key = "/c/0/0";
  const shard = store.files.get(key).slice();
  shard[shard.length - 10] ^= 1; // inside the index, before its checksum
  store.files.set(key, shard);
  for (const options of [{}, { pool }]) {
    await assert.rejects(get(arr, null, options), (e) => e.code === "CHECKSUM" && /chunk c\/0\/0 \(shard index\)/.test(e.message));
  }
});

test("nested shards: a damaged inner shard's index, or an entry outside its chunk, is refused naming both levels", async () => {
  // v3_nested_sharded's shard c/0/0: 4 inner shards, their entries (and crc32c) at its end;
  // each inner shard 6 chunks, its entries (and crc32c) at its start.
  const c = manifest.find((m) => m.case === "v3_nested_sharded");
  const key = "/c/0/0";
  const entry = (view, at) => [Number(view.getBigUint64(at, true)), Number(view.getBigUint64(at + 8, true))];
  const seal = (bytes, from, to) => new DataView(bytes.buffer, bytes.byteOffset).setUint32(to, crc32c(bytes.subarray(from, to)), true);
  const cases = [
    ["a flipped bit in inner shard 0's index", "CHECKSUM", /chunk c\/0\/0 \(inner chunk 0\) \(shard index\)/, (shard, view, outer) => {
      shard[entry(view, outer)[0] + 10] ^= 1;
    }],
    ["inner shard 0 shorter than its index", "CHUNK_LENGTH", /chunk c\/0\/0 \(inner chunk 0\).*fewer than its shard index's 100/, (shard, view, outer) => {
      view.setBigUint64(outer + 8, 40n, true);
      seal(shard, outer, outer + 64);
    }],
    ["inner shard 0's first chunk past its end", "CHUNK_LENGTH", /chunk c\/0\/0 \(inner chunk 0, 0\).*the chunk it is in has/, (shard, view, outer) => {
      const [start, length] = entry(view, outer);
      view.setBigUint64(start, BigInt(length), true);
      seal(shard, start, start + 96);
    }],
  ];
  for (const [what, code, pattern, damage] of cases) {
    const { store, arr } = await opened(c);
    const shard = store.files.get(key).slice();
    const view = new DataView(shard.buffer);
    damage(shard, view, shard.length - 68);
    store.files.set(key, shard);
    for (const options of [{}, { pool }]) {
      await assert.rejects(get(arr, null, options), (e) => e.code === code && pattern.test(e.message), what);
    }
  }
});

test("a blosc or zstd header declaring another size than the chunk's is refused before decoding", async () => {
  for (const [name, patch] of [
    // blosc: nbytes (bytes 4..8) one more than the chunk's.
    ["v3_blosc_lz4_shuffle", (b) => { const v = new DataView(b.buffer); v.setUint32(4, v.getUint32(4, true) + 8, true); }],
    // zstd (numcodecs writes the content size): a frame header claiming 2^31 bytes.
    ["v3_default", (b) => { b.set([0x28, 0xb5, 0x2f, 0xfd, 0x80, 0x00, 0x00, 0x00, 0x00, 0x80], 0); }],
  ]) {
    const c = manifest.find((m) => m.case === name);
    const { store, arr } = await opened(c);
    const bytes = store.files.get("/c/0/0").slice();
    patch(bytes);
    store.files.set("/c/0/0", bytes);
    await assert.rejects(get(arr), (e) => e.code === "CORRUPT_CHUNK" && /header|decode to/.test(e.message));
  }
});

test("zarr.get with registerCodecs() decompresses in the compress module: damage is an error with the package's code", async () => {
  for (const name of ["v3_blosc_lz4_shuffle", "v2_blosc_lz4", "v3_default"]) {
    const c = manifest.find((m) => m.case === name);
    const { store, arr } = await opened(c);
    assert.ok(bits((await zarr.get(arr)).data).equals(bits(expectedOf(c))), `${name}: zarr.get reads it`);
    const key = c.zarr_format === 2 ? "/0.0" : "/c/0/0";
    store.files.set(key, store.files.get(key).slice(0, 40));
    await assert.rejects(zarr.get(arr), (e) => errorCode(e) === "CORRUPT_CHUNK", name);
  }
});
