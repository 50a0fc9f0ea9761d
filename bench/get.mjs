// The package's read path against zarrita, on the design card's case: a 2048 x 2048 float64
// array stored as uint8 (scale_offset + cast_value, NaN sentinel), 512 x 512 chunks, in an
// in-memory store; also stored as int16, and as uint8 with gzip. For each, interleaved in one
// process in a seeded random order per round: zarr.get with zarrita's built-in JS codecs,
// zarr.get with registerCodecs(), this package's get and getDecoded, and allocating + copying
// a Float64Array of the output's size, and allocating + filling one (the floor any read that
// returns a new array pays on one thread); and get into one caller-owned output (options.out)
// (one thread, and a pool writing into a SharedArrayBuffer-backed one) against copying the
// same values into that warm output. Then getDecoded on an int16 array with CF
// attributes against zarr.get plus a JavaScript mask-and-scale loop.
// Prints medians and ratios, and the share of get's time spent inside the wasm calls;
// `--json` prints them as JSON. BENCH_ROUNDS sets the rounds (default 30), after three
// untimed rounds of each read.
import * as zarr from "zarrita";
import { get, getDecoded, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
import { loadWasm } from "zarr-wasm-codecs";
import { designField, median, seededShuffle, timeRounds } from "./util.mjs";

const N = 2048;
const CHUNK = 512;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
// The pool for the shared-output read: BENCH_POOL workers (default 2).
const POOL = Number(process.env.BENCH_POOL ?? 2);

const uint8Codecs = [
  { name: "scale_offset", configuration: { offset: -10.0, scale: 10.0 } },
  { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
  { name: "bytes" },
];
const int16Codecs = [
  { name: "scale_offset", configuration: { offset: 0, scale: 1000 } },
  { name: "cast_value", configuration: { data_type: "int16", out_of_range: "clamp", scalar_map: { encode: [["NaN", -32768]], decode: [[-32768, "NaN"]] } } },
  { name: "bytes", configuration: { endian: "little" } },
];
const CASES = {
  "uint8 (design card)": uint8Codecs,
  "int16": int16Codecs,
  "uint8 + gzip": [...uint8Codecs, { name: "gzip", configuration: { level: 1 } }],
};

const meta = (codecs) => ({
  zarr_format: 3,
  node_type: "array",
  shape: [N, N],
  data_type: "float64",
  chunk_grid: { name: "regular", configuration: { chunk_shape: [CHUNK, CHUNK] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: "NaN",
  codecs,
  attributes: {},
});

const builtin = new Map(["scale_offset", "cast_value", "gzip"].map((n) => [n, zarr.registry.get(n)]));
const useBuiltin = () => builtin.forEach((entry, name) => zarr.registry.set(name, entry));
const open = (store) => zarr.open.v3(zarr.root(store), { kind: "array" });

const input = designField(N);
const hex = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex");
const shuffled = seededShuffle(0x5eed);

const wasm = await loadWasm();
const pool = new WorkerPool(POOL);
const results = {};
for (const [name, codecs] of Object.entries(CASES)) {
  registerCodecs();
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta(codecs)))]]);
  await set(await open(store), null, { data: input, shape: [N, N], stride: [N, 1] });
  useBuiltin();
  const jsArray = await open(store);
  const jsFirst = await zarr.get(jsArray);
  registerCodecs();
  const wasmArray = await open(store);
  const wasmFirst = await zarr.get(wasmArray);
  const ourArray = await open(store);
  const ourFirst = await get(ourArray);
  const decodedFirst = await getDecoded(ourArray);
  const same = hex(ourFirst.data) === hex(wasmFirst.data) && hex(decodedFirst.data) === hex(ourFirst.data);
  let sink = 0;
  // One caller-owned output, as a viewer re-reading time steps keeps: get fills it in place
  // (options.out), against copying the same values into it.
  const warm = new Float64Array(N * N);
  // The same with the pool's workers writing into a SharedArrayBuffer-backed output directly.
  const warmShared = new Float64Array(new SharedArrayBuffer(N * N * 8));
  await get(ourArray, null, { out: warmShared, pool });
  const same_out = hex((await get(ourArray, null, { out: warm })).data) === hex(wasmFirst.data);
  const reads = {
    zarrita_js: async () => (sink += (await zarr.get(jsArray)).data.length),
    get_out: async () => (sink += (await get(ourArray, null, { out: warm })).data.length),
    get_out_pool: async () => (sink += (await get(ourArray, null, { out: warmShared, pool })).data.length),
    copy_warm: async () => {
      warm.set(jsFirst.data);
      sink += warm.length;
    },
    zarr_get_registerCodecs: async () => (sink += (await zarr.get(wasmArray)).data.length),
    get: async () => (sink += (await get(ourArray)).data.length),
    getDecoded: async () => (sink += (await getDecoded(ourArray)).data.length),
    copy: async () => {
      const out = new Float64Array(N * N);
      out.set(jsFirst.data);
      sink += out.length;
    },
    // The floor of any read that returns a new array on one thread: allocating the output
    // and writing every value once (no source to read).
    fill: async () => {
      const out = new Float64Array(N * N);
      out.fill(0.5);
      sink += out.length;
    },
  };
  const runs = await timeRounds(reads, ROUNDS, shuffled);
  // Time inside the wasm calls of get: the reader's methods timed, in separate rounds.
  const proto = wasm.ArrayReader.prototype;
  const inner = { setChunk: proto.setChunk, decodeTile: proto.decodeTile };
  let inside = 0;
  for (const key of Object.keys(inner)) {
    proto[key] = function (...args) {
      const t0 = performance.now();
      try {
        return inner[key].apply(this, args);
      } finally {
        inside += performance.now() - t0;
      }
    };
  }
  const insides = [];
  const totals = [];
  for (let r = 0; r < ROUNDS; r++) {
    inside = 0;
    const t0 = performance.now();
    await reads.get();
    totals.push(performance.now() - t0);
    insides.push(inside);
  }
  Object.assign(proto, inner);
  const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]));
  results[name] = {
    median_ms: m,
    get_vs_zarrita_js: m.zarrita_js / m.get,
    get_to_copy: m.get / m.copy,
    getDecoded_vs_zarrita_js: m.zarrita_js / m.getDecoded,
    getDecoded_to_copy: m.getDecoded / m.copy,
    zarrita_js_to_fill: m.zarrita_js / m.fill,
    get_to_fill: m.get / m.fill,
    get_out_vs_zarrita_js: m.zarrita_js / m.get_out,
    get_out_to_copy_warm: m.get_out / m.copy_warm,
    get_out_pool_vs_zarrita_js: m.zarrita_js / m.get_out_pool,
    get_out_pool_to_copy_warm: m.get_out_pool / m.copy_warm,
    get_inside_wasm_ms: median(insides),
    get_outside_wasm_ms: median(totals) - median(insides),
    identical_to_zarr_get: same && same_out,
  };
  if (sink === 0) console.log("");
}

