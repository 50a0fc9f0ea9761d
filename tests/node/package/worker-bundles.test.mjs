// The package in an app's own worker, as Vite and webpack 5 bundle it with their default worker
// formats (Vite: IIFE, which inlines every dynamic import; webpack: a classic script loading
// its chunks with importScripts): the app, installed from the packed tarball, starts its worker
// with `new Worker(new URL("./own-worker.js", import.meta.url), { type: "module" })`; the worker
// reads zarr-python's stores over HTTP with the package's `get`, on its own thread and with a
// pool of workers started from it, and must give zarr-python's values bit for bit, loading the
// wasm modules from their .wasm files. No file of either build may hold a base64 copy of a
// wasm module (only "zarr-wasm-codecs/inline" refers to them), and the worker's bundle may
// weigh no more than a worker with zarrita alone (own-worker-zarrita.js) plus the package's
// JavaScript.
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { build } from "vite";
import webpack from "webpack";

import { appInBrowser } from "../shared/chromium.mjs";
import { filesUnder } from "../shared/files.mjs";
import { inlineCopiesIn } from "./inline-copies.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const expected = JSON.parse(readFileSync(join(root, "tests/node/fixtures/expected.json"), "utf8"));
// Plain, sharded (crc32c index), zstd-compressed, and big-endian int32 towards-zero.
const STORES = ["design_2d", "design_2d_sharded", "design_2d_zstd", "float64_int32_towards_zero"];
// The app the bundlers build (its own directories: other test files build theirs in parallel).
const app = join(root, "target/worker-app");
const PAGE_FILES = ["own-worker.html", "own-worker-page.js", "own-worker.js", "own-worker-zarrita.js", "hex.js"];

// The package worker's bundle, gzipped, may exceed the zarrita-only worker's by this much.
// Measured when the bound was set: 28 KB (Vite, one script) and 35 KB (webpack, whose chunks
// are gzipped one by one), the package's minified JavaScript (its pool worker's script, a
// string inside it, included); 2026-11-29, with merged range reads, the wrapped store's paths,
// caches keyed by store and checked against validators, and open's choice of module: 51.4 KB
// (Vite) and 65.6 KB (webpack), past the first bound of 64 KiB. The bound is there to catch a
// base64 copy of a wasm module, the smallest of which (the core module's) is 109 KB gzipped on
// its own: at 80 KiB a worker within it still carries none of them.
const MAX_EXTRA_GZIPPED = 80 * 1024;

let browser;
let base;

let env;

before(async () => {
  env = await appInBrowser(join(root, "target/worker-pack"), app, PAGE_FILES);
  ({ browser, base } = env);
});

after(() => env?.close());

/**
 * Opens `url`, waits for the page's `__result` or `__error` and closes it: both, the paths of
 * the responses it saw (its workers' included) with their statuses, the script URLs of the
 * workers started (by the page, and by its workers), and its console errors (its workers'
 * included) other than Chromium's line for each 404.
 */
async function openPage(url) {
  const page = await browser.newPage();
  const responses = [];
  const workers = [];
  const consoleErrors = [];
  page.on("response", (r) => responses.push({ path: new URL(r.url()).pathname, status: r.status() }));
  page.on("worker", (w) => workers.push(w.url()));
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  // Chromium logs every 404 as a console error; which URLs those were is checked separately.
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource: the server responded with a status of 404")) {
      consoleErrors.push(m.text());
    }
  });
  await page.goto(url);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 60000 });
  const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  await page.close();
  return { result, error, responses, workers, consoleErrors };
}

/** The only 404s allowed: chunks zarr-python never wrote (read as the fill value), and the favicon. */
function checkNotFound(responses, names) {
  const allowed = new Set(["/favicon.ico"]);
  for (const name of names) {
    for (const key of expected[name].missing_chunks) allowed.add(`/tests/node/fixtures/stores/${name}.zarr/${key}`);
  }
  for (const { path, status } of responses) if (status === 404) assert.ok(allowed.has(path), `unexpected 404 for ${path}`);
}

/** Bytes and gzipped bytes (level 9, as a server would send them) of `files`, summed. */
function sizeOf(files) {
  let bytes = 0;
  let gzipped = 0;
  for (const f of files) {
    const b = readFileSync(f);
    bytes += b.length;
    gzipped += gzipSync(b, { level: 9 }).length;
  }
  return { bytes, gzipped };
}

