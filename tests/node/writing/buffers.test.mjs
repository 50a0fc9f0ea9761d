// The buffers a write takes each chunk's values into are used again for the next chunk (on this
// thread, and in a worker for the members of a row job): each chunk must still be stored in bytes
// of its own, whatever the chain (with no compressor the stored bytes can be the values
// themselves, whose buffer is then not used again), and read back as written: whole chunks, edge
// chunks and chunks a selection covers only in part.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { get, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

import { memoryStore } from "../../fixtures/written/cases.mjs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

const BYTES = { name: "bytes", configuration: { endian: "little" } };
const ZSTD = { name: "zstd", configuration: { level: 3, checksum: false } };
const CHAINS = {
  "bytes alone": [BYTES],
  "bytes, zstd": [BYTES, ZSTD],
  "scale_offset, cast_value, bytes": [
    { name: "scale_offset", configuration: { offset: 0, scale: 1 } },
    { name: "cast_value", configuration: { data_type: "int16", rounding: "nearest-even", out_of_range: "clamp" } },
    BYTES,
  ],
};

/** Whole numbers (which every chain above keeps exactly), different in every chunk. */
const values = (n, seed) => Float64Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 2001) - 1000);

for (const [name, codecs] of Object.entries(CHAINS)) {
  for (const [how, options] of [["one thread", {}], ["pool", { pool }]]) {
    test(`every chunk in bytes of its own, read back as written (${name}, ${how})`, async () => {
      const store = memoryStore();
      const shape = [70, 90];
      const arr = await zarr.create(zarr.root(store), { shape, chunkShape: [16, 16], dtype: "float64", fillValue: 0, codecs });
      const whole = values(70 * 90, 3);
      await set(arr, null, { data: whole, shape, stride: [90, 1] }, options);
      // 5 x 6 chunks, the last row and column at the array's edge.
      const keys = [...store.files.keys()].filter((k) => k !== "/zarr.json");
      assert.equal(keys.length, 30);
      const buffers = new Set(keys.map((k) => store.files.get(k).buffer));
      assert.equal(buffers.size, 30, "each chunk's stored bytes have a buffer of their own");
      // Part of every chunk but the first row and column: laid over what the chunks held.
      const part = values(50 * 70, 5);
      await set(arr, [zarr.slice(20, 70), zarr.slice(20, 90)], { data: part, shape: [50, 70], stride: [70, 1] }, options);
      const want = Float64Array.from(whole);
      for (let r = 0; r < 50; r++) want.set(part.subarray(r * 70, (r + 1) * 70), (20 + r) * 90 + 20);
      const chunks = [...store.files].filter(([k]) => k !== "/zarr.json");
      assert.equal(new Set(chunks.map(([, v]) => v.buffer)).size, chunks.length);
      assert.deepEqual((await get(arr)).data, want);
      assert.deepEqual((await zarr.get(arr)).data, want);
    });
  }
}
