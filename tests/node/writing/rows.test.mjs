// A pooled write sends its chunks to the workers in rows of chunks (one job a row): however long
// the rows, as many row jobs are under way as the workers take at once, so that no worker waits
// for the next row's values to be copied while the other encodes (a write of 256 chunks, in rows
// of 16, once sent one row at a time: one worker at work). A sharded write shares them between the
// shards under way, and lays each shard out while the next shards' rows encode.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { get, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

import { memoryStore } from "../../fixtures/written/cases.mjs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

/** Counts the row jobs under way at once, through the pool's encodeRow. */
function countRows(p) {
  const seen = { jobs: 0, chunks: 0, most: 0 };
  let open = 0;
  const encodeRow = p.encodeRow;
  p.encodeRow = async function (job, ...rest) {
    seen.jobs++;
    seen.chunks += job.members.length;
    seen.most = Math.max(seen.most, ++open);
    try {
      return await encodeRow.call(this, job, ...rest);
    } finally {
      open--;
    }
  };
  return seen;
}

for (const [chunks, side] of [[64, 8], [256, 16], [1024, 32]]) {
  test(`a pooled write of ${chunks} chunks keeps two row jobs on each of the 2 workers`, async () => {
    const seen = countRows(pool);
    try {
      const store = memoryStore();
      const n = side * 16;
      const arr = await zarr.create(zarr.root(store), { shape: [n, n], chunkShape: [16, 16], dtype: "float64", fillValue: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
      const data = Float64Array.from({ length: n * n }, (_, i) => i % 977);
      await set(arr, null, { data, shape: [n, n], stride: [n, 1] }, { pool });
      assert.equal(seen.chunks, chunks, "every chunk in a row job");
      assert.ok(seen.jobs > 4, `${seen.jobs} row jobs`);
      assert.equal(seen.most, 4, "row jobs under way at once");
      assert.deepEqual((await get(arr)).data, data);
    } finally {
      delete pool.encodeRow;
    }
  });
}

/** A pooled write of a 256^2 float64 array in 64^2 shards of 16^2 inner chunks (values i % `m`). */
async function shardedWrite(m) {
  const n = 256;
  const inner = [{ name: "bytes", configuration: { endian: "little" } }];
  const codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [16, 16], codecs: inner, index_codecs: inner, index_location: "end" } }];
  const arr = await zarr.create(zarr.root(memoryStore()), { shape: [n, n], chunkShape: [64, 64], dtype: "float64", fillValue: 0, codecs });
  const data = Float64Array.from({ length: n * n }, (_, i) => i % m);
  await set(arr, null, { data, shape: [n, n], stride: [n, 1] }, { pool });
  return { arr, data };
}

test("a pooled sharded write shares the 4 row jobs between the 2 shards under way", async () => {
  const seen = countRows(pool);
  try {
    const { arr, data } = await shardedWrite(991);
    // 16 shards of 4 x 4 inner chunks: 64 rows of 4.
    assert.equal(seen.chunks, 256);
    assert.equal(seen.jobs, 64);
    assert.equal(seen.most, 4, "row jobs under way at once");
    assert.deepEqual((await get(arr)).data, data);
  } finally {
    delete pool.encodeRow;
  }
});

test("a pooled sharded write encodes the next shards' inner chunks while a shard is laid out", async () => {
  // Every shard's layout is held back until all 64 row jobs have been sent (or, should that never
  // happen, a while): the rows of all 16 shards must not wait for any shard's layout.
  const sent = { rows: 0, beforeFirstLayout: undefined };
  let release;
  const allSent = new Promise((resolve) => (release = resolve));
  const encodeRow = pool.encodeRow;
  const layShard = pool.layShard;
  pool.encodeRow = function (...args) {
    if (++sent.rows === 64) release();
    return encodeRow.apply(this, args);
  };
  pool.layShard = async function (...args) {
    const laid = await layShard.apply(this, args);
    let timer;
    await Promise.race([allSent, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    sent.beforeFirstLayout ??= sent.rows;
    return laid;
  };
  try {
    const { arr, data } = await shardedWrite(983);
    assert.equal(sent.beforeFirstLayout, 64, "row jobs sent before the first shard's layout came back");
    assert.deepEqual((await get(arr)).data, data);
  } finally {
    delete pool.encodeRow;
    delete pool.layShard;
  }
});
