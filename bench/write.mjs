// The package's write path against zarrita's zarr.set, in one Node process. A BENCH_N x BENCH_N
// float64 array (default 2048) in BENCH_CHUNK x BENCH_CHUNK chunks (default 256) is written
// whole (selection null, value {data, shape, stride} in C order) into in-memory stores (a Map
// behind async get/set, and getRange, which sharded arrays need to be opened), each write into
// a fresh store holding only the array's metadata, so every write creates every chunk. Two
// fields, neither picked to flatter a codec: "smooth" (bench/util.mjs designField: smooth, some
// noise, a disc of NaN, which the float64 stores keep as NaN, their fill value NaN) and "noisy"
// (280 + 10 * white noise in [-1, 1) from a seeded generator: every mantissa bit random). Five
// stores (BENCH_STORES=zstd,blosc,... runs some):
//   zstd          v3 [bytes, zstd{level 3, checksum false}]
//   blosc         v3 [bytes, blosc{zstd, clevel 5, shuffle, typesize 4, blocksize 0}]
//   packed-uint8  v3 [scale_offset (fitted to the field's range, codes 2..252),
//                 cast_value{uint8, clamp, NaN <-> 0}, bytes, zstd{level 3}], fill NaN
//   v2-blosc-lz4  v2 <f8, blosc{lz4, clevel 5, shuffle 1, blocksize 0}, fill NaN
//   sharded-zstd  v3 sharding_indexed, 4 x 4 inner chunks per shard ([bytes, zstd{level 3}],
//                 index [bytes, crc32c] at the end); zarrita cannot write shards, so the
//                 package's sharded write is timed against its own unsharded write of "zstd"
// The same work on both sides: zstd at level 3 written out (zarr-python's level 0 means zstd's
// default, 3, but numcodecs.js, which zarr.set runs, compresses level <= 0 at level 1); zarr.set's
// blosc (numcodecs.js) is handed v3's shuffle as numcodecs' number (SHUFFLES below, the mapping
// zarr-python makes: as a string numcodecs.js writes no shuffle), and numcodecs.js's blosc always
// shuffles in 4-byte lanes (its binding takes no typesize), so the v3 store says typesize 4 and
// both shuffle alike. The v2 store cannot say so: there numcodecs.js shuffles in 4-byte lanes and
// the package in 8 (the dtype's size, as zarr-python), and the stored bytes differ.
// Contenders: zarr.set after registerCodecs() (zarrita's pipeline, with the package's codecs
// in its registry), the package's set on this thread, set with { pool } (a WorkerPool of
// BENCH_POOL workers, default 2, made once and warmed before timing), and for packed-uint8
// also writePacked (target uint8, zstd level 3; it plans the packing from the data, which it
// is timed doing, and writes its own metadata) on this thread and with { pool }.
// Timed: the write call only (the store, its metadata and zarr.open are made, and the heap
// collected, before the clock starts, so that no write pays for the garbage of the one before);
// per contender the median wall time and its range (min-max) over BENCH_ROUNDS rounds (default
// 8), after 2 untimed warm-up rounds, the contenders in a seeded shuffled order each round; for
// set and the pooled writes, the main thread's busy time during the write
// (performance.eventLoopUtilization()'s active time between the call and its end), reported as
// a % of that write's own wall time (medians of the per-round ratios), and where Linux gives a
// thread's scheduler statistics, what that busy time is made of: the main thread's own CPU time
// ("cpu") and its time ready to run but waiting for a core ("wait": with two workers on two
// cores, the workers hold both); the stored bytes (the chunk keys' byte lengths, metadata not
// counted). A contender that throws is recorded as failed
// (its error's code or message) and dropped from later rounds. After timing, each store the
// package wrote is read back with zarr.get and compared: lossless stores with the input bit for
// bit, packed-uint8 with what zarr.set's store reads back, writePacked within its plan's
// max_abs_error.
// Targets: set >= 1.5x zarr.set (packed-uint8: >= 1.2x), pooled set >= 2.5x zarr.set, the pooled
// write's main thread busy < 15% of its wall time, sharded <= 1.2x unsharded (one thread and
// pooled); pooled writePacked against one-thread writePacked is reported without a target.
// `--json` prints every figure as JSON.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import * as zarr from "zarrita";
import { get, registerCodecs, set, WorkerPool, writePacked } from "zarr-wasm-codecs";
import { designField, median, seededShuffle } from "./util.mjs";

