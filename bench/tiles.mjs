// One tile at a time, as a viewer asks for them: each tile one chunk (128^2, 256^2, 512^2) of
// the stores bench/tile_stores.py writes (zarr-python 3.4.2, zstd: the design card's packing as
// uint8 read as float64, int16 with CF attributes read as int16, float32), held in memory (a Map
// of the files). Made on first run with BENCH_PYTHON (default python3), which needs zarr 3.4.2.
//
// Contenders, each reading the same tiles in turn (one awaited before the next is asked):
// - "registerCodecs": zarr.get on an array zarr.open opened, after registerCodecs();
// - "wrapped": zarr.get over withWasmCodecs(store);
// - "wrapped, pool": zarr.get over withWasmCodecs(store, { pool }) (BENCH_POOL workers, default 2);
// - "get": the package's get on an array its open opened;
// - "get, pool": the same with { pool }.
// Every contender's first tile of each store is checked equal to zarr.get's (after registerCodecs,
// itself checked against zarr-python's in the package's tests). Timed: each tile's read, BENCH_TILES
// tiles a round (default 32, over every chunk of the array in turn), BENCH_ROUNDS rounds (default 5)
// after one warm-up round, contenders in a seeded shuffled order each round; the median tile time.
// `--json` prints the figures as JSON.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import * as zarr from "zarrita";
import { get, open, registerCodecs, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesUnder } from "../tests/node/shared/files.mjs";
import { designField, median, seededShuffle } from "./util.mjs";

const N = 2048;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TILES = Number(process.env.BENCH_TILES ?? 32);
const POOL = Number(process.env.BENCH_POOL ?? 2);
const root = fileURLToPath(new URL("../", import.meta.url));
const dir = join(root, "target/bench-tiles");
const SIDES = [128, 256, 512];
const STORES = SIDES.flatMap((t) => [`uint8-${t}`, `int16-cf-${t}`, `float32-${t}`]);

if (!STORES.every((s) => existsSync(join(dir, `${s}.zarr`)))) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "input.bin"), new Uint8Array(designField(N).buffer));
  execFileSync(process.env.BENCH_PYTHON ?? "python3", [join(root, "bench/tile_stores.py"), dir, String(N)], { stdio: "inherit" });
}

registerCodecs();
const pool = new WorkerPool(POOL);
const storeOf = (name) => {
  const base = join(dir, `${name}.zarr`);
  const files = new Map(filesUnder(base).map((p) => ["/" + relative(base, p).split(sep).join("/"), new Uint8Array(readFileSync(p))]));
  return { get: async (k) => files.get(k), getRange: async () => undefined };
};
const v3 = (s) => zarr.open.v3(zarr.root(s), { kind: "array" });
const contenders = {
  registerCodecs: { open: (s) => v3(s), read: (arr, sel) => zarr.get(arr, sel) },
  wrapped: { open: (s) => v3(withWasmCodecs(s)), read: (arr, sel) => zarr.get(arr, sel) },
  "wrapped, pool": { open: (s) => v3(withWasmCodecs(s, { pool })), read: (arr, sel) => zarr.get(arr, sel) },
  get: { open: (s) => open(s), read: (arr, sel) => get(arr, sel) },
  "get, pool": { open: (s) => open(s), read: (arr, sel) => get(arr, sel, { pool }) },
};
const same = (a, b) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

const results = {};
const shuffled = seededShuffle(0x711e);
for (const name of STORES) {
  const t = Number(name.split("-").at(-1));
  const per = N / t;
  const tiles = Array.from({ length: TILES }, (_, k) => {
    const c = (k * 7) % (per * per);
    const [i, j] = [Math.floor(c / per), c % per];
    return [zarr.slice(i * t, (i + 1) * t), zarr.slice(j * t, (j + 1) * t)];
  });
  const jobs = [];
  let reference;
  for (const [who, { open: opening, read }] of Object.entries(contenders)) {
    const arr = await opening(storeOf(name));
    const first = await read(arr, tiles[0]);
    reference ??= first;
    if (!same(first.data, reference.data)) throw new Error(`${who} on ${name}: values differ from zarr.get's`);
    for (const sel of tiles) await read(arr, sel); // warm-up round
    jobs.push({ who, arr, read, times: [] });
  }
  for (let r = 0; r < ROUNDS; r++) {
    for (const job of shuffled(jobs)) {
      for (const sel of tiles) {
        const t0 = performance.now();
        await job.read(job.arr, sel);
        job.times.push(performance.now() - t0);
      }
    }
  }
  results[name] = Object.fromEntries(jobs.map((j) => [j.who, median(j.times)]));
}
await pool.terminate();

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ n: N, rounds: ROUNDS, tiles: TILES, pool: POOL, median_ms: results }, null, 2));
} else {
  console.log(`one tile (one chunk) at a time, in memory, ${N}^2 zstd stores; median ms a tile over ${ROUNDS} x ${TILES} tiles; ratios: registerCodecs' time / the contender's`);
  for (const [name, r] of Object.entries(results)) {
    const base = r.registerCodecs;
    const cells = Object.entries(r).map(([who, ms]) => `${who} ${ms.toFixed(2)}${who === "registerCodecs" ? "" : ` (${(base / ms).toFixed(2)}x)`}`);
    console.log(`${name.padEnd(14)} ${cells.join("  ")}`);
  }
}
