// Reading a 2048x2048 float64 array stored as uint8 (scale_offset + cast_value with a NaN
// sentinel, 512x512 chunks) with zarr.get: zarrita's built-in JavaScript codecs against this
// package's, interleaved in one process, next to allocating and copying a Float64Array of the
// output size, and two floors that no codec can go below (zarr.get of float64 chunks with no
// codec, and with a stand-in codec that does no decoding but, like any codec, returns a new
// array per chunk). Prints medians, ratios and minor page faults per read; `--json` prints them
// as JSON. BENCH_GC=1 runs a full garbage collection (untimed) before every timed read, so that
// no read pays for collecting the garbage of the reads before it.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as zarr from "zarrita";
import { registerCodecs } from "zarr-wasm-codecs";
import { median, seededShuffle } from "./util.mjs";

const N = 2048;
const CHUNK = 512;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const GC = process.env.BENCH_GC === "1";
if (GC) setFlagsFromString("--expose-gc");
const collect = GC ? runInNewContext("gc") : () => {};

const meta = {
  zarr_format: 3,
  node_type: "array",
  shape: [N, N],
  data_type: "float64",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [CHUNK, CHUNK] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: "NaN",
  codecs: [
    { name: "scale_offset", configuration: { offset: -10.0, scale: 10.0 } },
    {
      name: "cast_value",
      configuration: {
        data_type: "uint8",
        out_of_range: "clamp",
        scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] },
      },
    },
    { name: "bytes" },
  ],
  attributes: {},
};

/** A smooth field in [-9.9, 15.4] with a NaN mask, as a packed-uint8 store would hold. */
function field() {
  const data = new Float64Array(N * N);
  for (let i = 0; i < N; i++) {
    for (let j = 0; j < N; j++) {
      const v = 2.75 + 12.5 * Math.sin(i / 97) * Math.cos(j / 131);
      data[i * N + j] = (i - 1200) ** 2 + (j - 700) ** 2 < 300 ** 2 ? NaN : v;
    }
  }
  return data;
}

const builtin = new Map(["scale_offset", "cast_value"].map((n) => [n, zarr.registry.get(n)]));
const useBuiltin = () => builtin.forEach((entry, name) => zarr.registry.set(name, entry));

async function openArray(store) {
  return zarr.open.v3(zarr.root(store), { kind: "array" });
}

// Write once with this package (zarrita's own codecs cannot encode).
const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
registerCodecs();
const writer = await openArray(store);
const input = field();
await zarr.set(writer, null, { data: input, shape: [N, N], stride: [N, 1] });

// Each array loads its codecs on first use and keeps them: load one of each kind.
useBuiltin();
const jsArray = await openArray(store);
const jsFirst = await zarr.get(jsArray);
registerCodecs();
const wasmArray = await openArray(store);
const wasmFirst = await zarr.get(wasmArray);

/** The decoded values of chunk (i, j), C order. */
function chunkValues(i, j) {
  const out = new Float64Array(CHUNK * CHUNK);
  for (let r = 0; r < CHUNK; r++) {
    out.set(jsFirst.data.subarray((i * CHUNK + r) * N + j * CHUNK, (i * CHUNK + r) * N + (j + 1) * CHUNK), r * CHUNK);
  }
  return out;
}

// Floor 1, zarrita's own cost: the same values stored as float64 with no codec, so each chunk
// is a view of the stored bytes. (The chunks hold the real values: never-written buffers would
// be read from the kernel's shared zero page, which flatters the floor.)
const rawMeta = { ...meta, fill_value: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }] };
const rawStore = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(rawMeta))]]);
// Floor 2, what zarr.get costs around any codec that returns a new array per chunk: a stand-in
// codec that decodes nothing and returns a copy of one decoded chunk.
const oneChunk = chunkValues(1, 1);
zarr.registry.set("no_decode_stand_in", async () => ({
  fromConfig: () => ({
    kind: "array_to_array",
    decode: (chunk) => ({ data: oneChunk.slice(), shape: chunk.shape, stride: chunk.stride }),
    getEncodedMeta: (current) => ({ ...current, dataType: "uint8", fillValue: 0 }),
  }),
}));
const standInMeta = { ...meta, fill_value: 0, codecs: [{ name: "no_decode_stand_in" }, { name: "bytes" }] };
const standInStore = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(standInMeta))]]);
for (let i = 0; i < N / CHUNK; i++) {
  for (let j = 0; j < N / CHUNK; j++) {
    rawStore.set(`/c/${i}/${j}`, new Uint8Array(chunkValues(i, j).buffer));
    standInStore.set(`/c/${i}/${j}`, new Uint8Array(CHUNK * CHUNK));
  }
}

// Values whose bits differ (NaN payloads included).
let differ = 0;
{
  const a = new Uint32Array(jsFirst.data.buffer);
  const b = new Uint32Array(wasmFirst.data.buffer);
  for (let i = 0; i < a.length; i += 2) if (a[i] !== b[i] || a[i + 1] !== b[i + 1]) differ++;
}

