// `concurrency`: how many chunk fetches a read keeps in flight (default 64), one thread and
// pooled, and that chunks decode while later ones are still being fetched; bad values are
// refused before anything is read.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { get, getDecoded, set, WorkerPool } from "zarr-wasm-codecs";

const pool = new WorkerPool(2);
after(() => pool.terminate());

const SIDE = 512;
const CHUNK = 32; // 16 x 16 = 256 chunks

/**
 * A 512 x 512 float64 array of 256 chunks (bytes + gzip) in a store that answers each chunk
 * request `delay` ms late and counts how many it has in flight (the most at once) and how
 * many were in flight when the first chunk was in place.
 */
async function slowArray(delay) {
  const meta = {
    zarr_format: 3, node_type: "array", shape: [SIDE, SIDE], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [CHUNK, CHUNK] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }],
  };
  const map = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const data = Float64Array.from({ length: SIDE * SIDE }, (_, i) => Math.cos(i / 300) * 10 + (i % 5));
  await set(await zarr.open.v3(zarr.root(map), { kind: "array" }), null, { data, shape: [SIDE, SIDE], stride: [SIDE, 1] });
  const counts = { inFlight: 0, most: 0, requests: 0 };
  const store = {
    async get(key) {
      if (key.endsWith("zarr.json")) return map.get(key);
      counts.requests++;
      counts.most = Math.max(counts.most, ++counts.inFlight);
      await new Promise((resolve) => setTimeout(resolve, delay));
      counts.inFlight--;
      return map.get(key);
    },
  };
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  return { arr, counts, data };
}

for (const [name, base] of [["one thread", {}], ["pooled", { pool }], ["pooled, transferred", { pool, useSharedArrayBuffer: false }]]) {
  test(`${name}: at most \`concurrency\` chunk fetches in flight (default 64), values unchanged`, async () => {
    for (const [concurrency, bound] of [[undefined, 64], [1, 1], [5, 5], [100, 100]]) {
      const { arr, counts, data } = await slowArray(2);
      const options = concurrency === undefined ? base : { ...base, concurrency };
      const got = await get(arr, null, options);
      assert.deepEqual(got.data, data);
      assert.equal(counts.requests, 256);
      assert.ok(counts.most <= bound, `${counts.most} in flight, at most ${bound} allowed`);
      // The limit is used, not only respected (the store answers every request late).
      assert.ok(counts.most >= Math.min(bound, 256) * 0.75, `only ${counts.most} in flight with ${bound} allowed`);
    }
  });
}

test("chunks are decoded and placed while later ones are still being fetched", async () => {
  for (const options of [{}, { pool }]) {
    const { arr, counts, data } = await slowArray(5);
    const inFlightAtPlaced = [];
    const got = await get(arr, null, { ...options, concurrency: 8, onProgress: () => inFlightAtPlaced.push(counts.inFlight) });
    assert.deepEqual(got.data, data);
    assert.equal(inFlightAtPlaced.length, 256);
    // Half the chunks were in place while others were fetched.
    const overlapped = inFlightAtPlaced.slice(0, 128).filter((n) => n > 0).length;
    assert.ok(overlapped >= 100, `${overlapped} of the first 128 chunks placed with fetches in flight`);
  }
});

test("a concurrency that is not an integer >= 1 (or Infinity) is refused with INVALID_ARGUMENT, before any request", async () => {
  const { arr, counts } = await slowArray(0);
  for (const concurrency of [0, -1, 1.5, NaN, "4", null]) {
    for (const read of [(o) => get(arr, null, o), (o) => get(arr, null, { ...o, pool }), (o) => getDecoded(arr, null, o)]) {
      await assert.rejects(read({ concurrency }), (e) => e.code === "INVALID_ARGUMENT" && /concurrency/.test(e.message), String(concurrency));
    }
  }
  assert.equal(counts.requests, 0);
  const { arr: other, data } = await slowArray(0);
  assert.deepEqual((await get(other, null, { concurrency: Infinity })).data, data);
});
