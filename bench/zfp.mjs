// zfp decode against the zfp C library (zfpy 1.0.1), 4M float32 values (fixed_accuracy 1e-3)
// on four fields: a smooth 3-D field (64 x 256 x 256, sin(x) cos(y) + 0.1 z with x, y, z
// evenly spaced over [0, 2 pi]), the same values as one 2048 x 2048 chunk, the field of the
// earlier zfp benchmark (2-D 2048 x 2048, smooth plus a fine ripple) and the same values as
// 64 x 256 x 256. Each stream is written by this package and decoded by zfpy in a Python
// with zfpy==1.0.1 (ZFPY_PYTHON, default python3; without it only this package is timed),
// and by this package: the codec's own decode (`ZfpCodec.decode`, what zarrita's get calls
// per chunk), a whole `get` (the package's own path) and a whole zarr.get, zfpy and this package
// taking turns in blocks of three rounds. Prints the medians and each ratio to zfpy; `--json`
// prints JSON; BENCH_ROUNDS sets the rounds (default 15), BENCH_TOLERANCE the tolerance (default 1e-3).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get as ownGet, loadZfp, registerCodecs } from "zarr-wasm-codecs";

import { inTurns, median } from "./util.mjs";

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

// Each field's stream, written by this package, checked and kept in a file for zfpy.
const fields = [];
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
  const file = join(dir, `${fields.length}.bin`);
  writeFileSync(file, stream);
  // A viewer reading into the same output again (`options.out`): no new 16 MB to allocate and
  // fault in, as zfpy in a warm process has none either.
  const out = new Float32Array(values.length);
  await ownGet(arr, null, { out });
  if (sha(out) !== sha(decoded)) throw new Error(`${name}: get into out and ZfpCodec.decode differ`);
  const reads = {
    decode: () => codec.decode(stream),
    zarr_get: () => zarr.get(arr),
    get: () => ownGet(arr),
    get_out: () => ownGet(arr, null, { out }),
  };
  fields.push({ name, shape, stream, codec, file, sha256: sha(decoded), reads, times: { decode: [], zarr_get: [], get: [], get_out: [] }, zfpy: [] });
}

// Rounds in blocks of three; before each block, zfpy decodes every field in a Python process.
const python = process.env.ZFPY_PYTHON ?? "python3";
const script = fileURLToPath(new URL("./zfpy_decode.py", import.meta.url));
const jobs = fields.map((f) => ({ file: f.file, shape: f.shape, tolerance: TOLERANCE }));
const zfpySha = [];
const zfpy = await inTurns(ROUNDS, 3, (rounds) => {
  const got = JSON.parse(execFileSync(python, [script, JSON.stringify(jobs), String(rounds)], { encoding: "utf8" }));
  for (const [i, f] of fields.entries()) {
    f.zfpy.push(...got[i].times_ms);
    zfpySha[i] = got[i].sha256;
  }
}, fields);

const results = fields.map((f, i) => {
  f.codec.free();
  const r = {
    name: f.name, shape: f.shape, stream_bytes: f.stream.length,
    decode_ms: median(f.times.decode), zarr_get_ms: median(f.times.zarr_get), get_ms: median(f.times.get),
    get_out_ms: median(f.times.get_out), sha256: f.sha256,
  };
  if (zfpy === "run") {
    r.zfpy_ms = median(f.zfpy);
    r.same_values_as_zfpy = zfpySha[i] === f.sha256;
    r.decode_ratio = r.decode_ms / r.zfpy_ms;
    r.zarr_get_ratio = r.zarr_get_ms / r.zfpy_ms;
    r.get_ratio = r.get_ms / r.zfpy_ms;
    r.get_out_ratio = r.get_out_ms / r.zfpy_ms;
  }
  return r;
});

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ rounds: ROUNDS, tolerance: TOLERANCE, fields: results, zfpy }, null, 2));
} else {
  console.log(`zfp decode, 4M float32 values (fixed_accuracy ${TOLERANCE}), ${ROUNDS} rounds (medians)`);
  for (const r of results) {
    const vs = (ms, ratio) => `${ms.toFixed(2).padStart(7)} ms${ratio === undefined ? "" : ` (${ratio.toFixed(2)}x)`}`;
    console.log(`  ${r.name.padEnd(15)} ${r.shape.join(" x ").padEnd(14)} stream ${(r.stream_bytes / 1e6).toFixed(2)} MB` +
      (r.zfpy_ms === undefined ? "" : `  zfpy ${r.zfpy_ms.toFixed(2).padStart(6)} ms`) +
      `  ZfpCodec.decode ${vs(r.decode_ms, r.decode_ratio)}  get ${vs(r.get_ms, r.get_ratio)}  get into out ${vs(r.get_out_ms, r.get_out_ratio)}  zarr.get ${vs(r.zarr_get_ms, r.zarr_get_ratio)}` +
      (r.same_values_as_zfpy === false ? "  VALUES DIFFER FROM ZFPY" : ""));
  }
  if (zfpy !== "run") console.log(`  zfpy: ${zfpy}`);
}
