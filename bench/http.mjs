// Reads over HTTP with a fixed delay on every request, as a distant server or CDN adds: the
// stores bench/http_stores.py writes (zarr-python 3.4.2; made on first run from the design
// card's field, with BENCH_PYTHON, default python3, which needs zarr 3.4.2), served from
// loopback with BENCH_DELAY ms (default 20) before each answer, read whole by zarr.get and by
// the package's get (one thread, and a pool of BENCH_POOL workers, default 2): in Node over
// HTTP/1.1 (its fetch opens as many connections as there are requests), and in headless
// Chromium over HTTP/1.1 (six connections to the host) and over HTTP/2 with TLS (a self-signed
// certificate made with openssl; one connection, requests multiplexed), as CDNs serve
// (BENCH_WHERE: node, chromium or both, the default). BENCH_ROUNDS rounds
// (default 10, medians); BENCH_CONCURRENCY adds one-thread reads at those concurrencies
// (comma-separated, e.g. 6,16,Infinity). `--json` prints the figures as JSON.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";
import { build } from "vite";

import { serve } from "../scripts/serve.mjs";
import { runHttpBench, STORES } from "./http-bench.js";
import { designField } from "./util.mjs";

const root = fileURLToPath(new URL("../", import.meta.url));
const N = 2048;
const dir = join(root, "target/bench-http");
const delay = Number(process.env.BENCH_DELAY ?? 20);
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const poolSize = Number(process.env.BENCH_POOL ?? 2);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "").split(",").filter(Boolean).map(Number);
const where = process.env.BENCH_WHERE ?? "both";

if (!STORES.every((s) => existsSync(join(dir, `${s}.zarr`)))) {
  mkdirSync(dir, { recursive: true });
  const field = designField(N);
  writeFileSync(join(dir, "input.bin"), new Uint8Array(field.buffer));
  execFileSync(process.env.BENCH_PYTHON ?? "python3", [join(root, "bench/http_stores.py"), dir, String(N)], { stdio: "inherit" });
}

const results = {};
const server = await serve(root, 0, { delay });
try {
  const origin = `http://127.0.0.1:${server.address().port}`;
  if (where !== "chromium") {
    results["node, HTTP/1.1"] = await runHttpBench({ base: `${origin}/target/bench-http`, rounds, concurrencies, poolSize });
  }
  if (where !== "node") results["chromium, HTTP/1.1"] = await inChromium(origin);
} finally {
  server.close();
}
if (where !== "node") {
  const secure = await serve(root, 0, { delay, tls: certificate() });
  try {
    results["chromium, HTTP/2"] = await inChromium(`https://127.0.0.1:${secure.address().port}`);
  } finally {
    secure.close();
  }
}

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ n: N, delay_ms: delay, rounds, pool: poolSize, results }, null, 2));
} else {
  console.log(`${N}x${N} float64 read whole over HTTP (loopback, ${delay} ms before each answer), ${rounds} rounds, medians (min-max)`);
  for (const [env, byStore] of Object.entries(results)) {
    console.log(`\n${env}`);
    for (const [store, reads] of Object.entries(byStore)) {
      const base = reads["zarr.get"].median_ms;
      console.log(`  ${store}`);
      for (const [reader, r] of Object.entries(reads)) {
        const ratio = reader === "zarr.get" ? "" : `  ${(base / r.median_ms).toFixed(2)}x zarr.get`;
        console.log(`    ${reader.padEnd(24)} ${r.median_ms.toFixed(1).padStart(7)} ms (${r.min_ms.toFixed(1)}-${r.max_ms.toFixed(1)})${ratio}`);
      }
    }
  }
}

/** A self-signed certificate for 127.0.0.1 (made once, by openssl). */
function certificate() {
  const [key, cert] = [join(dir, "tls-key.pem"), join(dir, "tls-cert.pem")];
  if (!existsSync(cert)) {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
      "-days", "365", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  }
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

/**
 * The same reads in a page bundled by Vite, served from `origin`, cross-origin isolated (the
 * pool shares its output).
 */
async function inChromium(origin) {
  const outDir = join(root, "target/bench-http-page");
  await build({
    root: join(root, "bench/browser"), base: "./", logLevel: "error",
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(root, "bench/browser/http.html") } },
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--ignore-certificate-errors"],
  });
  try {
    const page = await browser.newPage({ ignoreHTTPSErrors: true });
    page.on("pageerror", (e) => process.stderr.write(`page error: ${e}\n`));
    const query = new URLSearchParams({
      isolate: "1", rounds: String(rounds), pool: String(poolSize), concurrency: concurrencies.join(","),
      ...(process.env.BENCH_STORES ? { stores: process.env.BENCH_STORES } : {}),
      ...(process.env.BENCH_NO_STORE ? { nostore: "1" } : {}),
    });
    await page.goto(`${origin}/target/bench-http-page/http.html?${query}`);
    await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 30 * 60 * 1000, polling: 1000 });
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    if (error) throw new Error(error);
    return result;
  } finally {
    await browser.close();
  }
}