const N = Number(process.env.BENCH_N ?? 2048);
const CHUNK = Number(process.env.BENCH_CHUNK ?? 256);
const SHARD = CHUNK * 4;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const WARMUP = 2;
const POOL = Number(process.env.BENCH_POOL ?? 2);
const JSON_OUT = process.argv.includes("--json");
// A full collection before each write (untimed), so that no write pays for the garbage another
// contender left (zarr.set's most of all).
v8.setFlagsFromString("--expose-gc");
const collect = vm.runInNewContext("gc");
// The main thread's own CPU time and its time waiting for a core (ns), from Linux's per-thread
// scheduler statistics; undefined elsewhere.
const schedstat = `/proc/self/task/${process.pid}/schedstat`;
function threadTimes() {
  try {
    const [cpu, wait] = readFileSync(schedstat, "utf8").split(" ").map(Number);
    return { cpu, wait };
  } catch {
    return undefined;
  }
}

// ---- the fields ----

/** 280 + 10 * white noise in [-1, 1), from a seeded generator (mulberry32). */
function noisyField(n, seed = 0x9e3779b9) {
  const out = new Float64Array(n * n);
  for (let i = 0; i < out.length; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out[i] = 280 + 10 * ((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 2 - 1);
  }
  return out;
}
const FIELDS = { smooth: designField(N), noisy: noisyField(N) };

/** scale_offset's configuration that puts the field's finite range on the codes 2..252. */
function fitted(data) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of data) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const scale = 250 / (hi - lo);
  return { offset: lo - 2 / scale, scale };
}

// ---- the stores ----

