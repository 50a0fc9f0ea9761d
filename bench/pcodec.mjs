// numcodecs.pcodec decode against pcodec itself (PyPI pcodec 1.1.0, native Rust): four fields of
// 4M values stored by zarr-python 3.4.2 (bench/pcodec_stores.py: smooth and noisy float64 2-D,
// smooth float64 3-D, and a field packed as int16 under pcodec), each with numcodecs.pcodec and
// with zarr-python's default zstd, in chunks of 262,144 values. Timed here, from the chunks held
// in memory: the pcodec module's decode of every chunk alone (what pcodec's own decoder does),
// `get` on one thread and with a pool of 2, each into a new output and into the same one again
// (`options.out`, shared with the pool), zarr.get through registerCodecs(), and `get` of the
// zstd store (the same values). pcodec's native decode of the same bytes runs in a Python with
// zarr 3.4.2 and pcodec 1.1.0 (PCODEC_PYTHON, default python3; it also writes the stores
// under target/bench-pcodec the first time). Each read is checked against zarr-python's values
// (SHA-256). Native and wasm rounds alternate in blocks of three. Prints medians, ratios to
// native pcodec and stored sizes; `--json` prints JSON; BENCH_ROUNDS sets the rounds (default 15).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get, open, registerCodecs, WorkerPool } from "zarr-wasm-codecs";
import { loadModule } from "../dist/loading/load.js";

import { inTurns, median } from "./util.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const root = fileURLToPath(new URL("../target/bench-pcodec/", import.meta.url));
const python = process.env.PCODEC_PYTHON ?? "python3";
const script = fileURLToPath(new URL("./pcodec_stores.py", import.meta.url));
try {
  execFileSync(python, [script, "write", root], { stdio: ["ignore", "inherit", "pipe"] });
} catch (e) {
  console.log(`bench/pcodec.mjs: not run: its stores need a Python with zarr 3.4.2 and pcodec 1.1.0 (PCODEC_PYTHON): ${String(e.stderr ?? e.message).trim().split("\n").pop()}`);
  process.exit(0);
}
registerCodecs();

/** Every file of a directory store, in memory, as a zarrita Map store. */
function memoryStore(dir) {
  const store = new Map();
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else store.set(`/${relative(dir, path)}`, new Uint8Array(readFileSync(path)));
    }
  };
  walk(dir);
  return store;
}

const sha = (v) => createHash("sha256").update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).digest("hex");
const storedBytes = (store) => [...store].filter(([k]) => k.startsWith("/c/")).reduce((n, [, v]) => n + v.length, 0);