/** The emitted file whose bytes are the installed package's core .wasm file (bundlers rename it). */
function coreWasmIn(dir) {
  const core = readFileSync(join(app, "node_modules/zarr-wasm-codecs/dist/wasm/zarr_wasm_codecs.wasm"));
  const found = filesUnder(dir).filter((f) => f.endsWith(".wasm") && readFileSync(f).equals(core));
  assert.equal(found.length, 1, `the core module's .wasm file among ${filesUnder(dir)}`);
  return `/${found[0].slice(root.length).replaceAll("\\", "/")}`;
}

test("the base64 copies are recognised: all nine in the installed companion, none in the package's, zarrita's or numcodecs' files", () => {
  const installed = join(app, "node_modules");
  assert.deepEqual(inlineCopiesIn(join(installed, "zarr-wasm-codecs")), []);
  assert.deepEqual(inlineCopiesIn(join(installed, "zarr-wasm-codecs-inline/wasm")), ["archive", "archive_encode", "compress", "core", "encode", "grib", "packing", "pcodec", "zfp", "zstd"]);
  // (numcodecs' zstd, blosc and lz4 modules are base64 inside its JavaScript too.)
  assert.deepEqual(inlineCopiesIn(join(installed, "zarrita")), []);
  assert.deepEqual(inlineCopiesIn(join(installed, "numcodecs")), []);
});

/**
 * The app's two workers, as a bundler built them into `dir` (`workers`: each worker's files,
 * everything it may load) and served at `page`: the package worker's reads equal
 * zarr-python's, on one thread and pooled, from the .wasm files; the sizes of both bundles
 * (reported), and no base64 copy anywhere in the build.
 */
async function checkBuild(t, name, dir, page, workers) {
  assert.deepEqual(inlineCopiesIn(dir), [], `${name}: base64 copies emitted`);

  const own = await openPage(`${page}?stores=${STORES}`);
  assert.equal(own.error, undefined, `${name}: the worker failed`);
  for (const store of STORES) {
    assert.deepEqual(own.result[store].shape, expected[store].shape, store);
    assert.equal(own.result[store].one, expected[store].read_hex, `${store}, one thread`);
    assert.equal(own.result[store].pooled, expected[store].read_hex, `${store}, pooled`);
  }
  assert.equal(own.result.design_2d.type, "Float64Array");
  // The page started the package worker's bundle, which started the pool's two workers from
  // the package's blob: URL; the page saw the worker's requests: the missing chunk (a 404),
  // and the core module as its .wasm file, never a copy.
  const [started, ...nested] = own.workers;
  assert.equal(new URL(started).pathname, `/${workers.package[0].slice(root.length)}`, `${name}: the worker's script`);
  assert.deepEqual(nested.map((u) => u.split(":")[0]), ["blob", "blob"], `${name}: the pool's workers`);
  checkNotFound(own.responses, STORES);
  assert.ok(own.responses.some((r) => r.path === "/tests/node/fixtures/stores/design_2d.zarr/c/2/3" && r.status === 404),
    `${name}: the worker's requests seen`);
  const core = coreWasmIn(dir);
  assert.deepEqual(own.responses.filter((r) => r.path === core).map((r) => r.status), [200], `${name}: ${core} fetched`);
  assert.ok(!own.responses.some((r) => /_inline/.test(r.path)), `${name}: a copy fetched`);
  assert.deepEqual(own.consoleErrors, [], `${name}: console errors`);

  // The worker with zarrita alone reads them too (with zarrita's own scale_offset and cast_value).
  const alone = await openPage(`${page}?worker=zarrita&stores=${STORES}`);
  assert.equal(alone.error, undefined, `${name}: the zarrita worker failed`);
  assert.deepEqual(alone.workers.map((u) => new URL(u).pathname), [`/${workers.zarrita[0].slice(root.length)}`], `${name}: the zarrita worker's script`);
  for (const store of STORES) {
    assert.equal(alone.result[store].error, undefined, `${store} by zarrita alone`);
    assert.equal(alone.result[store].one, expected[store].read_hex, `${store} by zarrita alone`);
  }
  checkNotFound(alone.responses, STORES);
  assert.deepEqual(alone.consoleErrors, [], `${name}: console errors, zarrita alone`);

  const withPackage = sizeOf(workers.package);
  const zarritaAlone = sizeOf(workers.zarrita);
  const extra = { bytes: withPackage.bytes - zarritaAlone.bytes, gzipped: withPackage.gzipped - zarritaAlone.gzipped };
  const files = (list) => list.map((f) => f.slice(dir.length + 1)).join(" + ");
  t.diagnostic(`${name}: the package worker (${files(workers.package)}): ${withPackage.bytes} bytes, ${withPackage.gzipped} gzipped`);
  t.diagnostic(`${name}: the zarrita-only worker (${files(workers.zarrita)}): ${zarritaAlone.bytes} bytes, ${zarritaAlone.gzipped} gzipped`);
  t.diagnostic(`${name}: the package adds ${extra.bytes} bytes, ${extra.gzipped} gzipped`);
  assert.ok(extra.gzipped < MAX_EXTRA_GZIPPED, `${name}: the package adds ${extra.gzipped} bytes gzipped to the worker`);
}