// getDecoded with something to decode: the same values stored as a plain int16 array with
// xarray's CF attributes (scale_factor 0.001, _FillValue -32768), against zarr.get of the
// int16 array followed by the JavaScript loop a zarrita user would write (NaN where the fill
// value is, then value * scale_factor + add_offset in float64, as xarray does).
{
  const cfMeta = {
    ...meta([{ name: "bytes", configuration: { endian: "little" } }]),
    data_type: "int16",
    fill_value: -32768,
    attributes: { scale_factor: 0.001, add_offset: 0, _FillValue: -32768 },
  };
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(cfMeta))]]);
  const packed = Int16Array.from(input, (v) => (Number.isNaN(v) ? -32768 : Math.round(v * 1000)));
  await set(await open(store), null, { data: packed, shape: [N, N], stride: [N, 1] });
  const arr = await open(store);
  const zarritaDecoded = async () => {
    const raw = await zarr.get(arr);
    const out = new Float64Array(raw.data.length);
    for (let i = 0; i < out.length; i++) out[i] = raw.data[i] === -32768 ? NaN : raw.data[i] * 0.001 + 0;
    return out;
  };
  const same = hex(await zarritaDecoded()) === hex((await getDecoded(arr)).data);
  let sink = 0;
  const reads = {
    zarrita_js: async () => (sink += (await zarritaDecoded()).length),
    getDecoded: async () => (sink += (await getDecoded(arr)).data.length),
    copy: async () => {
      const out = new Float64Array(N * N);
      out.set(input);
      sink += out.length;
    },
  };
  const runs = await timeRounds(reads, ROUNDS, shuffled);
  const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]));
  results["int16 + CF attributes (getDecoded)"] = {
    median_ms: m,
    getDecoded_vs_zarrita_js: m.zarrita_js / m.getDecoded,
    getDecoded_to_copy: m.getDecoded / m.copy,
    identical_to_zarrita_js_decode: same,
  };
  if (sink === 0) console.log("");
}

