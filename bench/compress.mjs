// The compress module's decompressors (zarr_wasm_codecs_compress, loaded through the package's
// loadModule("compress")) against numcodecs.js's (Emscripten builds of zstd, c-blosc and lz4, which
// zarrita's registry decodes with; fflate for gzip and zlib, where zarrita 0.7 uses
// DecompressionStream instead, timed too), on the same chunks: a
// 512 x 512 float64 chunk of the design card's smooth field (bench/util.mjs designField: its
// noise leaves the low mantissa bytes random), the same field without the noise and rounded to
// 0.01 (values as a source with two decimals gives them), one of random float64 values, and a
// 512 x 512 uint8 chunk (the design card's field packed as scale_offset + cast_value
// store it). Each chunk is encoded once with numcodecs.js; then every decoder decodes it, the
// outputs are checked equal to the chunk, and the decoders are timed interleaved, in a seeded
// random order per round, after 3 untimed rounds. For gzip, Node's zlib.gunzipSync and
// DecompressionStream("gzip") too; for zlib, zlib.inflateSync and DecompressionStream("deflate").
// For zstd, the zstd module (zstd's decoder alone, built smaller: crates/zstd/Cargo.toml) too.
// Our decoder's time is `Decompressor.decode` (the stored bytes copied into wasm memory and
// decoded there, where the package's read places them from); numcodecs.js's is its `decode`
// (in, decoded, copied out to a new Uint8Array).
// Prints medians and the ratio numcodecs.js / ours; `--json` prints them as JSON.
// BENCH_ROUNDS sets the rounds (default 25).
import { gunzipSync, inflateSync } from "node:zlib";

import Blosc from "numcodecs/blosc";
import GZip from "numcodecs/gzip";
import LZ4 from "numcodecs/lz4";
import Zlib from "numcodecs/zlib";
import Zstd from "numcodecs/zstd";

import { loadModule, memoryOf } from "../dist/loading/load.js";
import { designField, median, seededShuffle } from "./util.mjs";

const SIDE = 512;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);

// The chunks.
const smooth = designField(SIDE);
const rounded = Float64Array.from({ length: SIDE * SIDE }, (_, k) => {
  const [i, j] = [Math.floor(k / SIDE), k % SIDE];
  return Math.round(100 * (2.75 + 12 * Math.sin(i / 97) * Math.cos(j / 131))) / 100;
});
// Random values in [-1000, 1000), every bit of the mantissa random (mulberry32).
const noisy = new Float64Array(SIDE * SIDE);
{
  let seed = 7;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  for (let i = 0; i < noisy.length; i++) noisy[i] = (random() + random() / 2 ** 32 - 0.5) * 2000;
}
// The design card's packing (scale_offset offset -10, scale 10; cast_value to uint8, clamped,
// NaN as 0): stored = round((v + 10) * 10).
const packed = Uint8Array.from(smooth, (v) => (Number.isNaN(v) ? 0 : Math.min(255, Math.max(0, Math.round((v + 10) * 10)))));
const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const CHUNKS = {
  "float64 smooth": bytesOf(smooth),
  "float64 smooth, 0.01": bytesOf(rounded),
  "float64 noisy": bytesOf(noisy),
  "uint8": packed,
};

// The codecs: numcodecs.js's encoder and decoder, and the zarr v3 metadata our decoder reads.
// (numcodecs.js's Blosc writes a type size of 4, sizeof(int), into every chunk whatever the
// data; its Zstd encodes level 0 as level 1.)
const blosc = (cname, shuffle, name) => ({
  codec: Blosc.fromConfig({ id: "blosc", cname, clevel: 5, shuffle, blocksize: 0 }),
  meta: { name: "blosc", configuration: { cname, clevel: 5, shuffle: name, typesize: 4, blocksize: 0 } },
});
const CODECS = {
  "zstd level 0": { codec: Zstd.fromConfig({ id: "zstd", level: 0 }), meta: { name: "zstd", configuration: { level: 0, checksum: false } } },
  "zstd level 5": { codec: Zstd.fromConfig({ id: "zstd", level: 5 }), meta: { name: "zstd", configuration: { level: 5, checksum: false } } },
  "blosc lz4 shuffle": blosc("lz4", Blosc.SHUFFLE, "shuffle"),
  "blosc blosclz noshuffle": blosc("blosclz", Blosc.NOSHUFFLE, "noshuffle"),
  "blosc zstd bitshuffle": blosc("zstd", Blosc.BITSHUFFLE, "bitshuffle"),
  "numcodecs lz4": { codec: LZ4.fromConfig({ id: "lz4", acceleration: 1 }), meta: { name: "numcodecs.lz4", configuration: { acceleration: 1 } } },
  "gzip level 1": { codec: GZip.fromConfig({ id: "gzip", level: 1 }), meta: { name: "gzip", configuration: { level: 1 } } },
  "zlib level 1": { codec: Zlib.fromConfig({ id: "zlib", level: 1 }), meta: { name: "numcodecs.zlib", configuration: { level: 1 } } },
};
// Which codecs run on which chunk: every one on each float64 chunk; blosc lz4 (with shuffle)
// and zstd level 0 on the uint8 chunk (the packed stores' chains).
const PAIRS = [
  ...["float64 smooth", "float64 smooth, 0.01", "float64 noisy"].flatMap((chunk) => Object.keys(CODECS).map((codec) => [chunk, codec])),
  ["uint8", "blosc lz4 shuffle"],
  ["uint8", "zstd level 0"],
];

