// The HTTP benchmark's reads, shared by Node (bench/http.mjs) and the page it opens in headless
// Chromium (bench/browser/http.html): each store of bench/http_stores.py read whole over HTTP
// through zarrita's FetchStore, by zarr.get (zarrita's own codecs: registerCodecs() is not
// called) and by this package's get, on one thread (its default concurrency, and others to
// compare) and with a pool. Each array is opened once per reader, before the rounds, as a
// viewer does; the first, untimed read checks that every reader's values equal zarr.get's.
import * as zarr from "zarrita";
import { get, open, WorkerPool } from "zarr-wasm-codecs";
import { median, seededShuffle } from "./util.mjs";

export const STORES = ["uint8-gzip", "float64-zstd", "int16-zstd", "int16-zstd-sharded", "v2-blosc"];

/**
 * Runs `rounds` rounds over `stores` (under `base`, a URL) and `concurrencies` (extra one-thread
 * reads of get), with a pool of `poolSize`; per store and reader, the median, min and max
 * wall time (ms).
 */
export async function runHttpBench({ base, stores = STORES, rounds = 10, concurrencies = [], poolSize = 2, overrides }) {
  const storeOf = (name) => new zarr.FetchStore(`${base}/${name}.zarr`, { overrides });
  const pool = new WorkerPool(poolSize);
  const shuffled = seededShuffle(0x4774);
  const readers = {
    "zarr.get": { open: (s) => zarr.open(s, { kind: "array" }), read: (arr) => zarr.get(arr) },
    get: { open, read: (arr) => get(arr) },
    ...Object.fromEntries(concurrencies.map((c) => [`get, concurrency ${c}`, { open, read: (arr) => get(arr, null, { concurrency: c }) }])),
    [`get, pool of ${poolSize}`]: { open, read: (arr) => get(arr, null, { pool }) },
  };
  const jobs = [];
  for (const store of stores) {
    const reference = await readers["zarr.get"].read(await readers["zarr.get"].open(storeOf(store)));
    for (const [reader, { open, read }] of Object.entries(readers)) {
      const arr = await open(storeOf(store));
      const first = await read(arr);
      if (!sameValues(first.data, reference.data)) throw new Error(`${reader} on ${store}: values differ from zarr.get's`);
      jobs.push({ store, reader, run: () => read(arr), times: [] });
    }
  }
  for (let r = 0; r < rounds; r++) {
    for (const job of shuffled(jobs)) {
      const t = performance.now();
      await job.run();
      job.times.push(performance.now() - t);
    }
  }
  await pool.terminate();
  const result = {};
  for (const { store, reader, times } of jobs) {
    (result[store] ??= {})[reader] = { median_ms: median(times), min_ms: Math.min(...times), max_ms: Math.max(...times) };
  }
  return result;
}

function sameValues(a, b) {
  if (a.length !== b.length || a.constructor !== b.constructor) return false;
  const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
  const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
