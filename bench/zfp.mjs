// zfp decode against the zfp C library (zfpy 1.0.1), 4M float32 values (fixed_accuracy 1e-3)
// on four fields: a smooth 3-D field (64 x 256 x 256, sin(x) cos(y) + 0.1 z with x, y, z
// evenly spaced over [0, 2 pi]), the same values as one 2048 x 2048 chunk, the field of the
// earlier zfp benchmark (2-D 2048 x 2048, smooth plus a fine ripple) and the same values as
// 64 x 256 x 256. Each stream is written by this package and decoded by zfpy in a Python
// with zfpy==1.0.1 (ZFPY_PYTHON, default python3; without it only this package is timed),
// and by this package: the codec's own decode (`ZfpCodec.decode`, what zarrita's get calls
// per chunk), a whole `get` (the package's own path) and a whole zarr.get. Prints the medians and each ratio to zfpy; `--json`
// prints JSON; BENCH_ROUNDS sets the rounds (default 15), BENCH_TOLERANCE the tolerance (default 1e-3).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get as ownGet, loadZfp, registerCodecs } from "zarr-wasm-codecs";

import { median } from "./util.mjs";

const TOLERANCE = Number(process.env.BENCH_TOLERANCE ?? 1e-3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
registerCodecs();

/** sin(x) cos(y) + 0.1 z on a 64 x 256 x 256 grid, x, y, z evenly spaced over [0, 2 pi]. */
function smooth() {
  const [nz, ny, nx] = [64, 256, 256];
  const at = (i, n) => (2 * Math.PI * i) / (n - 1);
  const data = new Float32Array(nz * ny * nx);
  for (let z = 0; z < nz; z++) {
    for (let y = 0; y < ny; y++) {
      for (let x = 0; x < nx; x++) data[(z * ny + y) * nx + x] = Math.sin(at(x, nx)) * Math.cos(at(y, ny)) + 0.1 * at(z, nz);
    }
  }
  return data;
}

/** The earlier benchmark's 2048 x 2048 field: a smooth swell plus a fine ripple. */
function rippled() {
  const n = 2048;
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) data[i * n + j] = 15 * Math.sin(i / 61) * Math.cos(j / 47) + 0.3 * Math.sin((i * j) / 997);
  }
  return data;
}

const CUBE = [64, 256, 256];
const SQUARE = [2048, 2048];
const smoothValues = smooth();
const rippledValues = rippled();
const FIELDS = [
  { name: "smooth 3-D", shape: CUBE, values: smoothValues },
  { name: "smooth as 2-D", shape: SQUARE, values: smoothValues },
  { name: "rippled 2-D", shape: SQUARE, values: rippledValues },
  { name: "rippled as 3-D", shape: CUBE, values: rippledValues },
];

const zfp = await loadZfp();
const config = { mode: "fixed_accuracy", tolerance: TOLERANCE };
const sha = (v) => createHash("sha256").update(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).digest("hex");
const dir = mkdtempSync(join(tmpdir(), "zfp-bench-"));

const results = [];
for (const { name, shape, values } of FIELDS) {
  const meta = {
    zarr_format: 3, node_type: "array", shape, data_type: "float32",
    chunk_grid: { name: "regular", configuration: { chunk_shape: shape } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0, codecs: [{ name: "zfp", configuration: config }], attributes: {},
  };
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  await zarr.set(arr, null, { data: values, shape, stride: shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)) });
  const stream = store.get(`/c/${shape.map(() => 0).join("/")}`);
  const codec = new zfp.ZfpCodec(JSON.stringify(config), "float32", JSON.stringify(shape));
  const decoded = codec.decode(stream);
  const viaGet = await zarr.get(arr);
  if (sha(viaGet.data) !== sha(decoded)) throw new Error(`${name}: zarr.get and ZfpCodec.decode differ`);
  if (sha((await ownGet(arr)).data) !== sha(decoded)) throw new Error(`${name}: get and ZfpCodec.decode differ`);
  const decode = [];
  const get = [];
  const own = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved, so that both see the same state of the machine.
    let t0 = performance.now();
    codec.decode(stream);
    decode.push(performance.now() - t0);
    t0 = performance.now();
    await zarr.get(arr);
    get.push(performance.now() - t0);
    t0 = performance.now();
    await ownGet(arr);
    own.push(performance.now() - t0);
  }
  codec.free();
  const file = join(dir, `${results.length}.bin`);
  writeFileSync(file, stream);
  results.push({ name, shape, stream_bytes: stream.length, decode_ms: median(decode), zarr_get_ms: median(get), get_ms: median(own), sha256: sha(decoded), file });
}

const python = process.env.ZFPY_PYTHON ?? "python3";
let zfpy;
try {
  const script = fileURLToPath(new URL("./zfpy_decode.py", import.meta.url));
  const jobs = results.map((r) => ({ file: r.file, shape: r.shape, tolerance: TOLERANCE }));
  zfpy = JSON.parse(execFileSync(python, [script, JSON.stringify(jobs), String(ROUNDS)], { encoding: "utf8" }));
} catch (e) {
  zfpy = `not run: ${String(e.message).split("\n")[0]}`;
}
for (const [i, r] of results.entries()) {
  delete r.file;
  if (typeof zfpy === "string") continue;
  r.zfpy_ms = zfpy[i].median_ms;
  r.same_values_as_zfpy = zfpy[i].sha256 === r.sha256;
  r.decode_ratio = r.decode_ms / r.zfpy_ms;
  r.zarr_get_ratio = r.zarr_get_ms / r.zfpy_ms;
  r.get_ratio = r.get_ms / r.zfpy_ms;
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ rounds: ROUNDS, tolerance: TOLERANCE, fields: results, zfpy: typeof zfpy === "string" ? zfpy : "run" }, null, 2));
} else {
  console.log(`zfp decode, 4M float32 values (fixed_accuracy ${TOLERANCE}), ${ROUNDS} rounds (medians)`);
  for (const r of results) {
    const vs = (ms, ratio) => `${ms.toFixed(2).padStart(7)} ms${ratio === undefined ? "" : ` (${ratio.toFixed(2)}x)`}`;
    console.log(`  ${r.name.padEnd(15)} ${r.shape.join(" x ").padEnd(14)} stream ${(r.stream_bytes / 1e6).toFixed(2)} MB` +
      (r.zfpy_ms === undefined ? "" : `  zfpy ${r.zfpy_ms.toFixed(2).padStart(6)} ms`) +
      `  ZfpCodec.decode ${vs(r.decode_ms, r.decode_ratio)}  get ${vs(r.get_ms, r.get_ratio)}  zarr.get ${vs(r.zarr_get_ms, r.zarr_get_ratio)}` +
      (r.same_values_as_zfpy === false ? "  VALUES DIFFER FROM ZFPY" : ""));
  }
  if (typeof zfpy === "string") console.log(`  zfpy: ${zfpy}`);
}