async function decompressionStream(bytes, format) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream(format));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const equal = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.length), Buffer.from(b.buffer, b.byteOffset, b.length)) === 0;

const compress = await loadModule("compress");
const memory = memoryOf(compress);
// The zstd module (zstd's decoder alone, which the package loads for a chain of zstd alone).
const zstdModule = await loadModule("zstd");

const rows = [];
const reads = {};
for (const [chunkName, codecName] of PAIRS) {
  const raw = CHUNKS[chunkName];
  const { codec, meta } = CODECS[codecName];
  const stored = await codec.encode(raw);
  const decompressor = new compress.Decompressor(JSON.stringify([meta]), raw.length);
  const ours = () => {
    const length = decompressor.decode(stored);
    // (After the decode: it may grow the memory, which detaches the old buffer.)
    return new Uint8Array(memory.buffer, decompressor.address, length);
  };
  const decoders = {
    "numcodecs.js": () => codec.decode(stored),
    ours,
  };
  if (codecName.startsWith("zstd")) {
    const alone = new zstdModule.Decompressor(JSON.stringify([meta]), raw.length);
    decoders["zstd module"] = () => {
      const length = alone.decode(stored);
      return new Uint8Array(memoryOf(zstdModule).buffer, alone.address, length);
    };
  }
  if (codecName.startsWith("gzip")) {
    decoders["zlib.gunzipSync"] = () => gunzipSync(stored);
    decoders['DecompressionStream("gzip")'] = () => decompressionStream(stored, "gzip");
  }
  if (codecName.startsWith("zlib")) {
    decoders["zlib.inflateSync"] = () => inflateSync(stored);
    decoders['DecompressionStream("deflate")'] = () => decompressionStream(stored, "deflate");
  }
  const row = { chunk: chunkName, codec: codecName, raw_bytes: raw.length, stored_bytes: stored.length, header: null, ms: {}, equal: {} };
  if (codecName.startsWith("blosc")) {
    // The blosc header: flags (shuffle, memcpyed, bitshuffle, not split; the compressor) and type size.
    row.header = { flags: `0x${stored[2].toString(16)}`, typesize: stored[3] };
  }
  for (const [name, decode] of Object.entries(decoders)) {
    let out;
    try {
      out = await decode();
      row.equal[name] = equal(out, raw);
    } catch (e) {
      row.equal[name] = `fails: ${String(e.message ?? e).split("\n")[0]}`;
      continue;
    }
    reads[`${chunkName}\t${codecName}\t${name}`] = decode;
  }
  rows.push(row);
}

// Interleaved: every (chunk, codec, decoder) in a new seeded order each round.
const shuffled = seededShuffle(0xc0dec);
const runs = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
let sink = 0;
for (let r = 0; r < 3; r++) for (const k of Object.keys(reads)) sink += (await reads[k]()).length;
for (let r = 0; r < ROUNDS; r++) {
  for (const k of shuffled(Object.keys(reads))) {
    const t0 = performance.now();
    const out = await reads[k]();
    runs[k].push(performance.now() - t0);
    sink += out.length;
  }
}
for (const row of rows) {
  for (const name of Object.keys(row.equal)) {
    const times = runs[`${row.chunk}\t${row.codec}\t${name}`];
    if (times) row.ms[name] = median(times);
  }
  if (row.ms["numcodecs.js"] && row.ms.ours) row.numcodecs_over_ours = row.ms["numcodecs.js"] / row.ms.ours;
}
if (sink === 0) console.log("");

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ side: SIDE, rounds: ROUNDS, node: process.version, rows }, null, 2));
} else {
  console.log(`512x512 chunks, Node ${process.version}, ${ROUNDS} rounds (medians, ms per chunk decoded)`);
  console.log("| chunk | codec | stored | numcodecs.js | ours | numcodecs.js / ours | others | outputs equal |");
  console.log("| --- | --- | ---: | ---: | ---: | ---: | --- | --- |");
  for (const row of rows) {
    const ms = (name) => (row.ms[name] === undefined ? "-" : row.ms[name].toFixed(3));
    const others = Object.keys(row.equal)
      .filter((n) => n !== "numcodecs.js" && n !== "ours")
      .map((n) => `${n} ${ms(n)}`)
      .join(", ");
    const header = row.header ? ` (blosc flags ${row.header.flags}, typesize ${row.header.typesize})` : "";
    const allEqual = Object.values(row.equal).every((v) => v === true);
    const equality = allEqual ? "yes" : Object.entries(row.equal).filter(([, v]) => v !== true).map(([n, v]) => `${n}: ${v === false ? "DIFFERS" : v}`).join("; ");
    console.log(`| ${row.chunk} | ${row.codec}${header} | ${((100 * row.stored_bytes) / row.raw_bytes).toFixed(1)}% | ${ms("numcodecs.js")} | ${ms("ours")} | ` +
      `${row.numcodecs_over_ours ? `${row.numcodecs_over_ours.toFixed(2)}x` : "-"} | ${others || "-"} | ${equality} |`);
  }
}
