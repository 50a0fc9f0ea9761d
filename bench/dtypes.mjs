// Reads of the data types beyond the numeric core, against zarrita's zarr.get where zarrita
// reads them (bool; datetime64, which zarrita reads as the int64 counts of the array open()
// gives it; zarr v2 <U8 strings), and the package's own reads of those it cannot (complex64,
// getDecoded of datetime64 as milliseconds), in one Node process. Each array is BENCH_N x
// BENCH_N (default 2048) in 256 x 256 chunks, zstd level 0 (zarr-python's default), in an
// in-memory store, written once by the package's `set` from seeded values (bool: a seeded
// coin; datetime64[s]: a seeded walk from 2000-01-01 with NaT at 1%; complex64: a smooth
// field and a noisy one as the parts; <U8: station names of 1 to 8 characters, some outside
// ASCII) — values not picked to flatter a reader. Timed: the read call only, the array opened
// before; the median and range (min-max) of BENCH_ROUNDS rounds (default 8) after 2 warm-up
// rounds, contenders in a seeded shuffled order each round. Reads are checked equal before
// timing. `--json` prints the figures as JSON.
import { performance } from "node:perf_hooks";
import * as zarr from "zarrita";
import { get, getDecoded, open, registerCodecs, set } from "zarr-wasm-codecs";
import { designField, median, seededShuffle } from "./util.mjs";

registerCodecs();

const N = Number(process.env.BENCH_N ?? 2048);
const CHUNK = 256;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const JSON_OUT = process.argv.includes("--json");

/** mulberry32 */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function memory() {
  const files = new Map();
  return { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v), getRange: async () => undefined };
}

const zstd = { name: "zstd", configuration: { level: 0, checksum: false } };
function zarrJson(dataType, fill, endian = true) {
  return {
    zarr_format: 3, node_type: "array", shape: [N, N], data_type: dataType, fill_value: fill,
    chunk_grid: { name: "regular", configuration: { chunk_shape: [CHUNK, CHUNK] } },
    chunk_key_encoding: { name: "default" },
    codecs: [endian ? { name: "bytes", configuration: { endian: "little" } } : { name: "bytes" }, zstd],
  };
}

async function made(meta, file = "/zarr.json") {
  const store = memory();
  await store.set(file, new TextEncoder().encode(JSON.stringify(meta)));
  return { store, arr: await open(zarr.root(store)) };
}

const stride = [N, 1];
const cases = [];

{
  const r = random(1);
  const data = Uint8Array.from({ length: N * N }, () => (r() < 0.3 ? 1 : 0));
  const { arr } = await made(zarrJson("bool", false, false));
  await set(arr, null, { data, shape: [N, N], stride });
  cases.push({ name: "bool", arr, zarrita: true });
}
{
  const r = random(2);
  const data = new BigInt64Array(N * N);
  let t = 946684800n;
  for (let i = 0; i < data.length; i++) {
    t += BigInt(Math.floor(r() * 7200));
    data[i] = r() < 0.01 ? -(2n ** 63n) : t;
  }
  const { arr } = await made(zarrJson({ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, "NaT"));
  await set(arr, null, { data, shape: [N, N], stride });
  cases.push({ name: "datetime64[s]", arr, zarrita: true, decoded: true });
}
{
  const smooth = designField(N);
  const r = random(3);
  const data = new Float32Array(2 * N * N);
  for (let i = 0; i < N * N; i++) {
    data[2 * i] = Number.isNaN(smooth[i]) ? 0 : smooth[i];
    data[2 * i + 1] = 280 + 10 * (2 * r() - 1);
  }
  const { arr } = await made(zarrJson("complex64", [0, 0]));
  await set(arr, null, { data, shape: [N, N], stride });
  cases.push({ name: "complex64", arr, zarrita: false });
}
{
  const r = random(4);
  const names = ["Oslo", "Zürich", "東京", "Tromsø", "Kraków", "Lima", "Nuuk", "Hobart"];
  const strings = new zarr.UnicodeStringArray(8, N * N);
  const points = new Uint32Array(strings.buffer);
  for (let i = 0; i < N * N; i++) {
    const s = names[Math.floor(r() * names.length)].slice(0, 1 + Math.floor(r() * 8));
    [...s].forEach((c, k) => (points[8 * i + k] = c.codePointAt(0)));
  }
  const meta = { zarr_format: 2, shape: [N, N], chunks: [CHUNK, CHUNK], dtype: "<U8", fill_value: "", order: "C", filters: null, dimension_separator: ".", compressor: { id: "zstd", level: 0 } };
  const { arr } = await made(meta, "/.zarray");
  await set(arr, null, { data: strings, shape: [N, N], stride });
  cases.push({ name: "v2 <U8", arr, zarrita: true });
}

const bytesOf = (d) => {
  const b = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  return b;
};
const same = (a, b) => {
  const x = bytesOf(a);
  const y = bytesOf(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
};

const results = [];
for (const c of cases) {
  const contenders = { get: () => get(c.arr) };
  if (c.zarrita) contenders["zarr.get"] = () => zarr.get(c.arr);
  if (c.decoded) contenders.getDecoded = () => getDecoded(c.arr);
  if (c.zarrita) {
    const [a, b] = await Promise.all([get(c.arr), zarr.get(c.arr)]);
    if (!same(a.data, b.data)) throw new Error(`${c.name}: get and zarr.get differ`);
  }
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  const order = seededShuffle(7);
  for (let round = -2; round < ROUNDS; round++) {
    for (const k of order(Object.keys(contenders))) {
      const t0 = performance.now();
      await contenders[k]();
      const dt = performance.now() - t0;
      if (round >= 0) times[k].push(dt);
    }
  }
  const row = { case: c.name };
  for (const [k, ts] of Object.entries(times)) row[k] = { median: median(ts), min: Math.min(...ts), max: Math.max(...ts) };
  if (row["zarr.get"]) row.ratio = row["zarr.get"].median / row.get.median;
  results.push(row);
}

if (JSON_OUT) {
  console.log(JSON.stringify({ n: N, rounds: ROUNDS, results }, null, 2));
} else {
  const f = (x) => (x ? `${x.median.toFixed(1)} (${x.min.toFixed(1)}-${x.max.toFixed(1)})` : "-");
  console.log(`data types, ${N}x${N}, ${CHUNK}^2 chunks, zstd; median (range) ms over ${ROUNDS} rounds`);
  console.log("| case | get | zarr.get | zarr.get / get | getDecoded |");
  console.log("|---|---|---|---|---|");
  for (const r of results) console.log(`| ${r.case} | ${f(r.get)} | ${f(r["zarr.get"])} | ${r.ratio ? `${r.ratio.toFixed(2)}x` : "zarrita cannot read it"} | ${f(r.getDecoded)} |`);
}
