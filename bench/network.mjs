// Reads over a slow link: a loopback server that holds every answer one round trip (BENCH_RTT
// ms, default 40) and sends every body through one shared link of BENCH_MBPS Mbit/s
// (comma-separated, default "20,200"; a slice at a time, round robin over the answers in
// flight), over HTTP/1.1 and, for Chromium, HTTP/2 with TLS (a self-signed certificate made with
// openssl). The stores bench/network_stores.py writes (zarr-python 3.4.2; made on first run with
// BENCH_PYTHON, default python3): the design card's field (BENCH_N^2, default 2048) as float32 +
// zstd, packed uint8 (scale_offset + cast_value + zstd), int16 CF + zstd and numcodecs.zfpy,
// each in 256^2 chunks and sharded (1024^2 shards of 128^2 inner chunks). Each read opens the
// array afresh (a new FetchStore: nothing cached) and reads the 1024^2 first view (the top-left
// corner) or the whole field. BENCH_WHERE: node, chromium or both (the default).
//
// Contenders (bench/network-bench.js), BENCH_POOL workers (default 2) where pooled:
// - "get": the package's open and get; "get, pool+workerFetch": get with { pool, workerFetch };
// - "wrapped": zarr.get over withWasmCodecs(store); "wrapped, pool": with { pool };
// - "zarrita+coalescing": zarr.get over zarr.withRangeCoalescing(store), after registerCodecs();
// - "zarrita": zarr.get with zarrita's own codecs (not for zfpy, which it cannot read).
// Reported per store, view and link: the median time of BENCH_ROUNDS reads (default 3), the
// requests and bytes the server answered, and the link's limit: the fewest bytes any contender
// moved / bandwidth + 2 round trips (the metadata, then the data: what the layout forces).
// BENCH_STORES (comma-separated kinds, e.g. float32,uint8) and BENCH_VIEWS narrow the run.
// `--json` prints the figures as JSON at the end.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inChromium, inNode, rowReporter } from "./link.mjs";
import { runNetworkBench } from "./network-bench.js";
import { designField } from "./util.mjs";

const N = Number(process.env.BENCH_N ?? 2048);
const RTT = Number(process.env.BENCH_RTT ?? 40);
const LINKS = (process.env.BENCH_MBPS ?? "20,200").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POOL = Number(process.env.BENCH_POOL ?? 2);
const KINDS = (process.env.BENCH_STORES ?? "float32,uint8,int16-cf,zfpy").split(",");
const VIEWS = (process.env.BENCH_VIEWS ?? "first view,whole").split(",");
const WHERE = process.env.BENCH_WHERE ?? "both";
const root = fileURLToPath(new URL("../", import.meta.url));
const dir = join(root, `target/bench-network-${N}`);
const STORES = KINDS.flatMap((k) => [k, `${k}-sharded`]);

if (!STORES.every((s) => existsSync(join(dir, `${s}.zarr`)))) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "input.bin"), new Uint8Array(designField(N).buffer));
  execFileSync(process.env.BENCH_PYTHON ?? "python3", [join(root, "bench/network_stores.py"), dir, String(N)], { stdio: "inherit" });
}

const base = (origin) => `${origin}/target/bench-network-${N}`;
const results = [];
const report = rowReporter({ rtt: RTT, results, print });

if (WHERE !== "chromium") {
  await inNode({ root, dir, rtt: RTT, links: LINKS, report, run: (origin, onRow) => runNetworkBench({ base: base(origin), stats: `${origin}/__stats`, stores: STORES, views: VIEWS, rounds: ROUNDS, poolSize: POOL, onRow }) });
}
if (WHERE !== "node") {
  await inChromium({
    root, dir, rtt: RTT, links: LINKS, page: "network.html", outDir: join(root, "target/bench-network-page"), report,
    query: (origin) => ({ base: base(origin), stores: STORES.join(","), views: VIEWS.join(","), rounds: String(ROUNDS), pool: String(POOL) }),
  });
}
if (process.argv.includes("--json")) console.log(JSON.stringify({ n: N, rtt_ms: RTT, rounds: ROUNDS, pool: POOL, results }, null, 2));
process.exit(0);

function print(row) {
  const baseMs = row.contenders["zarrita+coalescing"].median_ms;
  console.log(`\n${row.where}: ${row.store} ${row.view}, ${row.mbps} Mbit/s, ${RTT} ms a round trip: link limit ${row.limit_ms.toFixed(0)} ms`);
  for (const [who, c] of Object.entries(row.contenders)) {
    const ratio = who === "zarrita+coalescing" ? "" : `  ${(baseMs / c.median_ms).toFixed(2)}x zarrita+coalescing`;
    const note = c.values_differing ? `  (${c.values_differing} values differ from get's)` : "";
    console.log(`  ${who.padEnd(22)} ${c.median_ms.toFixed(0).padStart(6)} ms  ${(c.median_ms / row.limit_ms).toFixed(2)}x limit  ${String(c.requests).padStart(5)} requests  ${(c.bytes / 1e6).toFixed(2)} MB${ratio}${note}`);
  }
}