await pool.terminate();

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ shape: [N, N], chunks: [CHUNK, CHUNK], rounds: ROUNDS, results }, null, 2));
} else {
  const ms = (x) => `${x.toFixed(2)} ms`.padStart(9);
  console.log(`${N}x${N} float64 read whole, ${CHUNK}x${CHUNK} chunks, in-memory store, ${ROUNDS} rounds (medians)`);
  for (const [name, r] of Object.entries(results)) {
    const m = r.median_ms;
    if (!("get" in m)) {
      console.log(`${name}:`);
      console.log(`  zarr.get + JS mask and scale    ${ms(m.zarrita_js)}`);
      console.log(`  getDecoded                      ${ms(m.getDecoded)}  ${r.getDecoded_vs_zarrita_js.toFixed(2)}x zarrita, ${r.getDecoded_to_copy.toFixed(2)}x the copy`);
      console.log(`  allocate + copy Float64Array    ${ms(m.copy)}`);
      console.log(`  getDecoded equals the JS decode bit for bit: ${r.identical_to_zarrita_js_decode}`);
      continue;
    }
    console.log(`${name}:`);
    console.log(`  zarr.get, zarrita's JS codecs   ${ms(m.zarrita_js)}`);
    console.log(`  zarr.get, registerCodecs()      ${ms(m.zarr_get_registerCodecs)}  ${(m.zarrita_js / m.zarr_get_registerCodecs).toFixed(2)}x zarrita`);
    console.log(`  get                             ${ms(m.get)}  ${r.get_vs_zarrita_js.toFixed(2)}x zarrita, ${r.get_to_copy.toFixed(2)}x the copy (inside wasm ${r.get_inside_wasm_ms.toFixed(2)} ms, outside ${r.get_outside_wasm_ms.toFixed(2)} ms)`);
    console.log(`  getDecoded                      ${ms(m.getDecoded)}  ${r.getDecoded_vs_zarrita_js.toFixed(2)}x zarrita, ${r.getDecoded_to_copy.toFixed(2)}x the copy`);
    console.log(`  get into one output (out)       ${ms(m.get_out)}  ${r.get_out_vs_zarrita_js.toFixed(2)}x zarrita, ${r.get_out_to_copy_warm.toFixed(2)}x the warm copy`);
    console.log(`  the same, pool of ${POOL} (shared)    ${ms(m.get_out_pool)}  ${r.get_out_pool_vs_zarrita_js.toFixed(2)}x zarrita, ${r.get_out_pool_to_copy_warm.toFixed(2)}x the warm copy`);
    console.log(`  copy into that warm output      ${ms(m.copy_warm)}`);
    console.log(`  allocate + copy Float64Array    ${ms(m.copy)}`);
    console.log(`  allocate + fill Float64Array    ${ms(m.fill)}  (zarrita / fill = ${r.zarrita_js_to_fill.toFixed(2)}x: the most any one-thread read can gain)`);
    console.log(`  get and getDecoded equal zarr.get bit for bit: ${r.identical_to_zarr_get}`);
  }
}
