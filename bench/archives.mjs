// netCDF4 archives read in place over a slow link: netCDF4-python's OISST-shaped files (720 x
// 1440, `sst` int16 in 360 x 720 chunks and `anom` int16 in 90 x 90 chunks, zlib 4 + shuffle,
// CF packing) and a time series of BENCH_FILES of them (default 12), with their reference sets
// by kerchunk (SingleHdf5ToZarr + MultiZarrToZarr) and by VirtualiZarr, written by
// bench/archive_files.py (made on first run with BENCH_PYTHON, default python3, which needs
// netCDF4, kerchunk and virtualizarr: see its first lines). Served by bench/link.mjs's server: a
// round trip of BENCH_RTT ms (default 40) on every answer and one shared link of BENCH_MBPS
// Mbit/s (default "20,200"), over HTTP/1.1 and, for Chromium, HTTP/2 with TLS. BENCH_WHERE:
// node, chromium or both (the default).
//
// Each read fetches the reference set and opens the variable afresh, then reads it whole, by
// each contender (bench/archives-bench.js): the package's `get` (one thread, a pool, the
// workers fetching), `getDecoded`, zarr.get over `withWasmCodecs` (one thread, a pool) and over
// the package's `referenceStore`, and zarrita's zarr.get over `@zarrita/storage`'s ReferenceStore
// (after `registerCodecs()`). Reported: the median of BENCH_ROUNDS reads (default 3), the
// requests and bytes the server answered, and the link's limit: the fewest bytes any contender
// moved / bandwidth + 2 round trips (the reference set, then the data). `--json` prints the
// figures as JSON at the end.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runArchivesBench } from "./archives-bench.js";
import { inChromium, inNode, rowReporter } from "./link.mjs";

const RTT = Number(process.env.BENCH_RTT ?? 40);
const LINKS = (process.env.BENCH_MBPS ?? "20,200").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POOL = Number(process.env.BENCH_POOL ?? 2);
const FILES = Number(process.env.BENCH_FILES ?? 12);
const WHERE = process.env.BENCH_WHERE ?? "both";
const root = fileURLToPath(new URL("../", import.meta.url));
const dir = join(root, `target/bench-archives-${FILES}`);

if (!existsSync(join(dir, "series-kerchunk.json"))) {
  mkdirSync(dir, { recursive: true });
  execFileSync(process.env.BENCH_PYTHON ?? "python3", [join(root, "bench/archive_files.py"), dir, String(FILES)], { stdio: "inherit" });
}

const folder = (origin) => `${origin}/target/bench-archives-${FILES}/`;
const SETS = (origin) => [
  { name: "2 files, kerchunk", url: `${folder(origin)}pair-kerchunk.json`, variable: "anom" },
  { name: "2 files, VirtualiZarr", url: `${folder(origin)}pair-virtualizarr.json`, variable: "anom" },
  { name: `${FILES} files, kerchunk`, url: `${folder(origin)}series-kerchunk.json`, variable: "anom" },
  { name: `${FILES} files, kerchunk`, url: `${folder(origin)}series-kerchunk.json`, variable: "sst" },
];

const results = [];
const report = rowReporter({ rtt: RTT, results, print });

if (WHERE !== "chromium") {
  await inNode({ root, dir, rtt: RTT, links: LINKS, report, run: (origin, onRow) => runArchivesBench({ sets: SETS(origin), files: folder(origin), stats: `${origin}/__stats`, rounds: ROUNDS, poolSize: POOL, onRow }) });
}
if (WHERE !== "node") {
  await inChromium({
    root, dir, rtt: RTT, links: LINKS, page: "archives.html", outDir: join(root, "target/bench-archives-page"), report,
    query: (origin) => ({ sets: JSON.stringify(SETS(origin)), files: folder(origin), rounds: String(ROUNDS), pool: String(POOL) }),
  });
}
if (process.argv.includes("--json")) console.log(JSON.stringify({ files: FILES, rtt_ms: RTT, rounds: ROUNDS, pool: POOL, results }, null, 2));
process.exit(0);

function print(row) {
  const base = row.contenders["zarrita+ReferenceStore"].median_ms;
  console.log(`\n${row.where}: ${row.set}, ${row.variable} whole, ${row.mbps} Mbit/s, ${RTT} ms a round trip: link limit ${row.limit_ms.toFixed(0)} ms`);
  for (const [who, c] of Object.entries(row.contenders)) {
    if (c.error) {
      console.log(`  ${who.padEnd(24)} failed: ${c.error}`);
      continue;
    }
    const ratio = who === "zarrita+ReferenceStore" || !base ? "" : `  ${(base / c.median_ms).toFixed(2)}x zarrita+ReferenceStore`;
    const note = c.values_differing ? "  (values differ from get's)" : "";
    console.log(`  ${who.padEnd(24)} ${c.median_ms.toFixed(0).padStart(6)} ms  ${(c.median_ms / row.limit_ms).toFixed(2)}x limit  ${String(c.requests).padStart(5)} requests  ${(c.bytes / 1e6).toFixed(2)} MB${ratio}${note}`);
  }
}
