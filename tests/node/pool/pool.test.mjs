// Reads in a worker pool (worker threads in Node): the same values, bit for bit, as the
// single-thread get and getDecoded over zarr-python's stores and over random arrays and
// selections, with a shared output and with transferred results; errors with the same code;
// a lost worker replaced (seen through pool-probe.mjs's workers); termination; an idle pool not
// holding the process.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";

import { defaultPool, get, getDecoded, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
import { rejection } from "../shared/files.mjs";
import { probedPool } from "../shared/pool-probe.mjs";
import { randomArray, randomSelection, rng } from "../shared/random-arrays.mjs";

registerCodecs();

const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
const expected = JSON.parse(readFileSync(join(fixtures, "expected.json"), "utf8"));
const cfExpected = JSON.parse(readFileSync(join(fixtures, "cf/expected.json"), "utf8"));
const hex = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex");

const pool = new WorkerPool(3);
after(() => pool.terminate());

/** Both ways a pool returns values: written into a shared output, or transferred back. */
const MODES = [
  { pool, useSharedArrayBuffer: true },
  { pool, useSharedArrayBuffer: false },
];

function same(a, b, what) {
  if (typeof b !== "object") return assert.ok(Object.is(a, b), what);
  assert.deepEqual(a.shape, b.shape, what);
  assert.deepEqual(a.stride, b.stride, what);
  assert.equal(a.data.constructor, b.data.constructor, what);
  assert.equal(hex(a.data), hex(b.data), what);
}

for (const [name, want] of Object.entries(expected)) {
  test(`pool get ${name}: zarr-python's values bit for bit, whole and in selections`, async () => {
    const arr = await zarr.open.v3(zarr.root(new FileSystemStore(join(fixtures, "stores", `${name}.zarr`))), { kind: "array" });
    for (const options of MODES) {
      const whole = await get(arr, null, options);
      assert.deepEqual(whole.shape, want.shape);
      assert.equal(hex(whole.data), want.read_hex);
      assert.equal(whole.data.buffer instanceof SharedArrayBuffer, options.useSharedArrayBuffer);
      for (const s of [arr.shape.map((d) => zarr.slice(1, d - 1, 2)), arr.shape.map((d, i) => (i === 0 ? d - 1 : null))]) {
        same(await get(arr, s, options), await get(arr, s), `${name} ${JSON.stringify(s)}`);
      }
    }
  });
}

for (const [name, want] of Object.entries(cfExpected)) {
  test(`pool getDecoded ${name}: xarray's decoding bit for bit`, async () => {
    const store = new FileSystemStore(join(fixtures, "cf/stores", `${name}.zarr`));
    const arr = await zarr.open.v3(zarr.root(store).resolve(want.array), { kind: "array" });
    for (const options of MODES) {
      const ours = await getDecoded(arr, null, options);
      const single = await getDecoded(arr);
      assert.deepEqual(ours.shape, single.shape);
      assert.equal(hex(ours.data), hex(single.data));
    }
  });
}

test("property: a pool's get and getDecoded equal the single-thread ones over random arrays and selections", async () => {
  const r = rng(8128);
  let compared = 0;
  for (let round = 0; round < 80; round++) {
    const { arr, desc } = await randomArray(r, round);
    for (let k = 0; k < 3; k++) {
      const selection = k === 0 ? null : randomSelection(r, arr.shape);
      const what = `${desc} ${JSON.stringify(selection)}`;
      const single = await get(arr, selection);
      for (const options of MODES) same(await get(arr, selection, options), single, what);
      if (k === 1 && typeof single === "object") {
        const decoded = await getDecoded(arr, selection);
        same(await getDecoded(arr, selection, MODES[round % 2]), decoded, `getDecoded ${what}`);
      }
      compared++;
    }
  }
  assert.equal(compared, 240);
});

/** An n x n float64 array stored as uint8 with gzip, in 16 x 16 chunks, in memory. */
async function smallArray(n = 64) {
  const store = new Map();
  const meta = {
    zarr_format: 3, node_type: "array", shape: [n, n], data_type: "float64", fill_value: "NaN", attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [16, 16] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [
      { name: "scale_offset", configuration: { offset: -10, scale: 10 } },
      { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
      { name: "bytes" },
      { name: "gzip", configuration: { level: 1 } },
    ],
  };
  store.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const data = Float64Array.from({ length: n * n }, (_, i) => (i % 97 === 0 ? NaN : Math.sin(i / 50) * 9));
  await set(arr, null, { data, shape: [n, n], stride: [n, 1] });
  return { store, arr };
}

test("a bad chunk rejects the read with the single-thread path's Error and code; the pool goes on", async () => {
  const { store, arr } = await smallArray();
  const good = await get(arr);
  const gz = (bytes) => new Uint8Array(execFileSync("gzip", ["-c"], { input: bytes }));
  // A chunk of 255 bytes where 256 are due (gzipped, so that only the wasm can tell).
  store.set("/c/1/2", gz(new Uint8Array(255)));
  const single = await rejection(() => get(arr));
  assert.equal(single.code, "CHUNK_LENGTH");
  for (const options of MODES) {
    const e = await rejection(() => get(arr, null, options));
    assert.equal(e.code, single.code);
    assert.equal(e.message, single.message);
  }
  // Not gzip at all.
  store.set("/c/1/2", new Uint8Array([1, 2, 3]));
  const notGzip = await rejection(() => get(arr));
  for (const options of MODES) assert.equal((await rejection(() => get(arr, null, options))).code, notGzip.code);
  store.delete("/c/1/2");
  const fine = await get(arr, null, MODES[0]);
  const expect = await get(arr);
  assert.equal(hex(fine.data), hex(expect.data));
  assert.notEqual(hex(fine.data), hex(good.data)); // the deleted chunk reads as the fill value
});

test("a worker lost mid-read rejects the read with WORKER_LOST; a new worker takes its place", async () => {
  // 4096 chunks: each worker has many jobs queued when one is ended. (With 1024, a worker on a
  // busy machine could answer all its jobs before the message ending it arrived, and the read
  // then rightly succeeded: one fresh-clone run in three.)
  const { arr } = await smallArray(1024);
  const want = hex((await get(arr)).data);
  // With a shared output, and without: then the worker that assembles the output, or another.
  for (const [useSharedArrayBuffer, which] of [[true, "busy"], [false, "assembler"], [false, "other"]]) {
    const probe = await probedPool(2);
    // The pool's first read: its workers are still starting when one is ended, so it cannot
    // have answered all its jobs.
    const read = get(arr, null, { pool: probe.pool, useSharedArrayBuffer });
    read.catch(() => {});
    // Every worker has started (one ended before would be a failed start, WORKER_START_FAILED)
    // and holds jobs of the read (not only the assembling worker's "begin").
    const busy = () => [...probe.workers.values()].filter((w) => w.jobs > 0);
    await probe.until(() => busy().length === 2 && probe.jobs() >= 4, "both workers to take jobs");
    const victim = which === "busy" ? busy()[0] : busy().find((w) => w.assembles === (which === "assembler"));
    assert.ok(victim, `a worker that ${which === "other" ? "does not assemble" : "assembles"} the output`);
    probe.end(victim.thread);
    const e = await rejection(() => read);
    assert.equal(e.code, "WORKER_LOST", `${useSharedArrayBuffer} ${which}`);
    for (let i = 0; i < 3; i++) assert.equal(hex((await get(arr, null, { pool: probe.pool, useSharedArrayBuffer })).data), want);
    await probe.close();
  }
});

test("many reads at once share a pool, with and without a shared output; a failing one fails alone", async () => {
  const { arr } = await smallArray(200);
  const broken = await smallArray(200);
  broken.store.set("/c/3/3", new Uint8Array(broken.store.get("/c/3/4")).subarray(0, 40));
  const brokenError = await rejection(() => get(broken.arr));
  const r = rng(31);
  const selections = Array.from({ length: 12 }, (_, i) => (i === 0 ? null : randomSelection(r, arr.shape)));
  const singles = await Promise.all(selections.map((s) => get(arr, s)));
  for (const options of MODES) {
    // Jobs of all these reads wait in the pool together and go to the workers in shared messages.
    const failing = rejection(() => get(broken.arr, null, options));
    const pooled = await Promise.all(selections.map((s) => get(arr, s, options)));
    pooled.forEach((p, i) => same(p, singles[i], `${JSON.stringify(selections[i])} ${options.useSharedArrayBuffer}`));
    const e = await failing;
    assert.equal(e.code, brokenError.code);
    assert.equal(e.message, brokenError.message);
  }
});

/** The OS threads of this process (Linux: /proc/self/task); each worker thread is one. */
const threads = () => readdirSync("/proc/self/task").length;

/**
 * The thread count once it has held still for 200 ms: an OS thread may take a moment to go
 * after its worker reports its exit (this test's, or those of pools in earlier tests).
 */
async function settledThreads() {
  let [count, still] = [threads(), 0];
  for (let wait = 0; still < 10 && wait < 250; wait++) {
    await new Promise((r) => setTimeout(r, 20));
    const now = threads();
    [count, still] = [now, now === count ? still + 1 : 0];
  }
  return count;
}

test("terminate ends every worker; later reads reject with POOL_TERMINATED", async () => {
  const { arr } = await smallArray();
  // A first pool, so that what Node starts once for worker threads is running already.
  const first = new WorkerPool(1);
  await get(arr, null, { pool: first });
  await first.terminate();
  const before = await settledThreads();
  const own = new WorkerPool(4);
  await get(arr, null, { pool: own });
  assert.ok(threads() >= before + 4, `${threads()} threads with 4 workers, ${before} before`);
  await own.terminate();
  assert.equal(await settledThreads(), before);
  assert.equal(own.terminated, true);
  assert.equal((await rejection(() => get(arr, null, { pool: own }))).code, "POOL_TERMINATED");
  assert.throws(() => new WorkerPool(0), { code: "INVALID_ARGUMENT" });
});

test("the default pool ({ pool: true }) reads, and an idle pool does not keep Node running", async () => {
  const { arr } = await smallArray();
  assert.equal(hex((await get(arr, null, { pool: true })).data), hex((await get(arr)).data));
  assert.ok(defaultPool().size >= 1);
  await defaultPool().terminate();
  // A script that reads through the default pool and never terminates it must still exit.
  const script = `
    import * as zarr from "zarrita";
    import { get, registerCodecs, set } from "zarr-wasm-codecs";
    registerCodecs();
    const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify({
      zarr_format: 3, node_type: "array", shape: [8], data_type: "float64", fill_value: 0, attributes: {},
      chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      codecs: [{ name: "cast_value", configuration: { data_type: "int16" } }, { name: "bytes", configuration: { endian: "little" } }],
    }))]]);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    await set(arr, null, { data: Float64Array.of(1, 2, 3, 4, 5, 6, 7, 8), shape: [8], stride: [1] });
    const { data } = await get(arr, null, { pool: true });
    console.log(Array.from(data).join(","));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("../../../", import.meta.url)),
    timeout: 20000,
    encoding: "utf8",
  });
  assert.equal(out.trim(), "1,2,3,4,5,6,7,8");
});

test("workers that cannot start: WORKER_START_FAILED naming the likely cause, no restart loop, a later read tries again", async () => {
  const { arr } = await smallArray(64);
  const want = hex((await get(arr)).data);
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { pathToFileURL } = await import("node:url");
  const dir = mkdtempSync(join(tmpdir(), "worker-"));
  try {
    // A worker script that fails as it starts, as one a page's policy refuses does.
    const failing = join(dir, "failing.js");
    writeFileSync(failing, "throw new Error('refused');\n");
    const before = await settledThreads();
    const own = new WorkerPool({ size: 2, workerUrl: pathToFileURL(failing) });
    const first = await rejection(() => get(arr, null, { pool: own }));
    assert.equal(first.code, "WORKER_START_FAILED", first.message);
    assert.match(first.message, /could not start \(refused\).*worker-src.*blob:.*workerUrl/);
    // At once again: refused without starting workers.
    const started = Date.now();
    const again = await rejection(() => get(arr, null, { pool: own }));
    assert.equal(again.code, "WORKER_START_FAILED");
    assert.match(again.message, /tries again in 1 s/);
    assert.ok(Date.now() - started < 100, "refused at once");
    assert.equal(await settledThreads(), before, "no workers running, none restarted");
    // After the wait, a read tries again (and fails again: the next wait is longer).
    await new Promise((r) => setTimeout(r, 1100));
    const third = await rejection(() => get(arr, null, { pool: own }));
    assert.doesNotMatch(third.message, /tries again/);
    assert.match((await rejection(() => get(arr, null, { pool: own }))).message, /tries again in 2 s/);
    await own.terminate();
    // The package's own worker script, from its file: reads as the default pool does.
    const fromFile = new WorkerPool({ size: 2, workerUrl: new URL("../../../dist/worker.js", import.meta.url) });
    for (const useSharedArrayBuffer of [true, false]) {
      assert.equal(hex((await get(arr, null, { pool: fromFile, useSharedArrayBuffer })).data), want);
    }
    await fromFile.terminate();
    assert.equal((() => { try { new WorkerPool({ workerUrl: 5 }); } catch (e) { return e.code; } })(), "INVALID_ARGUMENT");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
