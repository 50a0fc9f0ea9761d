// The buffers a pool's workers give back are kept, a bounded number, for later jobs to copy their
// values into (memory written before costs several times less to write than new). A full list
// drops its oldest: buffers of sizes no job asks for any more (the stored bytes a read copied for
// its workers, another array's rows) must not keep a write's own buffers from coming back to be
// used again.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as zarr from "zarrita";
import { get, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

import { memoryStore } from "../../fixtures/written/cases.mjs";

registerCodecs();

const codecs = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }];

/** An n x n float64 array in chunk x chunk chunks, and values for all of it. */
async function array(n, chunk) {
  const arr = await zarr.create(zarr.root(memoryStore()), { shape: [n, n], chunkShape: [chunk, chunk], dtype: "float64", fillValue: 0, codecs });
  let seed = n + chunk;
  const data = Float64Array.from({ length: n * n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  return { arr, data, value: { data, shape: [n, n], stride: [n, 1] } };
}

test("after a read and another array's write, a pooled write's second run takes every row's buffer from those given back", async () => {
  const pool = new WorkerPool(2);
  try {
    // A read in the pool leaves the stored bytes it copied (small buffers); a write of 1024^2 in
    // 128^2 chunks its rows (1 MB each): together as many buffers as the pool keeps.
    const small = await array(512, 64);
    await set(small.arr, null, small.value);
    assert.deepEqual((await get(small.arr, null, { pool })).data, small.data);
    const other = await array(1024, 128);
    await set(other.arr, null, other.value, { pool });
    // Then 512^2 in 64^2 chunks, twice: 8 rows of 8 chunks (256 KB each).
    const asked = { given: 0, none: 0 };
    const spareBuffer = pool.spareBuffer;
    pool.spareBuffer = function (bytes) {
      const found = spareBuffer.call(this, bytes);
      asked[found ? "given" : "none"]++;
      return found;
    };
    await set(small.arr, null, small.value, { pool });
    assert.equal(asked.given + asked.none, 8);
    asked.given = asked.none = 0;
    await set(small.arr, null, small.value, { pool });
    assert.deepEqual(asked, { given: 8, none: 0 });
    assert.deepEqual((await get(small.arr)).data, small.data);
  } finally {
    await pool.terminate();
  }
});