const bytes = { name: "bytes", configuration: { endian: "little" } };
const ZSTD_LEVEL = 3;
const zstd = { name: "zstd", configuration: { level: ZSTD_LEVEL, checksum: false } };
const v3 = (codecs, chunk = CHUNK) => ({
  zarr_format: 3,
  node_type: "array",
  shape: [N, N],
  data_type: "float64",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [chunk, chunk] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: "NaN",
  codecs,
  attributes: {},
});
const STORES = {
  zstd: () => ({ "zarr.json": v3([bytes, zstd]) }),
  blosc: () => ({
    "zarr.json": v3([bytes, { name: "blosc", configuration: { cname: "zstd", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }]),
  }),
  "packed-uint8": (data) => ({
    "zarr.json": v3([
      { name: "scale_offset", configuration: fitted(data) },
      { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
      bytes,
      zstd,
    ]),
  }),
  "v2-blosc-lz4": () => ({
    ".zarray": {
      zarr_format: 2,
      shape: [N, N],
      chunks: [CHUNK, CHUNK],
      dtype: "<f8",
      compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
      filters: null,
      fill_value: "NaN",
      order: "C",
    },
    ".zattrs": {},
  }),
  "sharded-zstd": () => ({
    "zarr.json": v3(
      [
        {
          name: "sharding_indexed",
          configuration: { chunk_shape: [CHUNK, CHUNK], codecs: [bytes, zstd], index_codecs: [bytes, { name: "crc32c" }], index_location: "end" },
        },
      ],
      SHARD,
    ),
  }),
};
const METADATA = /(^|\/)(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/;
const encoder = new TextEncoder();

/**
 * An in-memory store: a Map (key -> bytes) behind async get and set, and getRange, which
 * zarrita and the package need to open sharded arrays.
 */
function memoryStore(map = new Map()) {
  return {
    map,
    get: async (key) => map.get(key),
    set: async (key, value) => void map.set(key, value),
    getRange: async (key, range) => {
      const v = map.get(key);
      if (!v) return undefined;
      return "suffixLength" in range ? v.subarray(v.length - range.suffixLength) : v.subarray(range.offset, range.offset + range.length);
    },
  };
}

/** A fresh store with only the array's metadata, and the array opened from it. */
async function fresh(store, data) {
  const files = STORES[store](data);
  const map = new Map(Object.entries(files).map(([k, v]) => [`/${k}`, encoder.encode(JSON.stringify(v))]));
  const open = ".zarray" in files ? zarr.open.v2 : zarr.open.v3;
  return { map, arr: await open(zarr.root(memoryStore(map)), { kind: "array" }) };
}
const storedBytes = (map) => [...map].reduce((s, [k, v]) => s + (METADATA.test(k) ? 0 : v.byteLength), 0);

// ---- the contenders ----

// numcodecs.js's blosc takes its shuffle as a number; zarrita hands it v3's string.
const SHUFFLES = { noshuffle: 0, shuffle: 1, bitshuffle: 2 };
{
  const numcodecsBlosc = zarr.registry.get("blosc");
  zarr.registry.set("blosc", async () => {
    const Blosc = await numcodecsBlosc();
    return { fromConfig: (config, meta) => Blosc.fromConfig({ ...config, shuffle: SHUFFLES[config.shuffle] ?? config.shuffle }, meta) };
  });
}
registerCodecs();
const pool = new WorkerPool(POOL);
const value = (data) => ({ data, shape: [N, N], stride: [N, 1] });
const compressors = [zstd];

/** The contenders of a store and field: name -> { prepare() -> write() -> store, busy }. */
function contenders(store, data) {
  const into = (s, write) => async () => {
    const { map, arr } = await fresh(s, data);
    return { map, arr, write: () => write(arr, map) };
  };
  const zarrSet = into(store, (arr) => zarr.set(arr, null, value(data)));
  const setOne = (s) => into(s, (arr) => set(arr, null, value(data)));
  const setPool = (s) => into(s, (arr) => set(arr, null, value(data), { pool }));
  const packed = (options) => async () => {
    const map = new Map();
    const store = memoryStore(map);
    let plan;
    return {
      map,
      plan: () => plan,
      write: async () => {
        ({ plan } = await writePacked(zarr.root(store), data, { shape: [N, N], chunkShape: [CHUNK, CHUNK], target: "uint8", compressors, ...options }));
      },
    };
  };
  if (store === "sharded-zstd") {
    return {
      "set, sharded": { prepare: setOne(store), busy: true },
      "set { pool }, sharded": { prepare: setPool(store), busy: true },
      "set, unsharded (zstd)": { prepare: setOne("zstd"), busy: true },
      "set { pool }, unsharded (zstd)": { prepare: setPool("zstd"), busy: true },
    };
  }
  const out = {
    "zarr.set": { prepare: zarrSet, busy: false },
    set: { prepare: setOne(store), busy: true },
    "set { pool }": { prepare: setPool(store), busy: true },
  };
  if (store === "packed-uint8") {
    out.writePacked = { prepare: packed({}), busy: true };
    out["writePacked { pool }"] = { prepare: packed({ pool }), busy: true };
  }
  return out;
}

const failure = (e) => e?.code ?? String(e?.message ?? e).split("\n")[0];

/**
 * Runs every contender WARMUP untimed rounds, then ROUNDS timed ones in a new seeded order
 * each round; each run into a fresh store. Returns per contender the wall times, busy times,
 * stored bytes and the last store written (or why it failed).
 */
async function timeWrites(cs, shuffled) {
  const runs = Object.fromEntries(Object.keys(cs).map((k) => [k, { wall: [], busy: [], share: [], cpu: [], wait: [], cpuShare: [], stored: 0, last: undefined, failed: undefined, message: undefined }]));
  const once = async (name, timed) => {
    const r = runs[name];
    if (r.failed) return;
    try {
      const target = await cs[name].prepare();
      collect();
      const s0 = threadTimes();
      const e0 = performance.eventLoopUtilization();
      const t0 = performance.now();
      await target.write();
      const wall = performance.now() - t0;
      const busy = performance.eventLoopUtilization(e0).active;
      const s1 = threadTimes();
      r.stored = storedBytes(target.map);
      r.last = target;
      if (timed) {
        r.wall.push(wall);
        r.busy.push(busy);
        r.share.push((100 * busy) / wall);
        if (s0 && s1) {
          r.cpu.push((s1.cpu - s0.cpu) / 1e6);
          r.wait.push((s1.wait - s0.wait) / 1e6);
          r.cpuShare.push((100 * (s1.cpu - s0.cpu)) / 1e6 / wall);
        }
      }
    } catch (e) {
      r.failed = failure(e);
      r.message = String(e?.message ?? e).split("\n")[0];
    }
  };
  for (let w = 0; w < WARMUP; w++) for (const name of Object.keys(cs)) await once(name, false);
  for (let round = 0; round < ROUNDS; round++) for (const name of shuffled(Object.keys(cs))) await once(name, true);
  return runs;
}

// ---- read-back checks ----

const bitsEqual = (a, b) =>
  a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
async function readBack(map) {
  const open = map.has("/.zarray") ? zarr.open.v2 : zarr.open.v3;
  return (await zarr.get(await open(zarr.root(memoryStore(map)), { kind: "array" }))).data;
}
/** Whether `got` is within `tolerance` of `want`, NaN exactly where it is NaN. */
function within(got, want, tolerance) {
  if (got.length !== want.length) return false;
  for (let i = 0; i < got.length; i++) {
    if (Number.isNaN(want[i]) ? !Number.isNaN(got[i]) : !(Math.abs(got[i] - want[i]) <= tolerance)) return false;
  }
  return true;
}

/** "yes", "no" or why it could not be checked, per package-written contender. */
async function checks(store, data, runs) {
  const out = {};
  const safe = async (f) => {
    try {
      return (await f()) ? "yes" : "no";
    } catch (e) {
      return `read failed: ${failure(e)}`;
    }
  };
  let reference;
  if (store === "packed-uint8") {
    const z = runs["zarr.set"];
    if (z.last) reference = await readBack(z.last.map).catch(() => undefined);
  }
  for (const [name, r] of Object.entries(runs)) {
    if (!r.last) {
      out[name] = `not checked (${r.failed ?? "no store"})`;
      continue;
    }
    if (name.startsWith("writePacked")) {
      out[name] = await safe(async () => within(await readBack(r.last.map), data, r.last.plan().max_abs_error));
    } else if (store === "packed-uint8") {
      if (name === "zarr.set") continue;
      out[name] = reference ? await safe(async () => bitsEqual(await readBack(r.last.map), reference)) : "not checked (zarr.set's store unreadable)";
    } else {
      out[name] = await safe(async () => bitsEqual(await readBack(r.last.map), data));
    }
  }
  return out;
}

// ---- run ----

// The pool's workers started and their modules loaded before anything is timed: a pooled read.
{
  const { map, arr } = await fresh("zstd", FIELDS.smooth);
  await set(arr, null, value(FIELDS.smooth));
  await get(await zarr.open.v3(zarr.root(memoryStore(map)), { kind: "array" }), null, { pool });
}

const started = performance.now();
const shuffled = seededShuffle(0x5eed);
const results = {};
const ONLY = process.env.BENCH_STORES?.split(",");
for (const store of Object.keys(STORES).filter((s) => !ONLY || ONLY.includes(s))) {
  for (const [field, data] of Object.entries(FIELDS)) {
    const cs = contenders(store, data);
    const runs = await timeWrites(cs, shuffled);
    const contender = {};
    for (const [name, r] of Object.entries(runs)) {
      contender[name] = r.failed && r.wall.length === 0
        ? { failed: r.failed, message: r.message }
        : {
            median_ms: median(r.wall),
            min_ms: Math.min(...r.wall),
            max_ms: Math.max(...r.wall),
            stored_bytes: r.stored,
            ...(cs[name].busy ? { busy_ms: median(r.busy), busy_percent: median(r.share) } : {}),
            ...(cs[name].busy && r.cpu.length ? { thread_cpu_ms: median(r.cpu), thread_cpu_percent: median(r.cpuShare), core_wait_ms: median(r.wait) } : {}),
            ...(r.failed ? { failed_later: r.failed, message: r.message } : {}),
          };
    }
    const ms = (name) => contender[name]?.median_ms;
    const share = (name) => contender[name]?.busy_percent;
    const ratio = (a, b) => (a !== undefined && b !== undefined ? a / b : undefined);
    const target = (x, ok) => ({ value: x ?? null, target: x === undefined ? "not measured" : ok(x) ? "met" : "missed" });
    let ratios;
    if (store === "sharded-zstd") {
      ratios = {
        "sharded / unsharded, set": target(ratio(ms("set, sharded"), ms("set, unsharded (zstd)")), (x) => x <= 1.2),
        "sharded / unsharded, set { pool }": target(ratio(ms("set { pool }, sharded"), ms("set { pool }, unsharded (zstd)")), (x) => x <= 1.2),
        "pooled busy % of its wall, sharded": target(share("set { pool }, sharded"), (x) => x < 15),
        "pooled busy % of its wall, unsharded": target(share("set { pool }, unsharded (zstd)"), (x) => x < 15),
      };
    } else {
      ratios = {
        "zarr.set / set": target(ratio(ms("zarr.set"), ms("set")), (x) => x >= (store === "packed-uint8" ? 1.2 : 1.5)),
        "zarr.set / set { pool }": target(ratio(ms("zarr.set"), ms("set { pool }")), (x) => x >= 2.5),
        "pooled busy % of its wall": target(share("set { pool }"), (x) => x < 15),
      };
      if (store === "packed-uint8") {
        ratios["writePacked / writePacked { pool }"] = { value: ratio(ms("writePacked"), ms("writePacked { pool }")) ?? null, target: "none" };
        ratios["pooled writePacked busy % of its wall"] = target(share("writePacked { pool }"), (x) => x < 15);
      }
    }
    const readsBack = await checks(store, data, runs);
    results[`${store} / ${field}`] = { store, field, contenders: contender, ratios, reads_back_equal: readsBack };
    if (!JSON_OUT) print(`${store} / ${field}`, results[`${store} / ${field}`]);
  }
}
await pool.terminate();
const seconds = (performance.now() - started) / 1000;

if (JSON_OUT) {
  console.log(JSON.stringify({ shape: [N, N], chunks: [CHUNK, CHUNK], shard: [SHARD, SHARD], raw_bytes: N * N * 8, rounds: ROUNDS, warmup: WARMUP, pool: POOL, seconds, results }, null, 2));
} else {
  console.log(`\n${N}x${N} float64 written whole, ${CHUNK}x${CHUNK} chunks, in-memory stores, pool of ${POOL}, ${ROUNDS} rounds after ${WARMUP} warm-up (${seconds.toFixed(0)} s)`);
}

function print(title, r) {
  const f = (x, w = 8) => (x === undefined ? "" : x.toFixed(1)).padStart(w);
  console.log(`\n${title} (the values: ${((N * N * 8) / 1e6).toFixed(1)} MB)`);
  console.log(`  ${"contender".padEnd(32)}${"median ms".padStart(10)}${"range ms".padStart(18)}${"stored MB".padStart(11)}${"busy ms".padStart(9)}${"busy %".padStart(8)}${"cpu ms".padStart(8)}${"cpu %".padStart(7)}${"wait ms".padStart(9)}`);
  for (const [name, c] of Object.entries(r.contenders)) {
    if (c.failed) {
      console.log(`  ${name.padEnd(32)}  failed: ${c.failed}`);
      continue;
    }
    const range = `${c.min_ms.toFixed(1)}-${c.max_ms.toFixed(1)}`.padStart(18);
    const later = c.failed_later ? `  (failed later: ${c.failed_later})` : "";
    console.log(`  ${name.padEnd(32)}${f(c.median_ms, 10)}${range}${f(c.stored_bytes / 1e6, 11)}${f(c.busy_ms, 9)}${f(c.busy_percent, 8)}${f(c.thread_cpu_ms, 8)}${f(c.thread_cpu_percent, 7)}${f(c.core_wait_ms, 9)}${later}`);
  }
  for (const [name, x] of Object.entries(r.ratios)) {
    const v = x.value === null ? "-" : name.includes("%") ? `${x.value.toFixed(1)}%` : `${x.value.toFixed(2)}x`;
    const goal = { "zarr.set / set": r.store === "packed-uint8" ? ">= 1.2x" : ">= 1.5x", "zarr.set / set { pool }": ">= 2.5x" }[name] ?? (name.includes("%") ? "< 15%" : name.startsWith("sharded") ? "<= 1.2x" : "");
    console.log(`  ${name.padEnd(36)}${v.padStart(8)}  ${x.target === "none" ? "" : `${x.target} (${goal})`}`);
  }
  for (const [name, ok] of Object.entries(r.reads_back_equal)) console.log(`  reads back equal, ${name}: ${ok}`);
}
