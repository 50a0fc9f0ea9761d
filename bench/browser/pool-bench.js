// The worker-pool benchmark's page (bundled by Vite; run by bench/pool.mjs in headless
// Chromium, cross-origin isolated). The design card's field scaled to n x n float64, 512 x 512
// chunks, in in-memory stores, in the codec chains of the stores users have: stored as uint8
// (scale_offset + cast_value, NaN sentinel), plain and with gzip or zstd; float64 with gzip or
// zstd (zarr-python's default chain); a zarr v2 array as zarr-python 2 writes it (blosc lz4
// with shuffle), its chunks encoded here with numcodecs.js's Blosc; and a sharded array
// (1024 x 1024 shards of 2 x 2 inner chunks, bytes + zstd, the index with a CRC-32C at the
// end), assembled here by hand because zarrita cannot write shards. Each round times, in a
// seeded random order: zarr.get with zarrita's JS codecs; fizarrita's getWorker (its own pool
// of the same size, with and without SharedArrayBuffer); this package's get on one thread,
// and with its pool (shared output, and transferred results). Each read is marked in the
// page's performance timeline; bench/pool.mjs measures the main thread's busy time during it
// from Chromium's trace. `cases` in the query picks cases by id (see CASES), comma-separated.
import { getWorker } from "@fideus-labs/fizarrita";
import { WorkerPool as FizarritaPool } from "@fideus-labs/worker-pool";
import Blosc from "numcodecs/blosc";
import Zstd from "numcodecs/zstd";
import * as zarr from "zarrita";
import { get, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
// Not public: only to say whether `get` read an array on its own path or fell back to zarr.get.
import { coreAccess } from "../../dist/reading/access.js";
import { crc32c } from "../../tests/node/shared/random-arrays.mjs";
import { designField, median, seededShuffle } from "../util.mjs";

const params = new URL(location.href).searchParams;
const N = Number(params.get("n") ?? 4096);
const CHUNK = 512;
const SHARD = 2 * CHUNK;
const ROUNDS = Number(params.get("rounds") ?? 10);
const SIZES = (params.get("sizes") ?? "1,2,4").split(",").map(Number);

const uint8Codecs = [
  { name: "scale_offset", configuration: { offset: -10.0, scale: 10.0 } },
  { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
  { name: "bytes" },
];
const gzip = { name: "gzip", configuration: { level: 1 } };
const zstd = { name: "zstd", configuration: { level: 0, checksum: false } };
const float64Bytes = { name: "bytes", configuration: { endian: "little" } };
// By id: the case's name and its codecs (a v3 array written with this package's set), or the
// function that makes its store (`store`) and how to open it (`open`).
const CASES = {
  uint8: { name: "uint8 (design card)", codecs: uint8Codecs },
  "uint8-gzip": { name: "uint8 + gzip", codecs: [...uint8Codecs, gzip] },
  // No packing: cases fizarrita can read (it cannot read scale_offset + cast_value chains).
  "float64-gzip": { name: "float64 + gzip", codecs: [float64Bytes, gzip] },
  // zarr-python 3's default chain for float64.
  "float64-zstd": { name: "float64 + zstd", codecs: [float64Bytes, zstd] },
  "uint8-zstd": { name: "uint8 + zstd", codecs: [...uint8Codecs, zstd] },
  // zfp's lossy modes cannot hold NaN: the field with its NaN disc at 0. zarr.get reads it with
  // this package's zfp codec in zarrita's registry (zarrita has none); fizarrita cannot.
  zfp: {
    name: "float64 zfp fixed_accuracy 1e-3",
    codecs: [{ name: "zfp", configuration: { mode: "fixed_accuracy", tolerance: 1e-3 } }],
    values: (input) => input.map((v) => (Number.isNaN(v) ? 0 : v)),
  },
  "v2-blosc": { name: "v2 float64 blosc lz4 shuffle", store: v2BloscStore, open: (s) => zarr.open.v2(zarr.root(s), { kind: "array" }) },
  "sharded-zstd": { name: "sharded float64 + zstd, crc32c index", store: shardedStore, open: (s) => zarr.open.v3(zarr.root(s), { kind: "array" }) },
  // The same, from a store whose range reads return views of the shard instead of copies
  // (the copies, 2 MiB per inner chunk, are made on the main thread, all in one task when a
  // shard's index arrives): what the main thread does besides the store's own work.
  "sharded-zstd-views": {
    name: "sharded float64 + zstd, crc32c index (store gives views)",
    store: (input) => shardedStore(input, { views: true }),
    open: (s) => zarr.open.v3(zarr.root(s), { kind: "array" }),
  },
};
const chosen = params.get("cases") ? params.get("cases").split(",").map((c) => c.trim()).filter(Boolean) : Object.keys(CASES);

const encodeText = (v) => new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));

/**
 * The chunk at chunk coordinates (ci, cj) of the n x n field `input`: its 512 x 512 values in
 * C order, NaN (the fill value) past the array's edge, as bytes (little-endian float64).
 */
