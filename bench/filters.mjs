// Reads of filtered stores against zarrita's zarr.get, in one Node process: a BENCH_N x
// BENCH_N float64 array (default 2048) in 256 x 256 chunks, in memory and over HTTP (the same
// files on disk, served on loopback by a server in another process, read through zarrita's FetchStore), written once by the
// package's `set` from the design field (bench/util.mjs: smooth, some noise, a disc of NaN)
// with each of the filters zarr-python users write: numcodecs' delta + zstd, bitround
// (keepbits 10) + zstd, fletcher32 after zstd. Contenders: zarr.get after registerCodecs()
// (zarrita runs delta and bitround in JavaScript on the main thread, and the bytes codecs
// through the package's compress module), the package's get on this thread, and get with a
// pool of BENCH_POOL workers (default 2, warmed before timing). Timed: the read call; the
// median and range of BENCH_ROUNDS rounds (default 8) after 2 warm-up rounds, in a seeded
// shuffled order each round; for the reads, the main thread's busy time during the read
// (performance.eventLoopUtilization()'s active time), with the garbage of the read before
// collected first where Node runs with --expose-gc (as `npm run bench` does). The reads are
// checked equal first.
// `--json` prints the figures as JSON.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as zarr from "zarrita";
import { get, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
import { designField, median, seededShuffle } from "./util.mjs";

registerCodecs();

const N = Number(process.env.BENCH_N ?? 2048);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const POOL = Number(process.env.BENCH_POOL ?? 2);
const JSON_OUT = process.argv.includes("--json");

const bytes = { name: "bytes", configuration: { endian: "little" } };
const zstd = { name: "zstd", configuration: { level: 0, checksum: false } };
const STORES = {
  "delta + zstd": [{ name: "numcodecs.delta", configuration: { dtype: "<f8" } }, bytes, zstd],
  "bitround + zstd": [{ name: "numcodecs.bitround", configuration: { keepbits: 10 } }, bytes, zstd],
  "zstd + fletcher32": [bytes, zstd, { name: "numcodecs.fletcher32" }],
};

const field = designField(N);
const pool = new WorkerPool(POOL);
const results = [];
// Each store is also written to disk and read over HTTP (loopback; zarrita's FetchStore), where
// each response's bytes are the read's own and go to a worker uncopied: an in-memory store's
// are its own, and the pool copies them before handing them over.
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const onDisk = join(root, "target/bench-filters");
rmSync(onDisk, { recursive: true, force: true });
// The server runs in a process of its own, so that its work is not counted as this thread's.
const server = spawn(process.execPath, ["--input-type=module", "-e", `
  const { serve } = await import(${JSON.stringify(pathToFileURL(join(root, "scripts/serve.mjs")).href)});
  const s = await serve(${JSON.stringify(root)}, 0);
  console.log(s.address().port);
`], { stdio: ["ignore", "pipe", "inherit"] });
const port = await new Promise((resolve, reject) => {
  server.stdout.once("data", (d) => resolve(Number(String(d).trim())));
  server.once("exit", (code) => reject(new Error(`the file server exited (${code})`)));
});
const origin = `http://127.0.0.1:${port}`;
for (const [name, codecs] of Object.entries(STORES)) {
  const files = new Map();
  const store = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
  const meta = {
    zarr_format: 3, node_type: "array", shape: [N, N], data_type: "float64", fill_value: "NaN",
    chunk_grid: { name: "regular", configuration: { chunk_shape: [256, 256] } },
    chunk_key_encoding: { name: "default" }, codecs, attributes: {},
  };
  files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
  const arr = await open(zarr.root(store));
  await set(arr, null, { data: field, shape: [N, N], stride: [N, 1] });
  const slug = name.replace(/[^a-z0-9]+/g, "-");
  for (const [key, bytes] of files) {
    const path = join(onDisk, slug, key);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
  for (const [where, location] of [["memory", arr], ["HTTP", await open(zarr.root(new zarr.FetchStore(`${origin}/target/bench-filters/${slug}`)))]]) {
    await measure(`${name} (${where})`, location);
  }
}
server.kill();
await pool.terminate();

async function measure(name, arr) {
  const contenders = {
    "zarr.get": () => zarr.get(arr),
    get: () => get(arr),
    "get, pool": () => get(arr, null, { pool }),
  };
  // Over HTTP, also with the workers fetching the chunks themselves (options.workerFetch).
  if (arr.store instanceof zarr.FetchStore) contenders["get, pool, workerFetch"] = () => get(arr, null, { pool, workerFetch: true });
  // (zarrita has no fletcher32: zarr.get cannot read that store.)
  const zarrita = await zarr.get(arr).then(() => true, () => false);
  if (!zarrita) delete contenders["zarr.get"];
  const reads = await Promise.all(Object.values(contenders).map((f) => f()));
  const same = (x, y) => Buffer.from(x.data.buffer, x.data.byteOffset, x.data.byteLength).equals(Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
  if (!reads.every((r) => same(r, reads[0]))) throw new Error(`${name}: the reads differ`);
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  const busy = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  const order = seededShuffle(11);
  for (let round = -2; round < ROUNDS; round++) {
    for (const k of order(Object.keys(contenders))) {
      // The garbage of the last read (zarrita's delta and bitround make much of it) collected
      // before this one, so that its pause is not counted against another contender.
      globalThis.gc?.();
      const u0 = performance.eventLoopUtilization();
      const t0 = performance.now();
      await contenders[k]();
      const dt = performance.now() - t0;
      const u = performance.eventLoopUtilization(u0);
      if (round >= 0) {
        times[k].push(dt);
        busy[k].push(u.active);
      }
    }
  }
  const row = { store: name };
  for (const k of Object.keys(contenders)) {
    row[k] = { median: median(times[k]), min: Math.min(...times[k]), max: Math.max(...times[k]), busy: median(busy[k]) };
  }
  results.push(row);
}

if (JSON_OUT) {
  console.log(JSON.stringify({ n: N, rounds: ROUNDS, pool: POOL, results }, null, 2));
} else {
  const f = (x) => `${x.median.toFixed(1)} (${x.min.toFixed(1)}-${x.max.toFixed(1)})`;
  console.log(`filtered stores, ${N}x${N} float64, 256^2 chunks, in memory and over HTTP (loopback); median (range) ms over ${ROUNDS} rounds; pool of ${POOL}`);
  console.log("| store | zarr.get | get | pool | get / zarr.get | pool / zarr.get | pool's main-thread busy / get's | pool, workerFetch | its / zarr.get | its busy / get's |");
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const z = r["zarr.get"]?.median;
    const ratio = (x) => (z ? `${(z / x).toFixed(2)}x` : "zarrita cannot read it");
    const busy = (k) => `${((100 * r[k].busy) / r.get.busy).toFixed(1)}%`;
    const w = r["get, pool, workerFetch"];
    const remote = w ? `${f(w)} | ${ratio(w.median)} | ${busy("get, pool, workerFetch")}` : "- | - | -";
    console.log(`| ${r.store} | ${r["zarr.get"] ? f(r["zarr.get"]) : "-"} | ${f(r.get)} | ${f(r["get, pool"])} | ${ratio(r.get.median)} | ${ratio(r["get, pool"].median)} | ${busy("get, pool")} | ${remote} |`);
  }
}
