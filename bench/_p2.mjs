import * as zarr from "zarrita";
import { set, registerCodecs, WorkerPool } from "zarr-wasm-codecs";
registerCodecs();
const N = 2048;
let seed = 3;
const rnd = () => { seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32; };
const smooth = Float64Array.from({ length: N * N }, (_, i) => 2.75 + 12 * Math.sin(Math.floor(i / N) / 97) * Math.cos((i % N) / 131) + (rnd() - 0.5) * 0.5);
const value = { data: smooth, shape: [N, N], stride: [N, 1] };
const codecs = JSON.parse(process.env.CODECS ?? '[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":0,"checksum":false}}]');
const pool = process.env.POOL ? new WorkerPool(Number(process.env.POOL)) : undefined;
const { eventLoopUtilization } = await import("node:perf_hooks").then(m => m.performance);
for (let r = 0; r < Number(process.env.R ?? 6); r++) {
  const store = new Map();
  const arr = await zarr.create(zarr.root(store), { shape: [N, N], chunkShape: [256, 256], dtype: "float64", codecs, fillValue: 0 });
  const e0 = eventLoopUtilization();
  const t = performance.now();
  if (process.env.ZARR) await zarr.set(arr, null, value); else await set(arr, null, value, pool ? { pool } : {});
  const e1 = eventLoopUtilization(e0);
  console.log((performance.now() - t).toFixed(1), "ms busy", (e1.active).toFixed(1));
}
await pool?.terminate();
