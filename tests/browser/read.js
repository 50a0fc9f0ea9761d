// Shared by the browser pages: reads fixture stores over HTTP with zarrita's FetchStore and this
// package's codecs, and reports what it decoded (hex of the bytes, as the Node tests compare).
import * as zarr from "zarrita";
import { get, getDecoded, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
import { zfpStore } from "./zfp-store.js";
import { hex } from "./hex.js";

registerCodecs();

export async function readStores(names) {
  const results = {};
  for (const name of names) {
    const url = new URL(`/tests/node/fixtures/stores/${name}.zarr`, location.href).href;
    const arr = await zarr.open.v3(new zarr.FetchStore(url), { kind: "array" });
    const chunk = await zarr.get(arr);
    results[name] = { shape: chunk.shape, hex: hex(chunk.data), type: chunk.data.constructor.name };
  }
  return results;
}

/**
 * Writes each store's input (the values zarr-python was given) into an empty copy of the array
 * (its zarr.json in a Map store): with `set`, and with `zarr.set` through the registered codecs.
 * The hex of every chunk written, per key, for the test to compare with zarr-python's files.
 */
export async function writeStores(names) {
  const results = {};
  for (const name of names) {
    const base = new URL(`/tests/node/fixtures/stores/${name}.zarr`, location.href).href;
    const meta = new Uint8Array(await (await fetch(`${base}/zarr.json`)).arrayBuffer());
    const input = await (await fetch(base.replace(/\.zarr$/, ".input.bin"))).arrayBuffer();
    for (const [how, write] of [["set", set], ["zarr.set", zarr.set]]) {
      const store = new Map([["/zarr.json", meta]]);
      const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
      const data = new CTORS[arr.dtype](input);
      const stride = arr.shape.map((_, i) => arr.shape.slice(i + 1).reduce((a, b) => a * b, 1));
      await write(arr, null, { data, shape: arr.shape, stride });
      const chunks = {};
      for (const [key, bytes] of store) if (key !== "/zarr.json") chunks[key.slice(1)] = hex(bytes);
      results[`${name} ${how}`] = chunks;
    }
  }
  return results;
}

/**
 * The stores read by `get` in a pool of two workers, in the page's default mode (a shared
 * output where the page is cross-origin isolated) and with transferred results; each must
 * equal the single-thread `get`. Also what forcing a shared output gives.
 */
export async function readStoresWithPool(names) {
  const pool = new WorkerPool(2);
  const results = { crossOriginIsolated, stores: {} };
  for (const name of names) {
    const url = new URL(`/tests/node/fixtures/stores/${name}.zarr`, location.href).href;
    const arr = await zarr.open.v3(new zarr.FetchStore(url), { kind: "array" });
    const single = await get(arr);
    const pooled = await get(arr, null, { pool });
    const transferred = await get(arr, null, { pool, useSharedArrayBuffer: false });
    results.stores[name] = {
      shape: pooled.shape,
      hex: hex(pooled.data),
      sameAsSingle: hex(single.data) === hex(pooled.data) && hex(single.data) === hex(transferred.data),
      shared: pooled.data.buffer instanceof (globalThis.SharedArrayBuffer ?? class {}),
    };
  }
  try {
    const arr = await zarr.open.v3(new zarr.FetchStore(new URL(`/tests/node/fixtures/stores/${names[0]}.zarr`, location.href).href), { kind: "array" });
    await get(arr, null, { pool, useSharedArrayBuffer: true });
    results.forcedShared = "read";
  } catch (e) {
    results.forcedShared = e.code;
  }
  await pool.terminate();
  results.terminated = pool.terminated;
  return results;
}

const CTORS = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  float16: globalThis.Float16Array, float32: Float32Array, float64: Float64Array,
};

/** Every zfp fixture (zfpy's streams) through zarrita: the ids whose values differ from zfpy's. */
export async function readZfpCases() {
  const cases = await (await fetch("/tests/fixtures/zfp/cases.json")).json();
  const wrong = [];
  let read = 0;
  for (const c of cases) {
    if (!CTORS[c.data_type]) continue;
    const stream = new Uint8Array(c.stream.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
    const store = zfpStore(c, stream);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    const got = await zarr.get(arr);
    const data = c.shape.length === 0 ? CTORS[c.data_type].of(got) : got.data;
    if (hex(data) !== c.decoded) wrong.push(c.id);
    read++;
  }
  return { read, total: cases.length, wrong };
}

/**
 * Every store of tests/fixtures/stores (zarr-python's and xarray's defaults: zstd, blosc, lz4,
 * gzip, zlib, sharded with crc32c, zarr v2) read over HTTP with `get` (`getDecoded` for the
 * xarray cases) on one thread and in a pool of two, in the page's default mode and with
 * transferred results: the cases whose values differ from zarr-python's (hash of the bytes).
 */
export async function readCompressedStores() {
  // (The cases the package refuses are refused in stores.test.mjs.)
  return readManifestStores("/tests/fixtures/stores/", (m) => m.filter((c) => !c.refused));
}

/**
 * zarrs' stores of zarr-extensions' reshape codec and rectilinear chunk grid
 * (tests/fixtures/extensions), read as `readCompressedStores` reads zarr-python's.
 */
export async function readExtensionStores() {
  return readManifestStores("/tests/fixtures/extensions/", (m) => m.cases);
}

async function readManifestStores(dir, casesOf) {
  const base = new URL(dir, location.href).href;
  const manifest = casesOf(await (await fetch(`${base}manifest.json`)).json());
  const store = (c) => `${base}${dir.includes("extensions") ? "stores/" : ""}${c.store}`;
  const expected = (c) => `${base}${dir.includes("extensions") ? "stores/" : ""}${c.expected}`;
  const pool = new WorkerPool(2);
  const wrong = [];
  // Four stores at a time (each store's reads in turn): the reads wait on requests far more than
  // on the two cores, and one store at a time left them idle.
  const readStore = async (c) => {
    const want = hex(new Uint8Array(await (await fetch(expected(c))).arrayBuffer()));
    const root = zarr.root(new zarr.FetchStore(store(c)));
    const arr = await zarr.open(c.path ? root.resolve(c.path) : root, { kind: "array" });
    const read = c.decoded ? getDecoded : get;
    const modes = [
      ["one thread", {}], ["pool", { pool }], ["pool, transferred", { pool, useSharedArrayBuffer: false }],
      // The workers fetching the chunks themselves (options.workerFetch).
      ["pool, workers fetch", { pool, workerFetch: true }], ["pool, transferred, workers fetch", { pool, useSharedArrayBuffer: false, workerFetch: true }],
    ];
    for (const [how, options] of modes) {
      const got = await read(arr, null, options);
      if (hex(got.data) !== want) wrong.push(`${c.case} (${how})`);
    }
  };
  const queue = [...manifest];
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (queue.length) await readStore(queue.shift());
  }));
  await pool.terminate();
  return { read: manifest.length, wrong };
}