const rawArray = await openArray(rawStore);
await zarr.get(rawArray);
const standInArray = await openArray(standInStore);
await zarr.get(standInArray);

const copySource = wasmFirst.data;
let sink = 0;
const reads = {
  js: async () => (sink += (await zarr.get(jsArray)).data.length),
  wasm: async () => (sink += (await zarr.get(wasmArray)).data.length),
  copy: async () => {
    const out = new Float64Array(copySource.length);
    out.set(copySource);
    sink += out.length;
  },
  raw: async () => (sink += (await zarr.get(rawArray)).data.length),
  stand_in: async () => (sink += (await zarr.get(standInArray)).data.length),
};
const names = Object.keys(reads);
const runs = Object.fromEntries(names.map((k) => [k, []]));
const faults = Object.fromEntries(names.map((k) => [k, []]));
// Each round runs the reads in a new random order (seeded, so runs are repeatable): what ran
// just before a read (its garbage still to collect, the memory it freed) changes the read's cost,
// and a fixed or rotated order would always put the same read after zarrita's JS codecs, which
// leave the most garbage.
const shuffled = seededShuffle(0x5eed);
for (let r = 0; r < ROUNDS; r++) {
  for (const k of shuffled(names)) {
    collect();
    const f0 = process.resourceUsage().minorPageFault;
    const t0 = performance.now();
    await reads[k]();
    runs[k].push(performance.now() - t0);
    faults[k].push(process.resourceUsage().minorPageFault - f0);
  }
}

const result = {
  shape: [N, N],
  chunks: [CHUNK, CHUNK],
  rounds: ROUNDS,
  gc_before_each_read: GC,
  median_ms: {
    zarrita_js: median(runs.js),
    wasm: median(runs.wasm),
    copy: median(runs.copy),
    raw_float64_floor: median(runs.raw),
    stand_in_floor: median(runs.stand_in),
  },
  median_minor_page_faults: {
    zarrita_js: median(faults.js),
    wasm: median(faults.wasm),
    copy: median(faults.copy),
    raw_float64_floor: median(faults.raw),
    stand_in_floor: median(faults.stand_in),
  },
  values_differing_from_zarrita_js: differ,
};
const m = result.median_ms;
result.speedup_vs_zarrita_js = m.zarrita_js / m.wasm;
result.ratio_to_copy = m.wasm / m.copy;
// The best any codec returning a new array per chunk could score on the two targets.
result.stand_in_floor_speedup_vs_zarrita_js = m.zarrita_js / m.stand_in_floor;
result.stand_in_floor_ratio_to_copy = m.stand_in_floor / m.copy;
// The codecs' own share: time above what zarr.get costs with no codec at all.
result.codec_stage_ms = {
  zarrita_js: m.zarrita_js - m.raw_float64_floor,
  wasm: m.wasm - m.raw_float64_floor,
};
result.codec_stage_speedup = result.codec_stage_ms.zarrita_js / result.codec_stage_ms.wasm;
// This package's own share: time above the stand-in that returns a new array without decoding.
result.wasm_above_stand_in_ms = m.wasm - m.stand_in_floor;

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f = result.median_minor_page_faults;
  const ms = (x) => `${x.toFixed(2)} ms`.padStart(9);
  console.log(`zarr.get of ${N}x${N} float64 from uint8, ${CHUNK}x${CHUNK} chunks, ${ROUNDS} rounds${GC ? ", GC before each read" : ""} (medians; minor page faults per read)`);
  console.log(`  zarrita built-in JS codecs      ${ms(m.zarrita_js)}  [${f.zarrita_js}]`);
  console.log(`  zarr-wasm-codecs                ${ms(m.wasm)}  [${f.wasm}]  ${result.speedup_vs_zarrita_js.toFixed(2)}x faster, ${result.ratio_to_copy.toFixed(2)}x the copy`);
  console.log(`  allocate + copy Float64Array    ${ms(m.copy)}  [${f.copy}]`);
  console.log(`  floor: no codec (float64 store) ${ms(m.raw_float64_floor)}  [${f.raw_float64_floor}]  ${(m.raw_float64_floor / m.copy).toFixed(2)}x the copy`);
  console.log(`  floor: stand-in, no decoding    ${ms(m.stand_in_floor)}  [${f.stand_in_floor}]  ${result.stand_in_floor_speedup_vs_zarrita_js.toFixed(2)}x faster than JS, ${result.stand_in_floor_ratio_to_copy.toFixed(2)}x the copy`);
  console.log(`  codec stage above the no-codec floor: JS ${result.codec_stage_ms.zarrita_js.toFixed(2)} ms, wasm ${result.codec_stage_ms.wasm.toFixed(2)} ms (${result.codec_stage_speedup.toFixed(2)}x)`);
  console.log(`  zarr-wasm-codecs above the stand-in: ${result.wasm_above_stand_in_ms.toFixed(2)} ms`);
  console.log(`  values differing from zarrita's JS codecs (bits): ${differ}`);
}
if (sink === 0) console.log("");
