// Store requests of a viewer's pan over a sharded array (zarr-python 3.4.2's
// tests/fixtures/stores/v3_sharded_end.zarr: 40 x 50 float64, shards 20 x 25 of 10 x 5 inner
// chunks, zstd, crc32c index at the end): open plus five windows read with the package's get,
// one thread and pooled, never make more requests than zarr.open plus zarr.get for the same
// windows, and a window read again reads no shard index again where the store is said to be
// immutable (files show no validator: otherwise each read reads its indexes again).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { get, open, registerCodecs, WorkerPool } from "zarr-wasm-codecs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = new URL("../../fixtures/stores/v3_sharded_end.zarr", import.meta.url);
const expected = new Float64Array(readFileSync(new URL("../../fixtures/stores/v3_sharded_end.expected.bin", import.meta.url)).buffer.slice(0));
const [ROWS, COLS] = [40, 50];

/** The fixture's store, with every request it answers counted by kind. */
function countingStore() {
  const files = new FileSystemStore(dir.pathname);
  const counts = { get: 0, range: 0, index: 0 };
  return {
    counts,
    get: (key, opts) => {
      counts.get++;
      return files.get(key, opts);
    },
    getRange: (key, range, opts) => {
      counts.range++;
      if ("suffixLength" in range) counts.index++;
      return files.getRange(key, range, opts);
    },
  };
}

const windows = [[0, 10, 0, 10], [5, 15, 3, 13], [10, 20, 10, 20], [2, 12, 12, 22], [0, 10, 0, 10]];
const selectionOf = ([r0, r1, c0, c1]) => [zarr.slice(r0, r1), zarr.slice(c0, c1)];

function check(got, [r0, r1, c0, c1]) {
  const want = [];
  for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) want.push(expected[i * COLS + j]);
  assert.deepEqual([...got.data], want);
}

test("open and five pan windows over one shard: no more store requests than zarr.get's, each shard index read once", async () => {
  assert.equal(expected.length, ROWS * COLS);
  const theirs = countingStore();
  const arrTheirs = await zarr.open.v3(zarr.root(theirs), { kind: "array" });
  for (const w of windows) check(await zarr.get(arrTheirs, selectionOf(w)), w);
  const total = (c) => c.get + c.range;

  // (Files show no validator: an index is kept between reads only where the store is said to be
  // immutable, as zarrita keeps its own; otherwise each read reads its index again.)
  for (const immutable of [true, false]) {
    for (const options of [{ immutable }, { pool, immutable }, { pool, useSharedArrayBuffer: false, immutable }]) {
      const ours = countingStore();
      const arr = await open(ours);
      for (const w of windows) check(await get(arr, selectionOf(w), options), w);
      assert.ok(total(ours.counts) <= total(theirs.counts), `${JSON.stringify(ours.counts)} against zarr.get's ${JSON.stringify(theirs.counts)}`);
      assert.equal(ours.counts.index, immutable ? 1 : windows.length, "one shard, its index read once (immutable), else once a read");
      assert.equal(ours.counts.get, 1, "zarr.json, read once by open");
      // The same window again: its inner chunks only (immutable), or its index and them.
      const before = { ...ours.counts };
      check(await get(arr, selectionOf(windows[0]), options), windows[0]);
      assert.equal(ours.counts.index, before.index + (immutable ? 0 : 1));
      assert.equal(ours.counts.get, before.get);
    }
  }
});

test("a window over four shards reads each of their indexes once, then none (immutable), or again (by default)", async () => {
  const ours = countingStore();
  const arr = await open(ours);
  const w = [15, 25, 20, 30];
  check(await get(arr, selectionOf(w), { immutable: true }), w);
  assert.equal(ours.counts.index, 4);
  check(await get(arr, selectionOf(w), { pool, immutable: true }), w);
  assert.equal(ours.counts.index, 4);
  // Without `immutable` (files show no validator), each read reads them again.
  check(await get(arr, selectionOf(w), { pool }), w);
  assert.equal(ours.counts.index, 8);
});

test("an array zarr.open opened: get reads zarr.json's text once (zarr.open keeps no exact copy), then one request a window", async () => {
  const theirs = countingStore();
  const arrTheirs = await zarr.open.v3(zarr.root(theirs), { kind: "array" });
  for (const w of windows) check(await zarr.get(arrTheirs, selectionOf(w)), w);
  const ours = countingStore();
  const arr = await zarr.open.v3(zarr.root(ours), { kind: "array" });
  for (const w of windows) check(await get(arr, selectionOf(w), { immutable: true }), w);
  // One merged request a window for its inner chunks (all in one shard), where zarr.get asks for each.
  assert.deepEqual(ours.counts, { get: theirs.counts.get + 1, index: theirs.counts.index, range: theirs.counts.index + windows.length });
  assert.ok(theirs.counts.range > ours.counts.range);
  check(await get(arr, selectionOf(windows[1]), { pool }), windows[1]);
  assert.equal(ours.counts.get, theirs.counts.get + 1, "zarr.json is not read again");
});
