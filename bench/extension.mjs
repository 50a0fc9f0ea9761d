// zarr.get over a store wrapped by `withWasmCodecs` against zarr.get without it, in one Node
// process, on the stores zarr-python 3.4.2 writes by default (bench/extension_stores.py: v3 zstd,
// v3 blosc, v3 sharded with a crc32c index, v2 blosc lz4 + shuffle, v2 zstd), each as float64
// and packed as uint8, BENCH_N x BENCH_N (default 2048) in 256 x 256 chunks, from the design
// card's field (bench/util.mjs), held in memory (a Map of the files). Made on first run with
// BENCH_PYTHON (default python3), which needs zarr 3.4.2.
//
// Contenders, every one zarr.get on an array zarr.open opened:
// - "zarrita": zarrita's own codecs (its JavaScript scale_offset and cast_value, numcodecs.js);
// - "registerCodecs": after registerCodecs() (the package's codecs inside zarrita's pipeline);
// - "wrapped": over withWasmCodecs(store), one thread;
// - "wrapped, pool": over withWasmCodecs(store, { pool }) with BENCH_POOL workers (default 2).
// And, as the floor of any getChunk: "zarr.get alone", zarr.get whose getChunk answers decoded
// chunks held in memory (its own allocation, indexing and copy of each chunk into its output,
// on the main thread whatever decodes the chunks).
// Every read is checked equal to zarr-python's values first. Timed: the call; the median and
// range of BENCH_ROUNDS rounds (default 8) after 2 warm-up rounds, in a seeded shuffled order;
// the main thread's busy time during each read (performance.eventLoopUtilization()'s active
// time), with the garbage of the read before collected first under --expose-gc.
// `--json` prints the figures as JSON; BENCH_STORES=name,name reads only those stores;
// BENCH_CONTENDERS=name,name times only those contenders (the table then shows "-" for the rest).
// `--profile`: after the timing, each one-thread contender's reads (BENCH_PROFILE_READS, default
// 10) run again under the CPU profiler (node:inspector, 100 us samples), and the sampled time is
// printed by phase, ms a read: wasm (decoding), zarrita's JavaScript (its indexing and its copy
// of each chunk into the output), numcodecs.js's JavaScript (zarrita's own codecs), the
// package's JavaScript (the wrapped store's bookkeeping, and each chunk's copy out of wasm memory),
// the engine's builtins (allocation, typed-array copies, promises), garbage collection, the
// store (the bench's in-memory store), and the rest (idle, program).
import { execFileSync } from "node:child_process";
import { Session } from "node:inspector/promises";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import * as zarr from "zarrita";
import { registerCodecs, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesUnder } from "../tests/node/shared/files.mjs";
import { designField, median, seededShuffle } from "./util.mjs";

const N = Number(process.env.BENCH_N ?? 2048);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const POOL = Number(process.env.BENCH_POOL ?? 2);
const JSON_OUT = process.argv.includes("--json");
const PROFILE = process.argv.includes("--profile");
const PROFILE_READS = Number(process.env.BENCH_PROFILE_READS ?? 10);
const ALL = ["v3-zstd", "v3-blosc", "v3-sharded", "v2-blosc", "v2-zstd"].flatMap((c) => [`${c}-float64`, `${c}-uint8`]);
// BENCH_STORES=a,b reads only those.
const STORES = process.env.BENCH_STORES ? process.env.BENCH_STORES.split(",") : ALL;
const CONTENDERS = process.env.BENCH_CONTENDERS?.split(",") ?? ["zarrita", "registerCodecs", "wrapped", "wrapped, pool", "zarr.get alone"];

const root = fileURLToPath(new URL("../", import.meta.url));
const dir = join(root, `target/bench-extension-${N}`);
if (!ALL.every((s) => existsSync(join(dir, `${s}.expected.bin`)))) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "input.bin"), new Uint8Array(designField(N).buffer));
  execFileSync(process.env.BENCH_PYTHON ?? "python3", [join(root, "bench/extension_stores.py"), dir, String(N)], { stdio: "inherit" });
}

/**
 * A store's files in memory, as zarrita reads a store: `get`, and `getRange` for shards, which
 * answers views of the files (no copy, unlike the tests' memoryStore, which guards the fixtures).
 */
function inMemory(storeDir) {
  const files = new Map(filesUnder(storeDir).map((p) => ["/" + relative(storeDir, p).split(sep).join("/"), new Uint8Array(readFileSync(p))]));
  return {
    get: async (k) => files.get(k),
    getRange: async (k, r) => {
      const b = files.get(k);
      return b && ("suffixLength" in r ? b.subarray(b.length - r.suffixLength) : b.subarray(r.offset, r.offset + r.length));
    },
  };
}

// zarrita loads an array's codecs on its first chunk and keeps them: its own arrays are opened
// and read once while the registry holds zarrita's codecs, before registerCodecs() replaces them.
const zarritas = {};
for (const name of CONTENDERS.includes("zarrita") ? STORES : []) {
  zarritas[name] = await zarr.open(zarr.root(inMemory(join(dir, `${name}.zarr`))), { kind: "array" });
  await zarr.get(zarritas[name]);
}
registerCodecs();