const FIELDS = ["smooth-2d", "noisy-2d", "smooth-3d", "packed-int16-2d"];
// Rounds run in blocks; before each block, native pcodec decodes every field in a Python process
// of its own, so that both sides are timed in the same stretch of the machine's time.
const BLOCK = 3;
const pool = new WorkerPool(2);
const pcodec = await loadModule("pcodec");
const fields = [];
for (const name of FIELDS) {
  const stores = { pcodec: memoryStore(join(root, `${name}.pcodec.zarr`)), zstd: memoryStore(join(root, `${name}.zstd.zarr`)) };
  const want = { pcodec: readFileSync(join(root, `${name}.pcodec.sha256`), "utf8"), zstd: readFileSync(join(root, `${name}.zstd.sha256`), "utf8") };
  const arr = await open(stores.pcodec);
  const zstdArr = await open(stores.zstd);
  const viaZarrita = await zarr.open.v3(zarr.root(stores.pcodec), { kind: "array" });
  // The pcodec module alone: every chunk's stream decoded to its values (the codec's data type).
  const meta = JSON.parse(new TextDecoder().decode(stores.pcodec.get("/zarr.json")));
  const inner = meta.codecs.find((c) => c.name === "cast_value")?.configuration.data_type ?? meta.data_type;
  const chunkShape = meta.chunk_grid.configuration.chunk_shape;
  const codec = new pcodec.PcodecCodec("{}", inner, JSON.stringify(chunkShape));
  const chunks = [...stores.pcodec].filter(([k]) => k.startsWith("/c/")).map(([, v]) => v);
  // A viewer reading into the same output again (`options.out`): no new 32 MB to allocate and
  // fault in, as pcodec's own decoder in a warm process has none either.
  const n = meta.shape.reduce((a, b) => a * b, 1);
  const out = new Float64Array(n);
  const sharedOut = new Float64Array(new SharedArrayBuffer(n * 8));
  const reads = {
    decode: async () => {
      for (const c of chunks) codec.decodeBytes(c);
    },
    get: () => get(arr),
    get_out: () => get(arr, null, { out }),
    get_pool: () => get(arr, null, { pool }),
    get_pool_out: () => get(arr, null, { pool, out: sharedOut }),
    zarr_get: () => zarr.get(viaZarrita),
    zstd_get: () => get(zstdArr),
    zstd_get_pool: () => get(zstdArr, null, { pool }),
  };
  // Every read gives zarr-python's values.
  for (const [read, f] of Object.entries(reads)) {
    if (read === "decode") continue;
    const got = sha((await f()).data);
    if (got !== want[read.startsWith("zstd") ? "zstd" : "pcodec"]) throw new Error(`${name}: ${read} differs from zarr-python's values`);
  }
  fields.push({ name, meta, chunks, stores, reads, codec, times: Object.fromEntries(Object.keys(reads).map((k) => [k, []])), native: [] });
}
const native = await inTurns(ROUNDS, BLOCK, (rounds) => {
  const times = JSON.parse(execFileSync(python, [script, "time", root, String(rounds)], { encoding: "utf8" }));
  for (const f of fields) f.native.push(...times[f.name].times_ms);
}, fields);
await pool.terminate();
const results = fields.map((f) => {
  f.codec.free();
  const r = {
    name: f.name,
    shape: f.meta.shape,
    chunks: f.chunks.length,
    pcodec_bytes: storedBytes(f.stores.pcodec),
    zstd_bytes: storedBytes(f.stores.zstd),
    ...Object.fromEntries(Object.entries(f.times).map(([k, v]) => [`${k}_ms`, median(v)])),
  };
  if (f.native.length) {
    r.native_ms = median(f.native);
    for (const k of ["decode", "get", "get_out", "get_pool", "get_pool_out", "zarr_get", "zstd_get"]) r[`${k}_ratio`] = r[`${k}_ms`] / r.native_ms;
  }
  return r;
});

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ rounds: ROUNDS, fields: results, native }, null, 2));
} else {
  console.log(`numcodecs.pcodec decode, 4M values per field, chunks of 262,144, ${ROUNDS} rounds (medians; ratios to native pcodec)`);
  const ms = (r, k) => `${r[`${k}_ms`].toFixed(1).padStart(6)} ms${r[`${k}_ratio`] === undefined ? "" : ` (${r[`${k}_ratio`].toFixed(2)}x)`}`;
  for (const r of results) {
    console.log(`  ${r.name.padEnd(16)} pcodec ${(r.pcodec_bytes / 1e6).toFixed(2)} MB, zstd ${(r.zstd_bytes / 1e6).toFixed(2)} MB` +
      (r.native_ms === undefined ? "" : `  native ${r.native_ms.toFixed(1)} ms`));
    console.log(`    decode alone ${ms(r, "decode")}  zarr.get ${ms(r, "zarr_get")}`);
    console.log(`    get ${ms(r, "get")}  into out ${ms(r, "get_out")}  pooled ${ms(r, "get_pool")}  pooled into out ${ms(r, "get_pool_out")}`);
    console.log(`    zstd store: get ${ms(r, "zstd_get")}  pooled get ${r.zstd_get_pool_ms.toFixed(1)} ms`);
  }
  if (native !== "run") console.log(`  native pcodec: ${native}`);
}
