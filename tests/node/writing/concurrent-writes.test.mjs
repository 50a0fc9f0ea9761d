// Writes started together (Promise.all) into one array: disjoint writes all land, overlapping
// ones take effect in the order the calls were made, through one array object or two opened on
// the same store, and with writePacked among them; reads called before a write see the array
// as it was, and reads called after it see the write, whole (sharded arrays keep their shard
// indexes between reads); one thread and pooled. Each chain is tried
// 100 times: four row bands of a 64 x 64 array whose bands share chunks (32 x 32) or shards
// (32 x 32 of 16 x 16, a crc32c index): zstd, sharded, zarr v2 blosc, and packed as uint8. The
// expected values are those of the same writes made one after another, read back by `get`.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import * as zarr from "zarrita";

import { get, open, set, WorkerPool, writePacked } from "zarr-wasm-codecs";
import { memoryStore } from "../../fixtures/written/cases.mjs";

const pool = new WorkerPool(2);
after(() => pool.terminate());

const TRIALS = 100;
const N = 64;
const bytes = { name: "bytes", configuration: { endian: "little" } };
const zstd = { name: "zstd", configuration: { level: 1, checksum: false } };
const json = (o) => new TextEncoder().encode(JSON.stringify(o));

/** zarr.json of a 64 x 64 float64 array with `codecs` in `chunks` chunks. */
function v3(codecs, chunks = [32, 32]) {
  return json({
    zarr_format: 3, node_type: "array", shape: [N, N], data_type: "float64", fill_value: "NaN",
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
    chunk_key_encoding: { name: "default" }, codecs, attributes: {},
  });
}

