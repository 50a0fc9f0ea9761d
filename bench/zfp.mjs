// zfp decode of one 2048 x 2048 float32 chunk (4M values, fixed_accuracy 1e-3) through zarr.get
// with this package, against zfpy 1.0.1 (the zfp C library) decoding the same stream. zfpy runs
// in a Python with zfpy==1.0.1 (ZFPY_PYTHON, default python3); without it, only this package is
// timed. `--json` prints JSON.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { registerCodecs } from "zarr-wasm-codecs";

const N = 2048;
const TOLERANCE = 1e-3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
registerCodecs();

const meta = {
  zarr_format: 3, node_type: "array", shape: [N, N], data_type: "float32",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [N, N] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: 0, codecs: [{ name: "zfp", configuration: { mode: "fixed_accuracy", tolerance: TOLERANCE } }],
  attributes: {},
};
const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
const field = new Float32Array(N * N);
for (let i = 0; i < N; i++) {
  for (let j = 0; j < N; j++) field[i * N + j] = 15 * Math.sin(i / 61) * Math.cos(j / 47) + 0.3 * Math.sin(i * j / 997);
}
await zarr.set(arr, null, { data: field, shape: [N, N], stride: [N, 1] });
const stream = store.get("/c/0/0");

const first = await zarr.get(arr);
const sha = createHash("sha256").update(new Uint8Array(first.data.buffer)).digest("hex");
const times = [];
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  await zarr.get(arr);
  times.push(performance.now() - t0);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const result = { values: N * N, stream_bytes: stream.length, rounds: ROUNDS, wasm_median_ms: median(times) };

const python = process.env.ZFPY_PYTHON ?? "python3";
try {
  const dir = mkdtempSync(join(tmpdir(), "zfp-bench-"));
  const file = join(dir, "stream.bin");
  writeFileSync(file, stream);
  const script = fileURLToPath(new URL("./zfpy_decode.py", import.meta.url));
  const out = JSON.parse(execFileSync(python, [script, file, String(N), String(N), String(TOLERANCE), String(ROUNDS)], { encoding: "utf8" }));
  result.zfpy_median_ms = out.median_ms;
  result.ratio_to_zfpy = result.wasm_median_ms / out.median_ms;
  result.same_values_as_zfpy = out.sha256 === sha;
} catch (e) {
  result.zfpy = `not run: ${String(e.message).split("\n")[0]}`;
}

if (process.argv.includes("--json")) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`zfp decode, ${N}x${N} float32 (fixed_accuracy ${TOLERANCE}), stream ${result.stream_bytes} bytes, ${ROUNDS} rounds (medians)`);
  console.log(`  zarr.get with zarr-wasm-codecs  ${result.wasm_median_ms.toFixed(2)} ms`);
  if (result.zfpy_median_ms !== undefined) {
    console.log(`  zfpy (zfp C library)            ${result.zfpy_median_ms.toFixed(2)} ms  (wasm is ${result.ratio_to_zfpy.toFixed(2)}x)`);
    console.log(`  same values as zfpy: ${result.same_values_as_zfpy}`);
  } else console.log(`  zfpy: ${result.zfpy}`);
}