test("an app's own worker bundled by Vite (its default IIFE worker format): reads equal zarr-python's, no base64 copy", async (t) => {
  const outDir = join(root, "target/worker-vite");
  const output = await build({
    root: app,
    base: "./",
    logLevel: "warn",
    // (No `worker` options: its default format, "iife".)
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(app, "own-worker.html") } },
  });
  // Vite builds each worker on its own and emits it as an asset of the page's build: one
  // script each, the worker's dynamic imports inlined.
  const scripts = [output].flat().flatMap((o) => o.output)
    .filter((o) => o.type === "asset" && o.fileName.endsWith(".js")).map((o) => join(outDir, o.fileName));
  const zarritaOnly = scripts.filter((f) => /\/own-worker-zarrita-[\w-]+\.js$/.test(f));
  const withPackage = scripts.filter((f) => !zarritaOnly.includes(f));
  assert.equal(zarritaOnly.length, 1, `${scripts}`);
  assert.equal(withPackage.length, 1, `${scripts}`);
  await checkBuild(t, "Vite", outDir, `${base}/target/worker-vite/own-worker.html`, { package: withPackage, zarrita: zarritaOnly });
});

/**
 * Each worker's files in a webpack build (`compilation`): the chunks of the entrypoint that
 * `new Worker` on the page script's line `line` starts (its entry chunk first, then those it
 * shares with the other worker) and of every chunk group it loads on demand. (Chunk groups,
 * not chunks: a chunk both workers share lists the on-demand chunks of both as its children.)
 */
function webpackWorkerFiles(compilation, dir, line) {
  const starts = compilation.chunkGroups.filter((g) =>
    g.origins.some((o) => o.module?.resource?.endsWith("own-worker-page.js") && o.loc?.start?.line === line));
  assert.equal(starts.length, 1, `the worker started on line ${line}`);
  const [start] = starts;
  const chunks = new Set([start.getEntrypointChunk()]);
  const groups = new Set();
  const visit = (g) => {
    if (groups.has(g)) return;
    groups.add(g);
    for (const c of g.chunks) chunks.add(c);
    for (const child of g.getChildren()) visit(child);
  };
  visit(start);
  return [...chunks].flatMap((c) => [...c.files]).filter((f) => f.endsWith(".js")).map((f) => join(dir, f));
}

test("an app's own worker bundled by webpack 5 (production defaults): reads equal zarr-python's, no base64 copy", async (t) => {
  const dir = join(root, "target/worker-webpack");
  rmSync(dir, { recursive: true, force: true });
  const entry = join(app, "own-worker-page.js");
  // An app's defaults: built from its own directory, no worker or chunk configuration.
  const config = {
    mode: "production", context: app, entry, target: "web", devtool: false,
    output: { path: dir, filename: "page.js" }, performance: { hints: false },
  };
  const { compilation, warnings } = await new Promise((resolve, reject) => {
    webpack(config, (error, stats) => {
      if (error) return reject(error);
      const info = stats.toJson({ all: false, errors: true, warnings: true });
      if (stats.hasErrors()) return reject(new Error(info.errors.map((e) => e.message).join("\n")));
      resolve({ compilation: stats.compilation, warnings: info.warnings.map((w) => w.message) });
    });
  });
  assert.deepEqual(warnings, [], "webpack warns");
  writeFileSync(join(dir, "index.html"), '<!doctype html><meta charset="utf-8"><script src="./page.js"></script>\n');
  // The line of each worker's `new Worker` in the page's script.
  const lines = readFileSync(entry, "utf8").split("\n");
  const line = (file) => lines.findIndex((l) => l.includes(`new URL("./${file}"`)) + 1;
  await checkBuild(t, "webpack 5", dir, `${base}/target/worker-webpack/index.html`, {
    package: webpackWorkerFiles(compilation, dir, line("own-worker.js")),
    zarrita: webpackWorkerFiles(compilation, dir, line("own-worker-zarrita.js")),
  });
});