const CHAINS = {
  "v3 zstd": { "/zarr.json": v3([bytes, zstd]) },
  "v3 sharded, crc32c index": {
    "/zarr.json": v3([{
      name: "sharding_indexed",
      configuration: { chunk_shape: [16, 16], codecs: [bytes, zstd], index_codecs: [bytes, { name: "crc32c" }], index_location: "end" },
    }]),
  },
  "v2 blosc": {
    "/.zarray": json({
      zarr_format: 2, shape: [N, N], chunks: [32, 32], dtype: "<f8", fill_value: "NaN", order: "C", filters: null,
      compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
    }),
  },
  // Inner chunks with no compression: an inner chunk's range taken from a stale shard index
  // would read as other values, not fail.
  "v3 sharded, uncompressed": {
    "/zarr.json": v3([{
      name: "sharding_indexed",
      configuration: { chunk_shape: [16, 16], codecs: [bytes], index_codecs: [bytes, { name: "crc32c" }], index_location: "start" },
    }]),
  },
  "packed uint8": {
    "/zarr.json": v3([
      { name: "scale_offset", configuration: { offset: -10, scale: 4 } },
      { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
      bytes, zstd,
    ]),
  },
};

/** A fresh store holding the chain's metadata alone, and the array opened from it. */
async function fresh(chain) {
  const store = memoryStore();
  for (const [key, b] of Object.entries(CHAINS[chain])) store.files.set(key, b);
  return { store, arr: await open(zarr.root(store)) };
}

/** Band `b` (16 rows) of a field that differs with `seed`, as `set` takes it. */
function band(b, seed) {
  const data = Float64Array.from({ length: 16 * N }, (_, k) => ((b * 16 * N + k + seed * 7) % 160) / 4 - 10 + 0.25);
  return { selection: [zarr.slice(16 * b, 16 * (b + 1)), null], value: { data, shape: [16, N], stride: [N, 1] } };
}

const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** What `writes` (functions of an array) leave when made one after another. */
async function oneAfterAnother(chain, writes) {
  const { arr } = await fresh(chain);
  for (const w of writes) await w(arr);
  return bits((await get(arr)).data);
}

for (const chain of Object.keys(CHAINS)) {
  for (const [how, options] of [["one thread", {}], ["pooled", { pool }]]) {
    test(`${chain}, ${how}: four bands sharing chunks, started together, all land (${TRIALS} trials)`, async () => {
      const writes = [0, 1, 2, 3].map((b) => (arr) => set(arr, band(b, 1).selection, band(b, 1).value, options));
      const want = await oneAfterAnother(chain, writes);
      for (let trial = 0; trial < TRIALS; trial++) {
        const { arr } = await fresh(chain);
        await Promise.all(writes.map((w) => w(arr)));
        assert.ok(bits((await get(arr)).data).equals(want), `trial ${trial}: a write was lost`);
      }
    });
  }
}

test("overlapping writes started together take effect in the order of the calls, through one array object or two", async () => {
  for (const chain of Object.keys(CHAINS)) {
    for (const options of [{}, { pool }]) {
      // The whole array twice, then a band over it: the last call's values win where they overlap.
      const whole = (seed) => ({ data: Float64Array.from({ length: N * N }, (_, k) => ((k + seed) % 160) / 4 - 10), shape: [N, N], stride: [N, 1] });
      const writes = [
        (arr) => set(arr, null, whole(3), options),
        (arr) => set(arr, null, whole(5), options),
        (arr) => set(arr, band(2, 9).selection, band(2, 9).value, options),
      ];
      const want = await oneAfterAnother(chain, writes);
      for (let trial = 0; trial < 25; trial++) {
        const { store, arr } = await fresh(chain);
        const other = await open(zarr.root(store));
        await Promise.all(writes.map((w, i) => w(i % 2 ? other : arr)));
        assert.ok(bits((await get(arr)).data).equals(want), `${chain} trial ${trial}: not in the order of the calls`);
      }
    }
  }
});

test("writePacked takes its turn with the array's other writes", async () => {
  const field = Float64Array.from({ length: N * N }, (_, k) => Math.sin(k / 50) * 5);
  for (const options of [{}, { pool }]) {
    const packedOptions = { shape: [N, N], chunkShape: [32, 32], target: "uint8", ...options };
    const run = async (together) => {
      const store = memoryStore();
      const location = zarr.root(store);
      const { array } = await writePacked(location, field, packedOptions);
      // Rows 16 to 31, within the plan's range.
      const b = { selection: [zarr.slice(16, 32), null], value: { data: field.slice(16 * N, 32 * N).map((v) => v * 0.9), shape: [16, N], stride: [N, 1] } };
      const writes = [() => writePacked(location, field.map((v) => -v), packedOptions), () => set(array, b.selection, b.value, options)];
      if (together) await Promise.all(writes.map((w) => w()));
      else for (const w of writes) await w();
      return bits((await get(await open(location))).data);
    };
    const want = await run(false);
    for (let trial = 0; trial < 25; trial++) assert.ok((await run(true)).equals(want), `trial ${trial}`);
  }
});

test("a write aborted while it waits its turn rejects at once and writes nothing; the writes after it go on", async () => {
  const { arr } = await fresh("v3 zstd");
  const controller = new AbortController();
  const [first, second, third] = [band(0, 1), band(0, 2), band(0, 3)];
  const writes = [
    set(arr, first.selection, first.value),
    set(arr, second.selection, second.value, { signal: controller.signal }),
    set(arr, third.selection, third.value),
  ];
  controller.abort();
  const outcomes = await Promise.allSettled(writes);
  assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected", "fulfilled"]);
  assert.equal(outcomes[1].reason.name, "AbortError");
  const got = await get(arr, [zarr.slice(0, 16), null]);
  assert.ok(bits(got.data).equals(bits(third.value.data)));
});

test("reads called before a write see the array as it was; reads called after it see the write, whole", async () => {
  for (const chain of Object.keys(CHAINS)) {
    for (const options of [{}, { pool }]) {
      const first = [0, 1, 2, 3].map((b) => (arr) => set(arr, band(b, 1).selection, band(b, 1).value));
      const was = await oneAfterAnother(chain, first);
      const b = band(1, 6);
      const now = await oneAfterAnother(chain, [...first, (arr) => set(arr, b.selection, b.value)]);
      for (let trial = 0; trial < 25; trial++) {
        const { arr } = await fresh(chain);
        for (const w of first) await w(arr);
        await get(arr, null, options); // (shard indexes kept from here on)
        const before = get(arr, null, options);
        const writing = set(arr, b.selection, b.value, options);
        const after = get(arr, null, options);
        await writing;
        assert.ok(bits((await before).data).equals(was), `${chain} trial ${trial}: a read called before the write saw it`);
        assert.ok(bits((await after).data).equals(now), `${chain} trial ${trial}: a read called after the write did not see it whole`);
      }
    }
  }
});
