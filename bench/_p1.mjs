import { Zstd, Blosc, LZ4 } from "numcodecs";
import { readFileSync } from "node:fs";
const glue = await import("../dist/wasm/zarr_wasm_codecs_encode.js");
glue.initSync({ module: readFileSync(new URL("../dist/wasm/zarr_wasm_codecs_encode.wasm", import.meta.url)) });
const N = 2048;
let seed = 3;
const rnd = () => { seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32; };
const noisy = Float64Array.from({ length: N * N }, () => 280 + 10 * (rnd() * 2 - 1));
const smooth = Float64Array.from({ length: N * N }, (_, i) => 2.75 + 12 * Math.sin(Math.floor(i / N) / 97) * Math.cos((i % N) / 131) + (rnd() - 0.5) * 0.5);
const chunks = (d) => Array.from({ length: 64 }, (_, k) => new Uint8Array(d.buffer, k * 524288, 524288));
async function time(f, cs) { let best = 1e9, size = 0; for (let r = 0; r < 4; r++) { const t = performance.now(); size = 0; for (const c of cs) size += (await f(c)).length; best = Math.min(best, performance.now() - t); } return `${best.toFixed(0)} ms ${(size / 1e6).toFixed(1)} MB`; }
for (const [name, d] of [["smooth", smooth], ["noisy", noisy]]) {
  const cs = chunks(d);
  for (const level of [0, 1, 3]) {
    const ours = new glue.Compressor(JSON.stringify([{ name: "zstd", configuration: { level, checksum: false } }]), 8);
    const theirs = Zstd.fromConfig({ id: "zstd", level });
    console.log(name, "zstd level", level, "ours", await time((c) => ours.encode(c), cs), "numcodecs.js", await time((c) => theirs.encode(c), cs));
  }
  const bl = new glue.Compressor(JSON.stringify([{ name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 8, blocksize: 0 } }]), 8);
  const tb = Blosc.fromConfig({ id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 });
  console.log(name, "blosc lz4", "ours", await time((c) => bl.encode(c), cs), "numcodecs.js", await time((c) => tb.encode(c), cs));
  const l4 = new glue.Compressor(JSON.stringify([{ name: "numcodecs.lz4", configuration: { acceleration: 1 } }]), 8);
  const t4 = LZ4.fromConfig({ id: "lz4", acceleration: 1 });
  console.log(name, "lz4", "ours", await time((c) => l4.encode(c), cs), "numcodecs.js", await time((c) => t4.encode(c), cs));
}
