// A viewer panning over a sharded store over a network: one tile (one inner chunk) read at a
// time, each awaited before the next, over a loopback server that holds every answer BENCH_RTT ms
// (default 20) and sends ETag and Last-Modified (a second or more before its Date). The store is
// tests/fixtures/server-caches/a.zarr (zarr-python 3.4.2: int32 256^2, shards 128^2 of 32^2 inner
// chunks): each round pans over every inner chunk of the array in a seeded order.
//
// What it measures: what a kept shard index saves a tile, and what reading it again costs where
// no validator is seen. Contenders, each with the package's `get` and with zarr.get over
// `withWasmCodecs` (one thread):
// - "plain FetchStore": `new zarr.FetchStore(url)`, no validator seen: each tile reads its
//   shard's index again (HEAD and a range: zarrita's FetchStore asks for a suffix's size first);
// - "validatingFetch": `fetch: validatingFetch()`: the index kept, each tile one request;
// - "immutable": a plain FetchStore with `immutable: true`: the index kept without validators.
// Reported: the median tile time and the requests a tile made. BENCH_ROUNDS (default 3) rounds
// after one warm-up pan. `--json` prints the figures as JSON.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "zarrita";
import { get, open, validatingFetch, withWasmCodecs } from "zarr-wasm-codecs";
import { filesUnder } from "../tests/node/shared/files.mjs";
import { median, seededShuffle } from "./util.mjs";

const RTT = Number(process.env.BENCH_RTT ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const root = fileURLToPath(new URL("../tests/fixtures/server-caches/a.zarr", import.meta.url));
const files = new Map(filesUnder(root).map((p) => [p.slice(root.length).split("\\").join("/"), readFileSync(p)]));
const modified = Date.now() - 60_000;

let requests = 0;
const server = createServer((req, res) => {
  requests++;
  const body = files.get(decodeURIComponent(new URL(req.url, "http://x").pathname));
  setTimeout(() => {
    if (!body) return void res.writeHead(404).end();
    const headers = { "Accept-Ranges": "bytes", ETag: `"${body.length}-${body[0]}-${body[body.length - 1]}x"`, "Last-Modified": new Date(modified).toUTCString() };
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!m) return void res.writeHead(200, { ...headers, "Content-Length": body.length }).end(req.method === "HEAD" ? undefined : body);
    const [start, end] = m[1] === "" ? [body.length - Number(m[2]), body.length - 1] : [Number(m[1]), Math.min(Number(m[2]), body.length - 1)];
    const part = body.subarray(start, end + 1);
    res.writeHead(206, { ...headers, "Content-Range": `bytes ${start}-${end}/${body.length}`, "Content-Length": part.length }).end(part);
  }, RTT);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/`;

const [rows, cols] = [256, 256];
const tiles = [];
for (let r = 0; r < rows; r += 32) for (let c = 0; c < cols; c += 32) tiles.push([zarr.slice(r, r + 32), zarr.slice(c, c + 32)]);

const STORES = {
  "plain FetchStore": () => ({ store: new zarr.FetchStore(url), options: {} }),
  validatingFetch: () => ({ store: new zarr.FetchStore(url, { fetch: validatingFetch() }), options: {} }),
  immutable: () => ({ store: new zarr.FetchStore(url), options: { immutable: true } }),
};
const READERS = {
  get: async ({ store, options }) => {
    const a = await open(store);
    return (t) => get(a, t, options);
  },
  wrapped: async ({ store, options }) => {
    const a = await zarr.open.v3(zarr.root(withWasmCodecs(store, options)), { kind: "array" });
    return (t) => zarr.get(a, t);
  },
};

const shuffle = seededShuffle(67);
const results = [];
for (const [reader, make] of Object.entries(READERS)) {
  for (const [kind, storeOf] of Object.entries(STORES)) {
    const read = await make(storeOf());
    for (const t of tiles) await read(t); // warm-up pan (every shard's index read once)
    const times = [];
    const before = requests;
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of shuffle(tiles)) {
        const start = performance.now();
        await read(t);
        times.push(performance.now() - start);
      }
    }
    results.push({ reader, store: kind, tile_ms: median(times), requests_per_tile: (requests - before) / (ROUNDS * tiles.length) });
  }
}
server.close();
if (process.argv.includes("--json")) console.log(JSON.stringify({ rtt_ms: RTT, rounds: ROUNDS, tiles: tiles.length, results }, null, 2));
else {
  console.log(`pan over ${tiles.length} tiles of 32^2 (4 shards), ${RTT} ms a response, ${ROUNDS} rounds:`);
  for (const r of results) console.log(`${r.reader.padEnd(8)} ${r.store.padEnd(17)} ${r.tile_ms.toFixed(1).padStart(6)} ms a tile, ${r.requests_per_tile.toFixed(2)} requests a tile`);
}
