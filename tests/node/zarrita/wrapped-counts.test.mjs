// What zarr.get over `withWasmCodecs(store)` does per chunk on one thread, counted: requests,
// outputs made, tasks waited for, shard indexes read, and the turn it takes with writes. (What
// makes it as fast as zarr.get after registerCodecs(): bench/extension.mjs times it; here the
// work is counted, so that a change that adds work per chunk fails whatever the machine.)
// Stores: tests/fixtures/stores (zarr-python 3.4.2), values held to what zarr-python read.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { open, registerCodecs, set, withWasmCodecs } from "zarr-wasm-codecs";
import { memoryStore } from "../shared/files.mjs";

registerCodecs();
const fixtures = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(fixtures, "manifest.json"), "utf8"));
const caseOf = (name) => manifest.find((c) => c.case === name);
const expectedOf = (c) => {
  const b = readFileSync(join(fixtures, c.expected));
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

/** An app's array extension around the wrapped store's, keeping every chunk getChunk hands zarr.get. */
const recording = zarr.defineStoreExtension((_store, opts) => ({
  arrayExtensions: [
    zarr.defineArrayExtension((array) => ({
      async getChunk(coords, options) {
        const chunk = await array.getChunk(coords, options);
        opts.chunks.push({ coords, chunk });
        return chunk;
      },
    })),
  ],
}));

/** `f`'s result, and how many tasks (setImmediate, setTimeout) were asked for while it ran. */
async function countingTasks(f) {
  const [immediate, timeout] = [globalThis.setImmediate, globalThis.setTimeout];
  let tasks = 0;
  globalThis.setImmediate = (...args) => (tasks++, immediate(...args));
  globalThis.setTimeout = (...args) => (tasks++, timeout(...args));
  try {
    return { result: await f(), tasks };
  } finally {
    [globalThis.setImmediate, globalThis.setTimeout] = [immediate, timeout];
  }
}

/** Whether chunk (r, c) of `c` lies wholly inside its array. */
const whole = (c, [r, k]) => (r + 1) * c.chunks[0] <= c.shape[0] && (k + 1) * c.chunks[1] <= c.shape[1];

for (const name of ["v2_none", "v3_default"]) {
  test(`${name}: zarr.get over the wrapped store asks the store once a chunk, makes one output a chunk, waits for no task between chunks`, async () => {
    const c = caseOf(name);
    const store = memoryStore(join(fixtures, c.store));
    const chunks = [];
    const arr = await zarr.open(zarr.root(recording(withWasmCodecs(store), { chunks })), { kind: "array" });
    const before = store.requests.length;
    const { result, tasks } = await countingTasks(() => zarr.get(arr));
    assert.deepEqual(result.data, expectedOf(c), "as zarr-python read it");
    const grid = c.shape.map((n, i) => Math.ceil(n / c.chunks[i]));
    const count = grid[0] * grid[1];
    // Every chunk's key asked for once (the missing one too), nothing else.
    const asked = store.requests.slice(before);
    assert.equal(asked.length, count, `requests: ${asked}`);
    assert.equal(new Set(asked).size, count);
    assert.equal(tasks, 0, "no task waited for: the chunks' reads go on in microtasks");
    // One output per chunk, its own: the chunk's size exactly, not a view of a bigger buffer
    // (wasm memory, a slab shared with other chunks) nor of the store's bytes.
    assert.equal(chunks.length, count);
    const size = c.chunks[0] * c.chunks[1] * 8;
    const files = new Set([...store.files.values()].map((b) => b.buffer));
    const buffers = new Set();
    for (const { coords, chunk } of chunks) {
      assert.ok(chunk.data instanceof Float64Array, `chunk ${coords}`);
      assert.equal(chunk.data.buffer.byteLength, size, `chunk ${coords}: its own buffer of its size`);
      assert.ok(!files.has(chunk.data.buffer), `chunk ${coords}: not the store's bytes`);
      buffers.add(chunk.data.buffer);
      assert.deepEqual(chunk.shape, c.chunks);
      assert.deepEqual(chunk.stride, [c.chunks[1], 1]);
    }
    assert.equal(buffers.size, count, "every chunk an output of its own");
    // The whole chunks (the edge ones are read by the read plan, their rest the fill value).
    assert.ok(chunks.filter(({ coords }) => whole(c, coords)).length >= 4);
  });
}

test("a sharded array: one zarr.get's chunks read as one read, each shard's index once (or the shard whole), its chunks each an output of its own", async () => {
  const c = caseOf("v3_sharded_end");
  const store = memoryStore(join(fixtures, c.store));
  const chunks = [];
  const arr = await zarr.open(zarr.root(recording(withWasmCodecs(store), { chunks })), { kind: "array" });
  const expected = expectedOf(c);
  // A window of inner-chunk rows 1-2 and columns 2-6: shards (0, 0), (0, 1), (1, 0), (1, 1).
  const before = store.requests.length;
  const got = await zarr.get(arr, [zarr.slice(12, 28), zarr.slice(12, 33)]);
  const want = new Float64Array(16 * 21);
  for (let r = 0; r < 16; r++) want.set(expected.subarray((12 + r) * 50 + 12, (12 + r) * 50 + 33), r * 21);
  assert.deepEqual(got.data, want, "as zarr-python read it");
  const asked = store.requests.slice(before);
  const shards = ["/c/0/0", "/c/0/1", "/c/1/0", "/c/1/1"];
  for (const shard of shards) {
    // Its index read once by a suffix (the store shows no validator: not kept from a read
    // before), or the shard read whole, once.
    const of = asked.filter((r) => r.split(" ")[0] === shard);
    const index = of.filter((r) => r.endsWith("suffix")).length;
    const wholes = of.filter((r) => r === shard).length;
    assert.ok((index === 1 && wholes === 0) || (index === 0 && wholes === 1), `${shard}: ${of}`);
  }
  // 2 rows x 5 columns of inner chunks, each an output of its own of the inner chunk's size.
  assert.equal(chunks.length, 10);
  assert.equal(new Set(chunks.map(({ chunk }) => chunk.data.buffer)).size, 10);
  for (const { coords, chunk } of chunks) assert.equal(chunk.data.buffer.byteLength, 10 * 5 * 8, `chunk ${coords}`);
  // The missing inner chunk (1, 2) of shard (0, 1) is (1, 7): not in the window; one that is
  // there and one read again give the same values.
  const again = await zarr.get(arr, [zarr.slice(12, 28), zarr.slice(12, 33)]);
  assert.deepEqual(again.data, want);
});

test("chunk reads and writes through the wrapped store keep the order they were called in: a getChunk called before a set reads the old values, one called after it the new", async () => {
  // (What is promised is the order of the chunk reads zarrita makes, docs/writing.md: a
  // zarr.get asks for its chunks some microtasks after it is called.)
  const c = caseOf("v3_default");
  const old = expectedOf(c);
  const region = [zarr.slice(0, 16), zarr.slice(0, 20)];
  const fresh = new Float64Array(16 * 20).map((_, i) => i + 0.5);
  const oldOf = (k) => {
    const out = new Float64Array(16 * 20);
    for (let r = 0; r < 16; r++) out.set(old.subarray(r * 45 + 20 * k, r * 45 + 20 * k + 20), r * 20);
    return out;
  };
  for (let round = 0; round < 3; round++) {
    const store = memoryStore(join(fixtures, c.store));
    store.set = async (k, v) => void store.files.set(k, v);
    const wrapped = withWasmCodecs(store);
    const arr = await zarr.open(zarr.root(wrapped), { kind: "array" });
    const own = await open(zarr.root(wrapped), { kind: "array" });
    // Warmed: the array's reader made, so that every getChunk below starts at its call.
    await arr.getChunk([1, 0]);
    // Called in one go, none awaited: two reads, a write, two reads (the first two one batch,
    // which the last two may not join).
    const before = [arr.getChunk([0, 0]), arr.getChunk([0, 1])];
    const written = set(own, region, { data: fresh.slice(), shape: [16, 20], stride: [20, 1] });
    const after = [arr.getChunk([0, 0]), arr.getChunk([0, 1])];
    const [b0, b1, , a0, a1] = await Promise.all([...before, written, ...after]);
    assert.deepEqual(b0.data, oldOf(0), `round ${round}: the chunk read called before the write`);
    assert.deepEqual(b1.data, oldOf(1), `round ${round}: the chunk beside it, read before`);
    assert.deepEqual(a0.data, fresh, `round ${round}: the chunk read called after it`);
    assert.deepEqual(a1.data, oldOf(1), `round ${round}: the chunk beside it, read after`);
    // A write called after reads waits for them: the reads before it saw no part of it.
  }
});
