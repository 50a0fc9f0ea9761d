// `signal` cancels a whole read, one thread and pooled: the promise rejects with the signal's
// reason (an AbortError) as soon as it fires, a pooled read's jobs that no worker has yet are
// dropped (seen through pool-probe.mjs's workers), and the pool and the module go on with other
// reads. A one-thread read from memory leaves the event loop its turns: a timer's abort lands
// within 60 ms, and a 5 ms interval keeps firing through the read.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { gzipSync } from "node:zlib";
import { after, test } from "node:test";

import * as zarr from "zarrita";
import { get, registerCodecs, set } from "zarr-wasm-codecs";
import { probedPool } from "../shared/pool-probe.mjs";

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
    // One abort listener for the pool's waiting jobs, however many wait (here over 200), beside
    // the read's own (Node warns past ten listeners on one signal).
    assert.ok(getEventListeners(controller.signal, "abort").length <= 3, `${getEventListeners(controller.signal, "abort").length} abort listeners on the read's signal`);
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

/**
 * A 4096 x 4096 float64 array in memory in `chunk` x `chunk` chunks, stored plain or with gzip
 * (level 1, by zlib); every chunk holds the same values, so the store is made at once.
 */
async function largeArray(chunk, gzip) {
  const n = 4096;
  const meta = {
    zarr_format: 3, node_type: "array", shape: [n, n], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [chunk, chunk] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, ...(gzip ? [{ name: "gzip", configuration: { level: 1 } }] : [])],
  };
  const values = Float64Array.from({ length: chunk * chunk }, (_, i) => Math.sin(i / 1000) + (i % 7));
  const raw = new Uint8Array(values.buffer);
  const stored = gzip ? new Uint8Array(gzipSync(raw, { level: 1 })) : raw;
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  for (let i = 0; i < n / chunk; i++) for (let j = 0; j < n / chunk; j++) store.set(`/c/${i}/${j}`, stored);
  return { arr: await zarr.open.v3(zarr.root(store), { kind: "array" }), values };
}

/** Now, as wall time and as the CPU time this process has used (ms). */
function clocks() {
  const { user, system } = process.cpuUsage();
  return { wall: performance.now(), cpu: (user + system) / 1000 };
}

/**
 * How long from `a` to `b`: the wall time, or the CPU time this process used meanwhile when
 * that is less. A read that does not yield holds this thread through both; another process
 * that takes the core away lengthens only the wall time.
 */
const span = (a, b) => Math.min(b.wall - a.wall, b.cpu - a.cpu);

/**
 * One whole read with a 5 ms interval running, then one aborted from a timer a quarter into it:
 * what failed of the bounds (empty when all held) and the figures.
 */
async function turnsOfRead(arr) {
  const ticks = [];
  const interval = setInterval(() => ticks.push(clocks()), 5);
  const start = clocks();
  await get(arr);
  const end = clocks();
  clearInterval(interval);
  const times = [start, ...ticks.filter((t) => t.wall < end.wall), end];
  const gaps = times.slice(1).map((t, i) => span(times[i], t));
  const longest = Math.max(...gaps);
  const failed = [];
  // The interval fires every 20 ms on average (a frame has its turn), and never waits as long
  // as the abort's bound.
  if (gaps.length < span(start, end) / 20) failed.push("the interval fired less than every 20 ms");
  if (longest >= 60) failed.push("the interval waited 60 ms or more");
  // The abort lands within 60 ms of the time its timer was due (then, or as soon after as the
  // read let the timer fire): the read works all along, so its wall and CPU time from the
  // timer's start run `delay` ms until then.
  const controller = new AbortController();
  const delay = Math.max(5, Math.round((end.wall - start.wall) / 4));
  const set = clocks();
  setTimeout(() => controller.abort(), delay);
  const { error } = await settled(get(arr, null, { signal: controller.signal }));
  const late = span(set, clocks()) - delay;
  if (error?.name !== "AbortError") failed.push(`the aborted read ended with ${error ?? "its values"}`);
  if (late >= 60) failed.push("the abort landed 60 ms or more after its timer was due");
  const figures = `${ticks.length} ticks in a ${(end.wall - start.wall).toFixed(0)} ms read, the longest gap ${longest.toFixed(1)} ms; ` +
    `the abort landed ${late.toFixed(1)} ms after its timer was due`;
  return { failed, figures };
}

for (const [chunk, gzip] of [[256, true], [512, true], [256, false], [512, false]]) {
  test(`a one-thread read of 4096 x 4096 float64 in ${chunk} x ${chunk} ${gzip ? "gzip" : "plain"} chunks, in memory, leaves the event loop its turns`, async () => {
    const { arr, values } = await largeArray(chunk, gzip);
    // Once untimed: the modules' memory grown, the code compiled.
    const first = await get(arr);
    assert.equal(first.data[4097 * (chunk + 3)], values[3 * chunk + 3]);
    // Up to three tries, for a pause of this process's own (a collection, say); a read that does
    // not yield fails every time.
    const tries = [];
    for (let i = 0; i < 3; i++) {
      const { failed, figures } = await turnsOfRead(arr);
      if (!failed.length) return;
      tries.push(`${failed.join(", ")} (${figures})`);
    }
    assert.fail(tries.join("; "));
  });
}