function chunkBytes(input, ci, cj) {
  const out = new Float64Array(CHUNK * CHUNK).fill(NaN);
  const rows = Math.min(CHUNK, N - ci * CHUNK);
  const cols = Math.min(CHUNK, N - cj * CHUNK);
  for (let r = 0; r < rows; r++) {
    const from = (ci * CHUNK + r) * N + cj * CHUNK;
    out.set(input.subarray(from, from + cols), r * CHUNK);
  }
  return new Uint8Array(out.buffer);
}

/**
 * A zarr v2 array as zarr-python 2 writes float64 by default: blosc lz4, level 5, byte
 * shuffle, chunks keyed "i.j", each encoded with numcodecs.js's Blosc. (numcodecs.js gives
 * blosc a type size of 4, sizeof(int), whatever the data; zarr-python gives the item size, 8.)
 */
async function v2BloscStore(input) {
  const zarray = {
    zarr_format: 2, shape: [N, N], chunks: [CHUNK, CHUNK], dtype: "<f8",
    compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
    fill_value: "NaN", filters: null, order: "C", dimension_separator: ".",
  };
  const store = new Map([["/.zarray", encodeText(zarray)], ["/.zattrs", encodeText("{}")]]);
  const blosc = Blosc.fromConfig({ id: "blosc", cname: "lz4", clevel: 5, shuffle: Blosc.SHUFFLE, blocksize: 0 });
  const grid = Math.ceil(N / CHUNK);
  for (let i = 0; i < grid; i++) {
    for (let j = 0; j < grid; j++) store.set(`/${i}.${j}`, await blosc.encode(chunkBytes(input, i, j)));
  }
  return store;
}

/**
 * A sharded float64 array: 1024 x 1024 shards of 2 x 2 inner 512 x 512 chunks, each inner
 * chunk bytes + zstd (numcodecs.js), one after another, then the index (offset and length,
 * uint64 little-endian, per inner chunk in C order; all ones for a chunk wholly past the
 * array's edge) and the index's CRC-32C (4 bytes, little-endian). The store reads ranges,
 * copies of them (as tests/node/shared/random-arrays.mjs's store does), or views with `views`.
 */
async function shardedStore(input, { views = false } = {}) {
  const meta = {
    zarr_format: 3, node_type: "array", shape: [N, N], data_type: "float64", fill_value: "NaN", attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [SHARD, SHARD] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{
      name: "sharding_indexed",
      configuration: {
        chunk_shape: [CHUNK, CHUNK],
        codecs: [float64Bytes, zstd],
        index_codecs: [float64Bytes, { name: "crc32c" }],
        index_location: "end",
      },
    }],
  };
  const map = new Map([["/zarr.json", encodeText(meta)]]);
  const zstdCodec = Zstd.fromConfig({ id: "zstd", level: zstd.configuration.level });
  const per = SHARD / CHUNK;
  const grid = Math.ceil(N / SHARD);
  for (let si = 0; si < grid; si++) {
    for (let sj = 0; sj < grid; sj++) {
      const parts = [];
      const index = new DataView(new ArrayBuffer(16 * per * per));
      let offset = 0;
      for (let a = 0; a < per; a++) {
        for (let b = 0; b < per; b++) {
          const [ci, cj] = [si * per + a, sj * per + b];
          const at = 16 * (a * per + b);
          if (ci * CHUNK >= N || cj * CHUNK >= N) {
            index.setBigUint64(at, 0xffffffffffffffffn, true);
            index.setBigUint64(at + 8, 0xffffffffffffffffn, true);
            continue;
          }
          const bytes = await zstdCodec.encode(chunkBytes(input, ci, cj));
          index.setBigUint64(at, BigInt(offset), true);
          index.setBigUint64(at + 8, BigInt(bytes.length), true);
          parts.push(bytes);
          offset += bytes.length;
        }
      }
      const indexBytes = new Uint8Array(index.buffer);
      const shard = new Uint8Array(offset + indexBytes.length + 4);
      let at = 0;
      for (const p of parts) {
        shard.set(p, at);
        at += p.length;
      }
      shard.set(indexBytes, at);
      new DataView(shard.buffer).setUint32(at + indexBytes.length, crc32c(indexBytes), true);
      map.set(`/c/${si}/${sj}`, shard);
    }
  }
  return {
    map,
    get: async (key) => map.get(key),
    getRange: async (key, range) => {
      const bytes = map.get(key);
      if (!bytes) return undefined;
      const [from, to] = "suffixLength" in range ? [bytes.length - range.suffixLength, bytes.length] : [range.offset, range.offset + range.length];
      return views ? bytes.subarray(from, to) : bytes.slice(from, to);
    },
  };
}

/** The bytes a store holds besides its metadata (the chunks' or shards' stored bytes). */
function storedBytes(store) {
  let total = 0;
  for (const [key, bytes] of store.map ?? store) if (!/(zarr\.json|\.zarray|\.zattrs)$/.test(key)) total += bytes.length;
  return total;
}

/**
 * Runs `read` between two performance marks named after `label`, from which bench/pool.mjs
 * finds, in Chromium's trace, the main thread's tasks during the read. Its wall time.
 */