const pool = new WorkerPool(POOL);
/** An app's chunk cache, filled on the first read: zarr.get's own work alone after it. */
const held = zarr.defineStoreExtension(() => {
  const chunks = new Map();
  return {
    arrayExtensions: [zarr.defineArrayExtension((arr) => ({
      async getChunk(coords, options) {
        const key = coords.join(",");
        if (!chunks.has(key)) chunks.set(key, await arr.getChunk(coords, options));
        return chunks.get(key);
      },
    }))],
  };
});
/** The phase of a profile node's function (see `--profile` above). */
const PACKAGE_JS = new URL(".", import.meta.resolve("zarr-wasm-codecs")).href;
function phaseOf({ functionName, url }) {
  if (functionName === "(garbage collector)") return "GC";
  if (functionName === "(idle)" || functionName === "(program)" || functionName === "(root)") return "rest";
  if (url.startsWith("wasm://") || /^\$/.test(functionName)) return "wasm";
  if (/[\\/]node_modules[\\/]numcodecs[\\/]/.test(url)) return "numcodecs.js";
  if (/[\\/]node_modules[\\/]zarrita[\\/]/.test(url)) return "zarrita JS";
  if (url.startsWith(PACKAGE_JS)) return "package JS";
  if (/[\\/]bench[\\/]/.test(url)) return "store";
  if (!url || url.startsWith("node:")) return "builtins";
  return "rest";
}
const PHASES = ["wasm", "zarrita JS", "numcodecs.js", "package JS", "builtins", "GC", "store", "rest"];

/** The sampled time of PROFILE_READS reads of `arr`, by phase, ms a read. */
async function profiled(arr) {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  for (let i = 0; i < PROFILE_READS; i++) await zarr.get(arr);
  const { profile } = await session.post("Profiler.stop");
  session.disconnect();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const out = Object.fromEntries(PHASES.map((p) => [p, 0]));
  for (let i = 0; i < profile.samples.length; i++) {
    out[phaseOf(byId.get(profile.samples[i]).callFrame)] += profile.timeDeltas[i] / 1000 / PROFILE_READS;
  }
  return out;
}

const results = [];
for (const name of STORES) {
  const files = join(dir, `${name}.zarr`);
  const expected = readFileSync(join(dir, `${name}.expected.bin`));
  const opened = async (store) => zarr.open(zarr.root(store), { kind: "array" });
  const every = {
    zarrita: async () => zarritas[name],
    registerCodecs: () => opened(inMemory(files)),
    wrapped: () => opened(withWasmCodecs(inMemory(files))),
    "wrapped, pool": () => opened(withWasmCodecs(inMemory(files), { pool })),
    "zarr.get alone": async () => opened(await zarr.extendStore(inMemory(files), withWasmCodecs, held)),
  };
  const arrays = {};
  for (const [k, make] of Object.entries(every)) if (CONTENDERS.includes(k)) arrays[k] = await make();
  for (const [k, arr] of Object.entries(arrays)) {
    const got = await zarr.get(arr);
    const bytes = Buffer.from(got.data.buffer, got.data.byteOffset, got.data.byteLength);
    if (!bytes.equals(expected)) throw new Error(`${name} ${k}: the values differ from zarr-python's`);
  }
  const times = Object.fromEntries(Object.keys(arrays).map((k) => [k, []]));
  const busy = Object.fromEntries(Object.keys(arrays).map((k) => [k, []]));
  const order = seededShuffle(51);
  for (let round = -2; round < ROUNDS; round++) {
    for (const k of order(Object.keys(arrays))) {
      globalThis.gc?.();
      const u0 = performance.eventLoopUtilization();
      const t0 = performance.now();
      await zarr.get(arrays[k]);
      const dt = performance.now() - t0;
      const u = performance.eventLoopUtilization(u0);
      if (round >= 0) {
        times[k].push(dt);
        busy[k].push(u.active);
      }
    }
  }
  const row = { store: name };
  for (const k of Object.keys(arrays)) {
    row[k] = { median: median(times[k]), min: Math.min(...times[k]), max: Math.max(...times[k]), busy: median(busy[k]) };
  }
  if (PROFILE) {
    row.profile = {};
    for (const k of ["registerCodecs", "wrapped", "zarrita"].filter((k) => arrays[k])) row.profile[k] = await profiled(arrays[k]);
  }
  results.push(row);
}
await pool.terminate();

if (JSON_OUT) {
  console.log(JSON.stringify({ n: N, rounds: ROUNDS, pool: POOL, results }, null, 2));
} else {
  const f = (x) => (x ? `${x.median.toFixed(1)} (${x.min.toFixed(1)}-${x.max.toFixed(1)})` : "-");
  const ratio = (a, b) => (a && b ? `${(a.median / b.median).toFixed(2)}x` : "-");
  console.log(`zarr.get over withWasmCodecs, ${N}x${N}, 256^2 chunks, in memory; median (range) ms over ${ROUNDS} rounds; pool of ${POOL}`);
  console.log("| store | zarrita | registerCodecs | wrapped | wrapped, pool | wrapped / registerCodecs | pool / zarrita | main-thread busy: pool / wrapped | zarr.get alone / wrapped |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const [z, reg, w, p, alone] = [r.zarrita, r.registerCodecs, r.wrapped, r["wrapped, pool"], r["zarr.get alone"]];
    const share = (x) => (x && w ? `${((100 * x.busy) / w.busy).toFixed(1)}%` : "-");
    console.log(`| ${r.store} | ${f(z)} | ${f(reg)} | ${f(w)} | ${f(p)} | ${ratio(reg, w)} | ${ratio(z, p)} | ${share(p)} | ${share(alone)} |`);
  }
  if (PROFILE) {
    console.log(`\nSampled time by phase, ms a read (${PROFILE_READS} reads each, under the profiler)`);
    console.log(`| store | contender | ${PHASES.join(" | ")} | sampled |`);
    console.log(`|---|---|${PHASES.map(() => "---|").join("")}---|`);
    for (const r of results) {
      for (const [k, phases] of Object.entries(r.profile)) {
        const total = PHASES.reduce((t, p) => t + phases[p], 0);
        console.log(`| ${r.store} | ${k} | ${PHASES.map((p) => phases[p].toFixed(1)).join(" | ")} | ${total.toFixed(1)} |`);
      }
    }
  }
}
