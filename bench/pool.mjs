// Reads in a worker pool against zarrita and fizarrita, in headless Chromium: bundles
// bench/browser/pool.html with Vite, serves it cross-origin isolated (SharedArrayBuffer
// available) and prints, per case and read, the median wall time, its range, and the main
// thread's busy time (what the page's frames were late by during the read). `--json` prints
// the page's figures as JSON; BENCH_ROUNDS sets the rounds (default 10), BENCH_N the array's
// side (default 4096), BENCH_POOL_SIZES the pool sizes (default 1,2,4), BENCH_CASES the cases
// (their ids, comma-separated; default all): uint8, uint8-gzip, float64-gzip, float64-zstd,
// uint8-zstd, zfp, v2-blosc, sharded-zstd, sharded-zstd-views. After each case, its targets: pooled
// get faster than fizarrita (same mode, same pool size), pooled get >= 1.5x zarr.get with 2
// workers, the main thread busy under 10% of get's one-thread read, no main-thread task over
// 16.7 ms during a pooled read (the longest over rounds), and get on one thread at least as
// fast as zarr.get (float64) or >= 2x (the packed uint8 chains).
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";
import { build } from "vite";

import { serve } from "../scripts/serve.mjs";
import { median } from "./util.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const outDir = join(root, "target/bench-pool");
// fizarrita 1.4.1 passes codec metadata the way zarrita 0.6 reads it (`data_type`, where
// zarrita 0.7's codecs read `dataType`), so with zarrita 0.7 every read fails; it is bundled
// with zarrita 0.6.1 (its own development version), which has no scale_offset or cast_value.
const fizarritaWithItsZarrita = {
  name: "fizarrita-with-its-zarrita",
  enforce: "pre",
  async resolveId(source, importer, options) {
    if (source === "zarrita" && importer?.includes("@fideus-labs")) {
      return this.resolve("zarrita-0.6", importer, { ...options, skipSelf: true });
    }
  },
};
await build({
  root: join(root, "bench/browser"),
  plugins: [fizarritaWithItsZarrita],
  worker: { plugins: () => [fizarritaWithItsZarrita] },
  base: "./",
  logLevel: "error",
  build: { outDir, emptyOutDir: true, rollupOptions: { input: join(root, "bench/browser/pool.html") } },
});
const server = await serve(root);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const page = await browser.newPage();
  const logged = new Set();
  page.on("pageerror", (e) => logged.add(String(e).split("\n")[0]));
  page.on("console", (m) => {
    // (Chromium asks for a favicon, which the server does not have.)
    // (fizarrita's workers log the errors of the reads it cannot do; those reads are reported.)
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource")) logged.add(m.text().split("\n")[0]);
    else if (m.text().startsWith("[bench]")) process.stderr.write(`${m.text()}\n`);
  });
  page.on("crash", () => process.stderr.write("the page crashed\n"));
  const query = new URLSearchParams({
    isolate: "1",
    rounds: process.env.BENCH_ROUNDS ?? "10",
    n: process.env.BENCH_N ?? "4096",
    sizes: process.env.BENCH_POOL_SIZES ?? "1,2,4",
    ...(process.env.BENCH_CASES ? { cases: process.env.BENCH_CASES } : {}),
  });
  // The main thread's busy time: Chromium's trace of top-level tasks, against the page's
  // marks around each read.
  await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing", "__metadata"] });
  await page.goto(`http://127.0.0.1:${server.address().port}/target/bench-pool/pool.html?${query}`);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 30 * 60 * 1000, polling: 1000 });
  const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  if (error) throw new Error(error);
  const trace = JSON.parse((await browser.stopTracing()).toString("utf8"));
  addBusyTimes(result, trace.traceEvents ?? trace);
  if (logged.size) process.stderr.write(`the page logged: ${[...logged].join("; ")}\n`);
  if (process.argv.includes("--json")) {
    result.targets = Object.fromEntries(Object.entries(result.cases).map(([name, reads]) => [name, targets(name, reads, result.sizes)]));
    console.log(JSON.stringify(result, null, 2));
  } else {
    console.log(`${result.n}x${result.n} float64 read whole, ${result.chunk}x${result.chunk} chunks, in-memory store, ` +
      `headless Chromium (cross-origin isolated: ${result.crossOriginIsolated}), ${result.rounds} rounds (medians)`);
    for (const [name, reads] of Object.entries(result.cases)) {
      const info = result.info[name];
      console.log(`${name} [${info.id}]: stored ${(info.stored_bytes / 2 ** 20).toFixed(1)} MiB ` +
        `(${((100 * info.stored_bytes) / info.decoded_bytes).toFixed(1)}% of the float64 output); get's path: ${info.get_path}`);
      const single = reads["get (one thread)"];
      for (const [k, v] of Object.entries(reads)) {
        if (v.failed) {
          console.log(`  ${k.padEnd(40)} fails: ${v.failed}`);
          continue;
        }
        const share = k.startsWith("get") && single?.busy_ms ? ` (${((100 * v.busy_ms) / single.busy_ms).toFixed(1)}% of get's one-thread)` : "";
        console.log(`  ${k.padEnd(40)} ${v.wall_ms.toFixed(1).padStart(7)} ms (${v.wall_min_ms.toFixed(1)}-${v.wall_max_ms.toFixed(1)})` +
          `  main thread busy ${v.busy_ms.toFixed(1)} ms${share}, longest task ${v.longest_task_ms.toFixed(1)} ms` +
          ` (max ${v.longest_task_max_ms.toFixed(1)})${v.identical ? "" : "  VALUES DIFFER"}`);
      }
      for (const line of targets(name, reads, result.sizes)) console.log(`  target: ${line}`);
    }
  }
} finally {
  await browser.close();
  server.close();
}

