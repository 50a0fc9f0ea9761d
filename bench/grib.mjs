// GRIB2 decoding against ecCodes: the 0.25 degree global field (721 x 1440) and the HRRR-sized
// Lambert field (1059 x 1799) in every packing (simple, complex 5.2, complex with spatial
// differencing 5.3, IEEE 32, JPEG 2000, PNG, CCSDS), one message a file, written by ecCodes 2.50
// (bench/grib_files.py, on first run, into target/bench-grib with BENCH_PYTHON, default python3,
// which needs eccodes 2.50.1, eccodeslib and gribberish 1.9.0: see its first lines).
//
// Timed here, from a message's bytes in memory to its values in a JavaScript typed array: the
// grib module's codec alone (`decode`, kerchunk's scan_grib configuration, float64, and with no
// dtype, float32), and of an in-memory zarr v2 array whose one chunk is the message, as
// scan_grib's references describe it: zarr.get after registerCodecs() (zarrita allocates the
// output and copies the codec's values into it) and the package's own `get` (decoded into the
// output). ecCodes'
// `codes_new_from_message` + `codes_get_values` and gribberish's `parse_grib_array` from the
// same bytes, single-threaded, in the same Python (bench/grib_eccodes.py). The codec's float64
// values are checked against ecCodes' (SHA-256 of their bytes). Medians of BENCH_ROUNDS
// (default 9) after a warm-up; the ratio is ecCodes' time over ours (above 1: faster than
// ecCodes). `--json` prints JSON.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get, open, registerCodecs } from "zarr-wasm-codecs";
import { loadModule } from "../dist/loading/load.js";

import { median } from "./util.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const root = fileURLToPath(new URL("../", import.meta.url));
const dir = join(root, "target/bench-grib");
const python = process.env.BENCH_PYTHON ?? "python3";

if (!existsSync(join(dir, "index.json"))) {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync(python, [join(root, "bench/grib_files.py"), dir], { stdio: ["ignore", "inherit", "pipe"] });
  } catch (e) {
    console.log(`bench/grib.mjs: not run: its messages need a Python with eccodes 2.50.1 (BENCH_PYTHON): ${String(e.stderr ?? e.message).trim().split("\n").pop()}`);
    process.exit(0);
  }
}
const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8"));
const python_rows = execFileSync(python, [join(root, "bench/grib_eccodes.py"), dir, String(Math.max(7, ROUNDS))], { encoding: "utf8" })
  .trim().split("\n").map((l) => JSON.parse(l));

registerCodecs();
const { GribCodec } = await loadModule("grib");

/**
 * ms of one call of `f` (awaited), after a garbage collection where node runs with --expose-gc
 * (as `npm run bench` runs this file): each call allocates its output (8 MB for a 0.25 degree
 * field as float64), and without it V8's collections of the earlier rounds' outputs land in
 * whichever round they fall on (2.9-9 ms for the same 4.8 ms of ecCodes' work), where Python
 * frees ecCodes' arrays as it drops them.
 */
async function timed(f) {
  globalThis.gc?.();
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

/** zarr.get of a one-chunk zarr v2 array holding `bytes`, kerchunk's filter with `filter`. */
async function zarrGet(bytes, shape, filter, dtype) {
  const zarray = { shape, chunks: shape, dtype, fill_value: null, order: "C", filters: [{ id: "grib", var: "x", ...filter }], compressor: null, zarr_format: 2 };
  const store = new Map([["/.zarray", new TextEncoder().encode(JSON.stringify(zarray))], [`/${shape.map(() => 0).join(".")}`, bytes]]);
  const arr = await zarr.open.v2(store, { kind: "array" });
  const own = await open(zarr.root(store));
  return [() => zarr.get(arr), () => get(own)];
}

const rows = [];
for (const entry of index) {
  const bytes = new Uint8Array(readFileSync(join(dir, entry.file)));
  const py = python_rows.find((r) => r.file === entry.file);
  const n = py.values;
  const shape = [n];
  const f64 = new GribCodec(JSON.stringify({ var: "x", dtype: "float64" }), "float64", JSON.stringify(shape));
  const f32 = new GribCodec(JSON.stringify({ var: "x" }), "float32", JSON.stringify(shape));
  const [get64, ownGet64] = await zarrGet(bytes, shape, { dtype: "float64" }, "<f8");
  const mine = f64.decode(bytes);
  const digest = createHash("sha256").update(new Uint8Array(mine.buffer, mine.byteOffset, mine.byteLength)).digest("hex");
  if (digest !== py.sha256) throw new Error(`${entry.file}: the codec's values differ from ecCodes'`);
  const contenders = { codec: () => f64.decode(bytes), "codec f32": () => f32.decode(bytes), "zarr.get": get64, get: ownGet64 };
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (const f of Object.values(contenders)) await f(); // warm-up
  for (let r = 0; r < ROUNDS; r++) for (const [k, f] of Object.entries(contenders)) times[k].push(await timed(f));
  const row = { file: entry.file, packing: entry.packing, values: n, bytes: bytes.length, eccodes_ms: py.eccodes_ms, gribberish_ms: py.gribberish_ms };
  for (const [k, t] of Object.entries(times)) row[`${k}_ms`] = median(t);
  rows.push(row);
  const ratio = (k) => (py.eccodes_ms / row[`${k}_ms`]).toFixed(2);
  console.log(
    `${entry.file.padEnd(24)} ecCodes ${py.eccodes_ms.toFixed(1).padStart(6)} ms  gribberish ${py.gribberish_ms === null ? "   fails" : `${py.gribberish_ms.toFixed(1).padStart(6)} ms`}  ` +
      `codec ${row.codec_ms.toFixed(1).padStart(6)} ms (${ratio("codec")}x)  f32 ${row["codec f32_ms"].toFixed(1).padStart(6)} ms (${ratio("codec f32")}x)  zarr.get ${row["zarr.get_ms"].toFixed(1).padStart(6)} ms (${ratio("zarr.get")}x)  get ${row.get_ms.toFixed(1).padStart(6)} ms (${ratio("get")}x)`,
  );
}

// Per packing: the median over the two fields of ecCodes' time over ours.
const packings = [...new Set(rows.map((r) => r.packing))];
console.log("\npacking      ecCodes/codec  ecCodes/zarr.get  ecCodes/get  target");
for (const p of packings) {
  const of = rows.filter((r) => r.packing === p);
  const q = (k) => median(of.map((r) => r.eccodes_ms / r[`${k}_ms`])).toFixed(2);
  const target = ["jpeg", "png", "ccsds"].includes(p) ? "0.50" : "0.67";
  console.log(`${p.padEnd(12)} ${q("codec").padStart(13)}  ${q("zarr.get").padStart(16)}  ${q("get").padStart(11)}  >= ${target}`);
}
if (process.argv.includes("--json")) console.log(JSON.stringify({ rounds: ROUNDS, rows }, null, 2));