/**
 * Writes every case of tests/fixtures/written (cases.mjs) into an in-memory store, on one
 * thread and with a worker pool, and hashes each stored file (SHA-256): the test compares them
 * with the hashes of the stores zarr-python read exactly (verified.json).
 */
export async function writeVerifiedCases() {
  // Imported at run time by URL, past bundlers (only the import-map page runs this).
  const cases = "/tests/fixtures/written/cases.mjs";
  const { CASES, memoryStore, runCase } = await import(/* @vite-ignore */ /* webpackIgnore: true */ cases);
  const pool = new WorkerPool(2);
  const results = {};
  try {
    for (const c of CASES) {
      for (const via of ["one thread", "pool"]) {
        const store = memoryStore();
        await runCase(c, store, via === "pool" ? { pool } : {});
        const hashes = {};
        for (const [key, bytes] of store.files) {
          hashes[key.replace(/^\//, "")] = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
        }
        results[`${c.name} (${via})`] = hashes;
      }
    }
  } finally {
    await pool.terminate();
  }
  return results;
}

/**
 * Every data-type store of tests/fixtures/dtypes (zarr-python's and xarray's bool, complex,
 * datetime64 and timedelta64, fixed_length_utf32, fixed and raw bytes, float16; v2 and v3,
 * big-endian, order F, sharded) read over HTTP with `open` + `get` on one thread and in a pool
 * (shared and transferred), item for item, and the decoded reads (times as milliseconds, bool,
 * CF time as xarray decodes it): the cases that differ.
 */
export async function readDataTypeStores() {
  // (Loaded from the test server at run time: bundled pages leave this import alone.)
  const items = new URL("/tests/fixtures/dtypes/items.mjs", location.href).href;
  const { itemCases, itemsGot, itemsWanted, millis, hex: hexOf } = await import(/* @vite-ignore */ /* webpackIgnore: true */ items);
  const base = new URL("/tests/fixtures/dtypes/", location.href).href;
  const expected = await (await fetch(`${base}expected.json`)).json();
  const pool = new WorkerPool(2);
  const wrong = [];
  const openCase = (c) => {
    const root = zarr.root(new zarr.FetchStore(`${base}${c.store}`));
    return open(c.path ? root.resolve(c.path) : root);
  };
  let read = 0;
  for (const c of itemCases(expected)) {
    const arr = await openCase(c);
    for (const [how, options] of [["one thread", {}], ["pool", { pool }], ["pool, transferred", { pool, useSharedArrayBuffer: false }]]) {
      const got = await get(arr, null, options);
      if (JSON.stringify(itemsGot(c, got.data)) !== JSON.stringify(itemsWanted(c))) wrong.push(`${c.case} ${c.path} (${how})`);
    }
    read++;
  }
  let decoded = 0;
  for (const c of expected) {
    const times = ["datetime64", "timedelta64", "bool"].includes(c.encoding) && c.metadata_data_type !== "int64";
    const cf = c.xarray_decoded_encoding === "ms_since_epoch";
    if (!times && !cf) continue;
    const want = cf ? millis(c.xarray_decoded) : c.encoding === "bool" ? c.values.map(Number) : millis(c.ms_since_epoch);
    const got = await getDecoded(await openCase(c), null, { pool });
    if (JSON.stringify(Array.from(got.data)) !== JSON.stringify(want)) wrong.push(`${c.case} ${c.path} (getDecoded)`);
    decoded++;
  }
  // float16 where the engine has a Float16Array: get gives it.
  let float16 = 0;
  for (const c of expected.filter((x) => x.case.startsWith("float16"))) {
    if (!globalThis.Float16Array) break;
    const got = await get(await openCase(c));
    if (hexOf(got.data) !== c.values_hex) wrong.push(`${c.case} (float16)`);
    float16++;
  }
  await pool.terminate();
  return { read, decoded, float16, wrong };
}
