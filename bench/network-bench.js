// The network benchmark's reads, shared by Node (bench/network.mjs) and the page it opens in
// headless Chromium (bench/browser/network.html): each store read through zarrita's FetchStore
// by each contender, the array opened afresh for every read (nothing cached), with the server's
// count of requests and bytes for the read (its /__stats answer, which the link does not slow).
import * as zarr from "zarrita";
import { get, open, registerCodecs, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { median, sameBits } from "./util.mjs";

// zarrita's registry as it comes, and with the package's codecs: each contender reads with one
// (an array loads its codecs at its first chunk, and keeps them).
const theirs = new Map(zarr.registry);
registerCodecs();
const ours = new Map(zarr.registry);
function useRegistry(entries) {
  zarr.registry.clear();
  for (const [k, v] of entries) zarr.registry.set(k, v);
}

const v3 = (s) => zarr.open.v3(zarr.root(s), { kind: "array" });
function contendersOf(pool, overrides) {
  const fetchStore = (url) => new zarr.FetchStore(url, { overrides });
  // (get first: the values every other contender's are checked against.)
  return {
    get: { registry: ours, read: async (url, sel) => get(await open(fetchStore(url)), sel) },
    "get, pool+workerFetch": {
      registry: ours,
      read: async (url, sel) => get(await open(fetchStore(url)), sel, { pool, workerFetch: overrides ? { ...overrides } : true }),
    },
    wrapped: { registry: ours, read: async (url, sel) => zarr.get(await v3(withWasmCodecs(fetchStore(url))), sel) },
    "wrapped, pool": { registry: ours, read: async (url, sel) => zarr.get(await v3(withWasmCodecs(fetchStore(url), { pool })), sel) },
    "zarrita+coalescing": { registry: ours, read: async (url, sel) => zarr.get(await v3(zarr.withRangeCoalescing(fetchStore(url))), sel) },
    zarrita: { registry: theirs, read: async (url, sel) => zarr.get(await v3(fetchStore(url)), sel), skip: (store) => store.startsWith("zfpy") },
  };
}
const VIEWS = { "first view": () => [zarr.slice(0, 1024), zarr.slice(0, 1024)], whole: () => null };

/**
 * Reads each of `stores` (under `base`) as each of `views`, `rounds` times per contender, with a
 * pool of `poolSize`, after one untimed read by each; `stats` is the URL of the server's
 * counters. `onRow` hears each row as it is done. Each contender's first read of a store is
 * checked against get's values (zarrita's own packed decode differs by a float32 step:
 * counted, not fatal).
 */
export async function runNetworkBench({ base, stats, stores, views = Object.keys(VIEWS), rounds = 3, poolSize = 2, overrides, onRow }) {
  const pool = new WorkerPool(poolSize);
  const contenders = contendersOf(pool, overrides);
  const counts = async () => (await fetch(stats, { cache: "no-store" })).json();
  const rows = [];
  try {
    // Each contender reads once, untimed, before the first timed read: its wasm compiled, its
    // workers started.
    for (const c of Object.values(contenders)) {
      const store = stores.find((s) => !c.skip?.(s));
      useRegistry(c.registry);
      await c.read(`${base}/${store}.zarr`, VIEWS["first view"]());
    }
    for (const store of stores) {
      for (const view of views) {
        const url = `${base}/${store}.zarr`;
        const row = { store, view, contenders: {} };
        let reference;
        for (const [who, c] of Object.entries(contenders)) {
          if (c.skip?.(store)) continue;
          useRegistry(c.registry);
          const times = [];
          let requests = 0;
          let bytes = 0;
          let differ = 0;
          for (let r = 0; r < rounds; r++) {
            const before = await counts();
            const t0 = performance.now();
            const got = await c.read(url, VIEWS[view]());
            times.push(performance.now() - t0);
            const after = await counts();
            [requests, bytes] = [after.requests - before.requests, after.bytes - before.bytes];
            if (r > 0) continue;
            if (who === "get") reference = got;
            else if (!sameBits(got.data, reference.data)) {
              const [x, y] = [got.data, reference.data];
              for (let i = 0; i < x.length; i++) if (!(x[i] === y[i] || (x[i] !== x[i] && y[i] !== y[i]))) differ++;
              if (who !== "zarrita") throw new Error(`${who} on ${store} (${view}): ${differ} values differ from get's`);
            }
          }
          row.contenders[who] = { median_ms: median(times), requests, bytes, ...(differ ? { values_differing: differ } : {}) };
        }
        rows.push(row);
        onRow?.(row);
      }
    }
  } finally {
    useRegistry(ours);
    await pool.terminate();
  }
  return rows;
}
