// `signal` cancels a whole read, one thread and pooled: the promise rejects with the signal's
// reason (an AbortError) as soon as it fires, a pooled read's jobs that no worker has yet are
// dropped (seen through pool-probe.mjs's workers), and the pool and the module go on with other
// reads.
import assert from "node:assert/strict";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { get, registerCodecs, set } from "zarr-wasm-codecs";
import { probedPool } from "./pool-probe.mjs";

registerCodecs();

const probe = await probedPool(2);
const pool = probe.pool;
after(() => probe.close());

/** A 1024 x 1024 float64 array in 64 x 64 gzip chunks (256), in memory; reads take a while. */
async function bigArray() {
  const meta = {
    zarr_format: 3, node_type: "array", shape: [1024, 1024], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [64, 64] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }],
  };
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const data = Float64Array.from({ length: 1024 * 1024 }, (_, i) => Math.sin(i / 1000) + (i % 7));
  await set(arr, null, { data, shape: [1024, 1024], stride: [1024, 1] });
  return arr;
}

async function settled(promise) {
  try {
    await promise;
    return { value: true };
  } catch (error) {
    return { error };
  }
}

test("an aborted read rejects at once with the signal's AbortError; a pooled one's waiting jobs are dropped; reads go on", async () => {
  const arr = await bigArray();
  const whole = await get(arr);
  // Already aborted: nothing is read.
  for (const options of [{}, { pool }]) {
    const e = await settled(get(arr, null, { ...options, signal: AbortSignal.abort() }));
    assert.equal(e.error?.name, "AbortError");
  }
  for (const useSharedArrayBuffer of [true, false]) {
    const controller = new AbortController();
    const read = settled(get(arr, null, { pool, useSharedArrayBuffer, signal: controller.signal }));
    // Abort once the workers are busy with the read's first jobs (each holds two at a time, and
    // the read's other chunks wait in the pool).
    const before = probe.jobs();
    await probe.until(() => probe.jobs() >= before + 4, "the workers to take jobs");
    const abortedAt = probe.now();
    const started = performance.now();
    controller.abort();
    const { error } = await read;
    assert.equal(error?.name, "AbortError", String(error));
    assert.ok(performance.now() - started < 100, `rejected ${performance.now() - started} ms after the abort`);
    await new Promise((r) => setTimeout(r, 100));
    // Jobs sent before the abort may have reached the workers only after it: at most the two
    // each worker holds. The read's other chunks (256 in all) were never sent.
    assert.ok(probe.jobsSince(abortedAt) <= 4, `${probe.jobsSince(abortedAt)} jobs reached the workers after the abort`);
    // The pool reads on, the same values as one thread.
    const again = await get(arr, null, { pool, useSharedArrayBuffer });
    assert.ok(Buffer.from(again.data.buffer, again.data.byteOffset, again.data.byteLength)
      .equals(Buffer.from(whole.data.buffer, whole.data.byteOffset, whole.data.byteLength)));
  }
  // One thread: aborted while its chunks are fetched.
  const controller = new AbortController();
  const slowStore = { get: async (key) => (await new Promise((r) => setTimeout(r, 5)), arr.store.get(key)) };
  const slow = await zarr.open.v3(zarr.root(slowStore), { kind: "array" });
  const read = settled(get(slow, null, { signal: controller.signal }));
  setTimeout(() => controller.abort(), 2);
  const { error } = await read;
  assert.equal(error?.name, "AbortError", String(error));
  assert.equal((await get(slow, [3, 5])), whole.data[3 * 1024 + 5]);
});