/**
 * The issue's targets for one case, each as "met"/"MISSED" with its figures. Reads that failed
 * (or were not run) are said to be so.
 */
function targets(name, reads, sizes) {
  const ok = (k) => reads[k] && !reads[k].failed;
  const wall = (k) => `${reads[k].wall_ms.toFixed(1)} ms`;
  const verdict = (yes) => (yes ? "met" : "MISSED");
  const out = [];
  const js = "zarr.get (zarrita JS)";
  const one = "get (one thread)";
  for (const size of sizes) {
    for (const sab of [false, true]) {
      const ours = `get, pool of ${size}${sab ? " + SAB" : ""}`;
      const theirs = `fizarrita getWorker${sab ? " + SAB" : ""}, ${size} workers`;
      if (!ok(ours)) {
        out.push(`${ours}: ${reads[ours]?.failed ? `fails (${reads[ours].failed})` : "not run"}`);
        continue;
      }
      if (ok(theirs)) {
        const x = reads[theirs].wall_ms / reads[ours].wall_ms;
        out.push(`${ours} faster than fizarrita (${wall(ours)} vs ${wall(theirs)}, ${x.toFixed(2)}x): ${verdict(x > 1)}`);
      } else {
        out.push(`${ours} vs fizarrita: fizarrita cannot read this case`);
      }
      if (size === 2 && ok(js)) {
        const x = reads[js].wall_ms / reads[ours].wall_ms;
        out.push(`${ours} >= 1.5x zarr.get (${wall(ours)} vs ${wall(js)}, ${x.toFixed(2)}x): ${verdict(x >= 1.5)}`);
      }
      if (ok(one)) {
        const share = (100 * reads[ours].busy_ms) / reads[one].busy_ms;
        out.push(`${ours} main thread busy < 10% of one-thread get (${reads[ours].busy_ms.toFixed(1)} of ` +
          `${reads[one].busy_ms.toFixed(1)} ms, ${share.toFixed(1)}%): ${verdict(share < 10)}`);
      }
      const longest = reads[ours].longest_task_max_ms;
      out.push(`${ours} no main-thread task > 16.7 ms (longest ${reads[ours].longest_task_ms.toFixed(1)} ms median, ` +
        `${longest.toFixed(1)} ms max over rounds): ${verdict(longest <= 16.7)}`);
    }
  }
  if (ok(one) && ok(js)) {
    const packed = name.startsWith("uint8");
    const x = reads[js].wall_ms / reads[one].wall_ms;
    out.push(`get (one thread) ${packed ? ">= 2x" : "at least as fast as"} zarr.get (${wall(one)} vs ${wall(js)}, ` +
      `${x.toFixed(2)}x): ${verdict(x >= (packed ? 2 : 1))}`);
  } else {
    out.push(`get (one thread) vs zarr.get: ${reads[one]?.failed ? `get fails (${reads[one].failed})` : "not compared"}`);
  }
  return out;
}

/**
 * Adds to each read of `result` the median over rounds of the main thread's busy time (the
 * part of its top-level tasks that falls between the read's marks) and of its longest task.
 */
function addBusyTimes(result, events) {
  const marks = events.filter((e) => e.cat === "blink.user_timing" && /^bench-(start|end)\t/.test(e.name));
  if (!marks.length) throw new Error("no read marks in the trace");
  const { pid, tid } = marks[0];
  const tasks = events
    .filter((e) => e.pid === pid && e.tid === tid && e.ph === "X" && e.name === "ThreadControllerImpl::RunTask")
    .map((e) => [e.ts, e.ts + (e.dur ?? 0)]);
  const windows = new Map();
  for (const m of marks) {
    const [kind, ...label] = m.name.split("\t");
    const w = windows.get(label.join("\t")) ?? {};
    w[kind === "bench-start" ? "start" : "end"] = m.ts;
    windows.set(label.join("\t"), w);
  }
  const per = new Map();
  for (const [label, { start, end }] of windows) {
    let busy = 0;
    let longest = 0;
    for (const [a, b] of tasks) {
      const overlap = Math.min(b, end) - Math.max(a, start);
      if (overlap > 0) {
        busy += overlap;
        longest = Math.max(longest, overlap);
      }
    }
    const [name, read] = label.split("\t");
    const key = `${name}\t${read}`;
    if (!per.has(key)) per.set(key, { busy: [], longest: [] });
    per.get(key).busy.push(busy / 1000);
    per.get(key).longest.push(longest / 1000);
  }
  for (const [key, v] of per) {
    const [name, read] = key.split("\t");
    Object.assign(result.cases[name][read], {
      busy_ms: median(v.busy),
      longest_task_ms: median(v.longest),
      longest_task_max_ms: Math.max(...v.longest),
    });
  }
}
