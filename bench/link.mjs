// The shaped link the network benchmarks read through (bench/network.mjs, bench/archives.mjs): a
// loopback server of the repository's files whose answers for the benchmark's own files wait one
// round trip and share one link of a given bandwidth (a slice at a time, round robin over the
// answers in flight), over HTTP/1.1 or, with a certificate, HTTP/2 with TLS; and that certificate.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { createSecureServer } from "node:http2";
import { join, normalize, sep } from "node:path";
import { chromium } from "playwright-core";
import { build } from "vite";

/**
 * The server: files under `root`; those under `dir` held `rtt` ms and sent through the shared
 * link (`link.bytesPerMs`), counted in /__stats (requests, bytes, and with `log` each request's
 * path and range); the rest (the page) at once.
 */
export function linkServer({ root, dir, rtt, tls, log = false }) {
  const link = { bytesPerMs: 0 };
  const stats = { requests: 0, bytes: 0, ...(log ? { log: [] } : {}) };
  const sending = []; // answers in flight: { res, body, at }
  const SLICE = 16 * 1024;
  let budget = 0;
  let last = performance.now();
  let timer;
  const pump = () => {
    timer = undefined;
    const now = performance.now();
    // (At most 2 ms of the link's bytes at once: an idle link does not save up.)
    budget = Math.min(budget + (now - last) * link.bytesPerMs, Math.max(2 * link.bytesPerMs, SLICE));
    last = now;
    while (sending.length && budget >= SLICE / 4) {
      const s = sending.shift();
      if (s.res.destroyed) continue;
      const n = Math.min(SLICE, s.body.length - s.at, Math.floor(budget));
      s.res.write(s.body.subarray(s.at, s.at + n));
      s.at += n;
      budget -= n;
      if (s.at < s.body.length) sending.push(s);
      else s.res.end();
    }
    if (sending.length) timer = setTimeout(pump, 1);
  };
  const answer = (req, res, file, slow) => {
    const bytes = readFileSync(file);
    const headers = { "cache-control": "no-store", "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
    if (file.endsWith(".html")) headers["content-type"] = "text/html";
    if (file.endsWith(".js")) headers["content-type"] = "text/javascript";
    if (file.endsWith(".wasm")) headers["content-type"] = "application/wasm";
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    let [status, body] = [200, bytes];
    if (m) {
      const [start, end] = m[1] === "" ? [Math.max(0, bytes.length - Number(m[2])), bytes.length - 1] : [Number(m[1]), Math.min(Number(m[2]), bytes.length - 1)];
      [status, body] = [206, bytes.subarray(start, end + 1)];
      headers["content-range"] = `bytes ${start}-${end}/${bytes.length}`;
    }
    headers["content-length"] = req.method === "HEAD" ? bytes.length : body.length;
    res.writeHead(status, headers);
    if (req.method === "HEAD" || !body.length) return void res.end();
    if (!slow) return void res.end(body);
    stats.bytes += body.length;
    sending.push({ res, body, at: 0 });
    if (!timer) {
      last = performance.now();
      timer = setTimeout(pump, 0);
    }
  };
  const handle = (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path === "/__stats") return void res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(stats));
    const file = join(root, path);
    const slow = file.startsWith(dir + sep);
    if (slow) {
      stats.requests++;
      stats.log?.push(`${req.method} ${path} ${req.headers.range ?? ""}`.trim());
    }
    const go = () => {
      if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) return void res.writeHead(404).end();
      answer(req, res, file, slow);
    };
    if (slow) setTimeout(go, rtt);
    else go();
  };
  const server = tls ? createSecureServer({ ...tls, allowHTTP1: true }, handle) : createServer(handle);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, link, origin: `${tls ? "https" : "http"}://127.0.0.1:${server.address().port}` })));
}

/** A self-signed certificate for 127.0.0.1 (made once, by openssl, into `dir`). */
export function certificate(dir) {
  const [key, cert] = [join(dir, "tls-key.pem"), join(dir, "tls-cert.pem")];
  if (!existsSync(cert)) {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
      "-days", "365", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  }
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

/**
 * A benchmark's page (bench/browser/`page`, built by Vite into `outDir`) in headless Chromium
 * over the link, HTTP/1.1 then HTTP/2 with TLS, at each of `links` Mbit/s: the page is opened
 * with `query(origin)` in its URL and reports each row through `window.__row` (to `report(where,
 * mbps)`), then sets `window.__done` (or `window.__error`).
 */
export async function inChromium({ root, dir, rtt, links, page: html, outDir, query, report }) {
  await build({
    root: join(root, "bench/browser"), base: "./", logLevel: "error",
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(root, "bench/browser", html) } },
  });
  const at = outDir.slice(root.length).split(sep).join("/").replace(/^\/?/, "/");
  for (const [name, tls] of [["chromium, HTTP/1.1", undefined], ["chromium, HTTP/2", certificate(dir)]]) {
    const site = await linkServer({ root, dir, rtt, tls });
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--ignore-certificate-errors"],
    });
    try {
      for (const mbps of links) {
        site.link.bytesPerMs = (mbps * 1e6) / 8 / 1000;
        const page = await browser.newPage({ ignoreHTTPSErrors: true });
        page.on("pageerror", (e) => process.stderr.write(`page error: ${e}\n`));
        await page.exposeFunction("__row", report(name, mbps));
        await page.goto(`${site.origin}${at}/${html}?${new URLSearchParams(query(site.origin))}`);
        await page.waitForFunction(() => window.__done || window.__error, null, { timeout: 60 * 60 * 1000, polling: 1000 });
        const error = await page.evaluate(() => window.__error);
        if (error) throw new Error(error);
        await page.close();
      }
    } finally {
      await browser.close();
      site.server.close();
    }
  }
}

/**
 * A benchmark's rows as they are reported: each with where and at what bandwidth it was read,
 * the round trip, and the link's limit (the fewest bytes a contender that read moved, over the
 * bandwidth, plus two round trips), kept in `results` and printed with `print` (not with
 * `--json`). Returns `report(where, mbps)`, the function a row is given to.
 */
export function rowReporter({ rtt, results, print }) {
  return (where, mbps) => (row) => {
    const fewest = Math.min(...Object.values(row.contenders).filter((c) => !c.error).map((c) => c.bytes));
    const full = { where, mbps, rtt_ms: rtt, ...row, limit_ms: fewest / ((mbps * 1e6) / 8 / 1000) + 2 * rtt };
    results.push(full);
    if (!process.argv.includes("--json")) print(full);
  };
}

/** A benchmark's reads in Node over the link (HTTP/1.1), at each of `links` Mbit/s: `run(origin, onRow)` each time. */
export async function inNode({ root, dir, rtt, links, run, report }) {
  const site = await linkServer({ root, dir, rtt });
  try {
    for (const mbps of links) {
      site.link.bytesPerMs = (mbps * 1e6) / 8 / 1000;
      await run(site.origin, report("node, HTTP/1.1", mbps));
    }
  } finally {
    site.server.close();
  }
}

