// Reading a 2048x2048 float64 array stored as uint8 (scale_offset + cast_value with a NaN
// sentinel, 512x512 chunks) with zarr.get: zarrita's built-in JavaScript codecs against this
// package's, interleaved in one process, next to allocating and copying a Float64Array of the
// output size. Prints medians and ratios; `--json` prints them as JSON.
import * as zarr from "zarrita";
import { registerCodecs } from "zarr-wasm-codecs";

const N = 2048;
const CHUNK = 512;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

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

// zarrita's own cost: the same read from a float64 store with no codecs (raw chunks), which is
// the floor any codec's zarr.get sits on.
const rawMeta = { ...meta, fill_value: 0, codecs: [{ name: "bytes", configuration: { endian: "little" } }] };
const rawStore = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(rawMeta))]]);
for (let i = 0; i < N / CHUNK; i++) {
  for (let j = 0; j < N / CHUNK; j++) rawStore.set(`/c/${i}/${j}`, new Uint8Array(CHUNK * CHUNK * 8));
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

let differ = 0;
for (let i = 0; i < N * N; i++) {
  const a = jsFirst.data[i];
  const b = wasmFirst.data[i];
  if (!(Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)))) differ++;
}

const rawArray = await openArray(rawStore);
await zarr.get(rawArray);

const copySource = wasmFirst.data;
const runs = { js: [], wasm: [], copy: [], raw: [] };
const time = async (fn) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};
let sink = 0;
for (let r = 0; r < ROUNDS; r++) {
  runs.js.push(await time(async () => (sink += (await zarr.get(jsArray)).data.length)));
  runs.wasm.push(await time(async () => (sink += (await zarr.get(wasmArray)).data.length)));
  runs.raw.push(await time(async () => (sink += (await zarr.get(rawArray)).data.length)));
  runs.copy.push(
    await time(async () => {
      const out = new Float64Array(copySource.length);
      out.set(copySource);
      sink += out.length;
    }),
  );
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const result = {
  shape: [N, N],
  chunks: [CHUNK, CHUNK],
  rounds: ROUNDS,
  median_ms: {
    zarrita_js: median(runs.js),
    wasm: median(runs.wasm),
    copy: median(runs.copy),
    raw_float64_floor: median(runs.raw),
  },
  values_differing_from_zarrita_js: differ,
};
result.speedup_vs_zarrita_js = result.median_ms.zarrita_js / result.median_ms.wasm;
result.ratio_to_copy = result.median_ms.wasm / result.median_ms.copy;
// The codecs' own share: time above what zarr.get costs with no codec at all.
result.codec_stage_ms = {
  zarrita_js: result.median_ms.zarrita_js - result.median_ms.raw_float64_floor,
  wasm: result.median_ms.wasm - result.median_ms.raw_float64_floor,
};
result.codec_stage_speedup = result.codec_stage_ms.zarrita_js / result.codec_stage_ms.wasm;

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const m = result.median_ms;
  console.log(`zarr.get of ${N}x${N} float64 from uint8, ${CHUNK}x${CHUNK} chunks, ${ROUNDS} rounds (medians)`);
  console.log(`  zarrita built-in JS codecs  ${m.zarrita_js.toFixed(2)} ms`);
  console.log(`  zarr-wasm-codecs            ${m.wasm.toFixed(2)} ms  (${result.speedup_vs_zarrita_js.toFixed(2)}x faster)`);
  console.log(`  allocate + copy Float64Array ${m.copy.toFixed(2)} ms  (wasm is ${result.ratio_to_copy.toFixed(2)}x the copy)`);
  console.log(`  no codecs (raw float64 chunks) ${m.raw_float64_floor.toFixed(2)} ms  (zarrita's own floor: ${(m.raw_float64_floor / m.copy).toFixed(2)}x the copy)`);
  console.log(`  codec stage above the floor: JS ${result.codec_stage_ms.zarrita_js.toFixed(2)} ms, wasm ${result.codec_stage_ms.wasm.toFixed(2)} ms (${result.codec_stage_speedup.toFixed(2)}x)`);
  console.log(`  values differing from zarrita's JS codecs: ${differ}`);
}
if (sink === 0) console.log("");