async function timed(label, read) {
  performance.mark(`bench-start\t${label}`);
  const t0 = performance.now();
  await read();
  const wall = performance.now() - t0;
  performance.mark(`bench-end\t${label}`);
  return wall;
}

const hex = (v) => {
  const b = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619);
  return (h >>> 0).toString(16) + ":" + b.length;
};

async function run() {
  for (const id of chosen) if (!CASES[id]) throw new Error(`no case ${id}: the cases are ${Object.keys(CASES).join(", ")}`);
  const builtin = new Map(["scale_offset", "cast_value", "gzip"].map((n) => [n, zarr.registry.get(n)]));
  const input = designField(N);
  const results = { n: N, chunk: CHUNK, rounds: ROUNDS, sizes: SIZES, crossOriginIsolated, cases: {}, info: {} };
  const shuffled = seededShuffle(0x5eed);
  for (const id of chosen) {
    const { name, codecs, store: makeStore, open: openStore, values } = CASES[id];
    registerCodecs();
    let jsArray;
    let ourArray;
    let store;
    if (codecs) {
      const meta = {
        zarr_format: 3, node_type: "array", shape: [N, N], data_type: "float64", fill_value: "NaN", attributes: {},
        chunk_grid: { name: "regular", configuration: { chunk_shape: [CHUNK, CHUNK] } },
        chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
        codecs,
      };
      store = new Map([["/zarr.json", encodeText(meta)]]);
      const open = () => zarr.open.v3(zarr.root(store), { kind: "array" });
      await set(await open(), null, { data: values ? values(input) : input, shape: [N, N], stride: [N, 1] });
      // zarrita's own JS codecs, for zarr.get and for fizarrita's workers (which use zarrita's
      // registry in the worker, untouched by registerCodecs()).
      builtin.forEach((entry, key) => zarr.registry.set(key, entry));
      jsArray = await open();
      ourArray = await open();
    } else {
      // Stores written here without this package: one array object for every reader.
      builtin.forEach((entry, key) => zarr.registry.set(key, entry));
      store = await makeStore(input);
      jsArray = ourArray = await openStore(store);
    }
    const access = await coreAccess(ourArray);
    results.info[name] = {
      id,
      stored_bytes: storedBytes(store),
      decoded_bytes: N * N * 8,
      get_path: typeof access === "string" ? `falls back to zarr.get: ${access}` : "its own",
    };
    const reads = { "zarr.get (zarrita JS)": () => zarr.get(jsArray), "get (one thread)": () => get(ourArray) };
    const pools = [];
    for (const size of SIZES) {
      const ours = new WorkerPool(size);
      const theirs = new FizarritaPool(size);
      pools.push(ours, theirs);
      reads[`fizarrita getWorker, ${size} workers`] = () => getWorker(jsArray, null, { pool: theirs });
      reads[`fizarrita getWorker + SAB, ${size} workers`] = () => getWorker(jsArray, null, { pool: theirs, useSharedArrayBuffer: true });
      reads[`get, pool of ${size}`] = () => get(ourArray, null, { pool: ours, useSharedArrayBuffer: false });
      reads[`get, pool of ${size} + SAB`] = () => get(ourArray, null, { pool: ours, useSharedArrayBuffer: true });
    }
    // Every read gives the same values (a read that fails is reported and not timed); and
    // untimed rounds first (JIT, workers starting).
    console.log(`[bench] ${name}: stored`);
    const want = hex((await reads["zarr.get (zarrita JS)"]()).data);
    const same = {};
    const failed = {};
    for (const [k, read] of Object.entries(reads)) {
      console.log(`[bench] ${name}: checking ${k}`);
      try {
        const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error("no answer in 20 s")), 20000));
        same[k] = hex((await Promise.race([read(), timeout])).data) === want;
      } catch (e) {
        failed[k] = String(e.message ?? e).split("\n")[0];
        delete reads[k];
      }
    }
    for (const read of Object.values(reads)) await read();
    const runs = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
    for (let r = 0; r < ROUNDS; r++) {
      console.log(`[bench] ${name}: round ${r + 1} of ${ROUNDS}`);
      for (const k of shuffled(Object.keys(reads))) {
        runs[k].push(await timed(`${name}\t${k}\t${r}`, reads[k]));
        // A pause between reads, so that one read's leftovers (GC) fall outside the next.
        await new Promise((done) => setTimeout(done, 20));
      }
    }
    for (const p of pools) await (p.terminate ? p.terminate() : p.terminateWorkers());
    results.cases[name] = Object.fromEntries(
      Object.entries(runs).map(([k, wall]) => [
        k,
        { wall_ms: median(wall), wall_min_ms: Math.min(...wall), wall_max_ms: Math.max(...wall), identical: same[k] },
      ]),
    );
    for (const [k, message] of Object.entries(failed)) results.cases[name][k] = { failed: message };
  }
  return results;
}

run().then(
  (r) => (window.__result = r),
  (e) => (window.__error = `${e} ${e.stack ?? ""}`),
);
