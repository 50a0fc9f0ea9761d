// The worker-pool benchmark's page (bundled by Vite; run by bench/pool.mjs in headless
// Chromium, cross-origin isolated). The design card's case scaled to 4096 x 4096: float64
// stored as uint8 (scale_offset + cast_value, NaN sentinel), 512 x 512 chunks, in an
// in-memory store, plain and with gzip. Each round times, in a seeded random order: zarr.get
// with zarrita's JS codecs; fizarrita's getWorker (its own pool of the same size, with and
// without SharedArrayBuffer); this package's get on one thread, and with its pool (shared
// output, and transferred results). Each read is marked in the page's performance timeline;
// bench/pool.mjs measures the main thread's busy time during it from Chromium's trace.
import { getWorker } from "@fideus-labs/fizarrita";
import { WorkerPool as FizarritaPool } from "@fideus-labs/worker-pool";
import * as zarr from "zarrita";
import { get, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
import { designField, median, seededShuffle } from "../util.mjs";

const params = new URL(location.href).searchParams;
const N = Number(params.get("n") ?? 4096);
const CHUNK = 512;
const ROUNDS = Number(params.get("rounds") ?? 10);
const SIZES = (params.get("sizes") ?? "1,2,4").split(",").map(Number);

const uint8Codecs = [
  { name: "scale_offset", configuration: { offset: -10.0, scale: 10.0 } },
  { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
  { name: "bytes" },
];
const gzip = { name: "gzip", configuration: { level: 1 } };
const CASES = {
  "uint8 (design card)": uint8Codecs,
  "uint8 + gzip": [...uint8Codecs, gzip],
  // No packing: a case fizarrita can read (it cannot read scale_offset + cast_value chains).
  "float64 + gzip": [{ name: "bytes", configuration: { endian: "little" } }, gzip],
};

/**
 * Runs `read` between two performance marks named after `label`, from which bench/pool.mjs
 * finds, in Chromium's trace, the main thread's tasks during the read. Its wall time.
 */
async function timed(label, read) {
  performance.mark(`bench-start\t${label}`);
  const t0 = performance.now();
  await read();
  const wall = performance.now() - t0;
  performance.mark(`bench-end\t${label}`);
  return wall;
}

const hex = (v) => {
  const b = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619);
  return (h >>> 0).toString(16) + ":" + b.length;
};

async function run() {
  const builtin = new Map(["scale_offset", "cast_value", "gzip"].map((n) => [n, zarr.registry.get(n)]));
  const input = designField(N);
  const results = { n: N, chunk: CHUNK, rounds: ROUNDS, sizes: SIZES, crossOriginIsolated, cases: {} };
  const shuffled = seededShuffle(0x5eed);
  for (const [name, codecs] of Object.entries(CASES)) {
    registerCodecs();
    const meta = {
      zarr_format: 3, node_type: "array", shape: [N, N], data_type: "float64", fill_value: "NaN", attributes: {},
      chunk_grid: { name: "regular", configuration: { chunk_shape: [CHUNK, CHUNK] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      codecs,
    };
    const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
    const open = () => zarr.open.v3(zarr.root(store), { kind: "array" });
    await set(await open(), null, { data: input, shape: [N, N], stride: [N, 1] });
    // zarrita's own JS codecs, for zarr.get and for fizarrita's workers (which use zarrita's
    // registry in the worker, untouched by registerCodecs()).
    builtin.forEach((entry, key) => zarr.registry.set(key, entry));
    const jsArray = await open();
    const ourArray = await open();
    const reads = { "zarr.get (zarrita JS)": () => zarr.get(jsArray), "get (one thread)": () => get(ourArray) };
    const pools = [];
    for (const size of SIZES) {
      const ours = new WorkerPool(size);
      const theirs = new FizarritaPool(size);
      pools.push(ours, theirs);
      reads[`fizarrita getWorker, ${size} workers`] = () => getWorker(jsArray, null, { pool: theirs });
      reads[`fizarrita getWorker + SAB, ${size} workers`] = () => getWorker(jsArray, null, { pool: theirs, useSharedArrayBuffer: true });
      reads[`get, pool of ${size}`] = () => get(ourArray, null, { pool: ours, useSharedArrayBuffer: false });
      reads[`get, pool of ${size} + SAB`] = () => get(ourArray, null, { pool: ours, useSharedArrayBuffer: true });
    }
    // Every read gives the same values (a read that fails is reported and not timed); and
    // untimed rounds first (JIT, workers starting).
    console.log(`[bench] ${name}: stored`);
    const want = hex((await reads["zarr.get (zarrita JS)"]()).data);
    const same = {};
    const failed = {};
    for (const [k, read] of Object.entries(reads)) {
      console.log(`[bench] ${name}: checking ${k}`);
      try {
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no answer in 20 s")), 20000));
        same[k] = hex((await Promise.race([read(), timeout])).data) === want;
      } catch (e) {
        failed[k] = String(e.message ?? e).split("\n")[0];
        delete reads[k];
      }
    }
    for (const read of Object.values(reads)) await read();
    const runs = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
    for (let r = 0; r < ROUNDS; r++) {
      console.log(`[bench] ${name}: round ${r + 1} of ${ROUNDS}`);
      for (const k of shuffled(Object.keys(reads))) {
        runs[k].push(await timed(`${name}\t${k}\t${r}`, reads[k]));
        // A pause between reads, so that one read's leftovers (GC) fall outside the next.
        await new Promise((done) => setTimeout(done, 20));
      }
    }
    for (const p of pools) await (p.terminate ? p.terminate() : p.terminateWorkers());
    results.cases[name] = Object.fromEntries(
      Object.entries(runs).map(([k, wall]) => [
        k,
        { wall_ms: median(wall), wall_min_ms: Math.min(...wall), wall_max_ms: Math.max(...wall), identical: same[k] },
      ]),
    );
    for (const [k, message] of Object.entries(failed)) results.cases[name][k] = { failed: message };
  }
  return results;
}

run().then(
  (r) => (window.__result = r),
  (e) => (window.__error = `${e} ${e.stack ?? ""}`),
);
