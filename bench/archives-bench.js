// The archive benchmark's reads, shared by Node (bench/archives.mjs) and the page it opens in
// headless Chromium (bench/browser/archives.html): a variable of netCDF4 files read in place
// through a kerchunk reference set (kerchunk's or VirtualiZarr's), by each contender, the
// reference set fetched and the array opened afresh for every read (nothing cached), with the
// server's count of requests and bytes for the read (its /__stats answer).
import ReferenceStore from "@zarrita/storage/ref";
import * as zarr from "zarrita";
import { get, getDecoded, open, referenceStore, registerCodecs, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { median, sameBits } from "./util.mjs";

registerCodecs();

/** The reference set at `url`, its files' URL template (`u`) pointed at `files` (a folder URL). */
async function referencesAt(url, files) {
  const spec = await (await fetch(url, { cache: "no-store" })).json();
  spec.templates = { ...spec.templates, u: files };
  return spec;
}

const openV2 = (store, variable) => zarr.open.v2(zarr.root(store).resolve(variable), { kind: "array" });

function contendersOf(pool) {
  // (get first: the values every other contender's are checked against.)
  return {
    get: async (spec, v) => get(await open(zarr.root(await referenceStore(spec)).resolve(v))),
    "get, pool": async (spec, v) => get(await open(zarr.root(await referenceStore(spec)).resolve(v)), null, { pool }),
    "get, pool+workerFetch": async (spec, v) => get(await open(zarr.root(await referenceStore(spec)).resolve(v)), null, { pool, workerFetch: true }),
    wrapped: async (spec, v) => zarr.get(await openV2(withWasmCodecs(await referenceStore(spec)), v)),
    "wrapped, pool": async (spec, v) => zarr.get(await openV2(withWasmCodecs(await referenceStore(spec), { pool }), v)),
    "zarr.get, package store": async (spec, v) => zarr.get(await openV2(await referenceStore(spec), v)),
    // (Decoded reads: float64, not checked against get's integers.)
    getDecoded: async (spec, v) => getDecoded(await open(zarr.root(await referenceStore(spec)).resolve(v))),
    // (Last: a browser can refuse its 1,500 requests at once, and its network stays busy after.)
    "zarrita+ReferenceStore": async (spec, v) => zarr.get(await openV2(ReferenceStore.fromSpec(spec), v)),
  };
}


/**
 * Reads each of `sets` (`{ name, url, variable }`: a reference set's URL and the variable read
 * whole) by each contender, `rounds` times after one untimed read each, with a pool of
 * `poolSize`; `files` is the URL of the folder the referenced files are served from, `stats`
 * the server's counters. `onRow` hears each row as it is done.
 */
export async function runArchivesBench({ sets, files, stats, rounds = 3, poolSize = 2, onRow }) {
  const pool = new WorkerPool(poolSize);
  const contenders = contendersOf(pool);
  const counts = async () => (await fetch(stats, { cache: "no-store" })).json();
  const rows = [];
  try {
    for (const set of sets) {
      const row = { set: set.name, variable: set.variable, contenders: {} };
      let reference;
      for (const [who, read] of Object.entries(contenders)) {
        // One untimed read (wasm compiled, workers started), checked against get's. A reader
        // that fails (a browser refusing 1,500 requests at once) is reported so.
        let first;
        try {
          first = await read(await referencesAt(set.url, files), set.variable);
        } catch (e) {
          row.contenders[who] = { error: String(e?.message ?? e).slice(0, 200) };
          continue;
        }
        if (who === "get") reference = first.data;
        const differing = who === "getDecoded" ? undefined : sameBits(first.data, reference) ? 0 : 1;
        const times = [];
        let [requests, bytes] = [0, 0];
        for (let r = 0; r < rounds; r++) {
          const before = await counts();
          const start = performance.now();
          await read(await referencesAt(set.url, files), set.variable);
          times.push(performance.now() - start);
          const after = await counts();
          [requests, bytes] = [after.requests - before.requests, after.bytes - before.bytes];
        }
        row.contenders[who] = { median_ms: median(times), requests, bytes, ...(differing ? { values_differing: true } : {}) };
      }
      rows.push(row);
      onRow?.(row);
    }
  } finally {
    await pool.terminate();
  }
  return rows;
}
