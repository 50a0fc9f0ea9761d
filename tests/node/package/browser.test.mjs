// The npm package in headless Chromium: loaded with no bundler (an import map over the package's
// own files), and installed from its packed tarball into an app that Vite, esbuild and webpack 5
// bundle; each reads zarr-python's stores over HTTP through zarrita's FetchStore, on one thread
// and with a worker pool, and must give zarr-python's values bit for bit, and writes them as
// zarr-python wrote them.
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import * as esbuild from "esbuild";
import { build } from "vite";
import webpack from "webpack";

import { appInBrowser } from "../shared/chromium.mjs";
import { filesUnder } from "../shared/files.mjs";
import { inlineCopiesIn } from "./inline-copies.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const expected = JSON.parse(readFileSync(join(root, "tests/node/fixtures/expected.json"), "utf8"));
const STORES = ["design_2d", "design_2d_sharded", "float64_int32_towards_zero", "int64_big"];
// Written in the page (zarrita writes no shards).
const WRITTEN = ["design_2d", "float64_int32_towards_zero", "int64_big", "int16_clamp", "float32_nearest_away_int8"];
// The app the bundlers build: the test pages' scripts, and the packed tarball installed beside
// zarrita, as a user's app has them (the bundlers resolve both from its node_modules).
const app = join(root, "target/bundler-app");

let browser;
let base;
const consoleErrors = [];
const notFound = new Set();

let env;

before(async () => {
  const pages = ["bundle-entry.js", "inline-entry.js", "entry-run.js", "read.js", "hex.js", "zfp-store.js", "vite.html"];
  env = await appInBrowser(join(root, "target/bundler-pack"), app, pages);
  ({ browser, base } = env);
});

after(() => env?.close());

const requested = [];

/**
 * Opens `url` in a new page after `listen(page)` has attached its listeners, waits for the
 * page's `__result` or `__error` and closes it; both.
 */
async function openPage(url, listen, timeout) {
  const page = await browser.newPage();
  listen(page);
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout });
  const outcome = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  await page.close();
  return outcome;
}

/** What a page read (`openPage`); an `__error` fails the test. */
async function runPage(url, listen, timeout) {
  const { result, error } = await openPage(url, listen, timeout);
  assert.equal(error, undefined);
  return result;
}

function readInPage(url) {
  return runPage(url, (page) => {
    page.on("request", (r) => requested.push(new URL(r.url()).pathname));
    page.on("response", (r) => r.status() === 404 && notFound.add(new URL(r.url()).pathname));
    // Chromium logs every 404 as a console error; which URLs those were is checked separately.
    page.on("console", (m) => {
      if (m.type() === "error" && !m.text().startsWith("Failed to load resource: the server responded with a status of 404")) {
        consoleErrors.push(m.text());
      }
    });
  }, 30000);
}

/** The error a page reports (`__error`: each error's code and message, then its cause's), which must fail. */
async function errorInPage(url) {
  const { result, error } = await openPage(url, () => {}, 30000);
  assert.equal(result, undefined, "the page should have failed");
  return error;
}

function checkAgainstReference(result) {
  for (const name of STORES) {
    assert.deepEqual(result[name].shape, expected[name].shape, name);
    assert.equal(result[name].hex, expected[name].read_hex, name);
  }
  // The only 404s: chunks zarr-python never wrote (read as the fill value), and the favicon.
  const allowed = new Set(["/favicon.ico"]);
  for (const name of STORES) {
    for (const key of expected[name].missing_chunks) allowed.add(`/tests/node/fixtures/stores/${name}.zarr/${key}`);
  }
  for (const path of notFound) assert.ok(allowed.has(path), `unexpected 404 for ${path}`);
  assert.ok(notFound.has("/tests/node/fixtures/stores/design_2d.zarr/c/2/3"), "the missing chunk was asked for");
  notFound.clear();
}

/** What a write page wrote: every chunk zarr-python wrote, byte for byte, by set and zarr.set. */
function checkWrites(result) {
  for (const name of WRITTEN) {
    for (const how of ["set", "zarr.set"]) {
      const chunks = result[`${name} ${how}`];
      for (const key of expected[name].chunk_keys) {
        const file = readFileSync(join(root, "tests/node/fixtures/stores", `${name}.zarr`, key)).toString("hex");
        assert.equal(chunks[key], file, `${name} ${how} ${key}`);
      }
    }
  }
}

/** The bundle was built from the installed tarball: no module from the repository's dist/ or js/. */
function checkFromTarball(modules) {
  const norm = modules.map((m) => m.replaceAll("\\", "/"));
  const installed = norm.filter((m) => m.includes("target/bundler-app/node_modules/zarr-wasm-codecs/dist/"));
  assert.ok(installed.some((m) => m.endsWith("dist/index.js")), `the installed package's index.js among ${norm.length} modules`);
  const repo = norm.filter((m) => /(^|\/)(dist|js)\//.test(m) && !m.includes("node_modules/"));
  assert.deepEqual(repo, [], "modules from the repository itself");
}

/** What a browser downloads of a bundle: its scripts and .wasm files, bytes and gzipped. */
function downloadSizes(dir) {
  const files = filesUnder(dir).filter((f) => /\.(m?js|wasm)$/.test(f));
  return files.map((f) => {
    const bytes = readFileSync(f);
    return `${f.slice(dir.length + 1)}: ${bytes.length} bytes, ${gzipSync(bytes, { level: 9 }).length} gzipped`;
  }).join("; ");
}

/** The wasm modules whose .wasm files a page asked for (bundlers add a hash to the name). */
const wasmModules = () =>
  [...new Set(requested.filter((p) => p.endsWith(".wasm")).map((p) => p.split("/").pop().replace(/(-[\w-]{8})?\.wasm$/, "")))].sort();

// The zfp wasm module's files (glue, .wasm file and inlined module).
const zfpRequests = () => requested.filter((p) => p.includes("zarr_wasm_codecs_zfp"));

/**
 * Reads zfpy's streams in a page: every value equal to zfpy's; the wasm files the page asked
 * for, and the largest script it downloaded (bytes).
 */
async function readZfpInPage(url) {
  const wasm = [];
  let largestScript = 0;
  // (Each script's size is that of the file the test server served: reading a response's body
  // is asynchronous and may not end before the page closes.)
  const scripts = [];
  const result = await runPage(url, (page) => {
    page.on("response", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.endsWith(".wasm")) wasm.push({ path, status: r.status() });
      if (r.status() === 200 && /\.m?js$/.test(path)) scripts.push(path);
    });
  }, 60000);
  for (const path of scripts) largestScript = Math.max(largestScript, statSync(join(root, decodeURIComponent(path))).size);
  assert.deepEqual(result.wrong, []);
  assert.equal(result.read, result.total, "float16 too (Chromium has Float16Array)");
  return { wasm, largestScript };
}

// The zfp module as base64 in an ES module is about 480 KB; every other script a zfp read
// loads is smaller (the core module's copy, the largest, about 305 KB).
const INLINE_ZFP_BYTES = 400_000;

test("browser, no bundler (import map over dist/): reads and writes equal zarr-python's", async () => {
  const result = await readInPage(`${base}/tests/browser/plain.html?stores=${STORES}`);
  checkAgainstReference(result);
  assert.equal(result.design_2d.type, "Float64Array");
  // Reading packed integers never downloads the zfp module.
  assert.deepEqual(zfpRequests(), []);
  // The core module comes as its .wasm file, not as the base64 copy.
  assert.ok(requested.includes("/dist/wasm/zarr_wasm_codecs.wasm"), `${requested}`);
  assert.ok(!requested.some((p) => p.endsWith("_inline.js")), `${requested}`);
  checkWrites(await readInPage(`${base}/tests/browser/plain.html?write=1&stores=${WRITTEN}`));
  assert.deepEqual(consoleErrors, []);
});

test("browser, no bundler: zfpy's streams decode to zfpy's values (the zfp module loads on demand)", async () => {
  const result = await readInPage(`${base}/tests/browser/plain.html?zfp=1`);
  assert.deepEqual(result.wrong, []);
  assert.equal(result.read, result.total, "float16 too (Chromium has Float16Array)");
  // The .wasm file beside the glue, not the base64 copy.
  assert.ok(zfpRequests().some((p) => p.endsWith("/dist/wasm/zarr_wasm_codecs_zfp.wasm")), `${zfpRequests()}`);
  assert.ok(!zfpRequests().some((p) => p.endsWith("_inline.js")), `${zfpRequests()}`);
  assert.deepEqual(consoleErrors, []);
});

test("browser, bundled by Vite: reads equal zarr-python's, writes equal zarr-python's", async (t) => {
  // Built under target/ (ignored by git) so the same server serves the bundle and the stores.
  const outDir = join(root, "target/vite-test");
  const output = await build({
    root: app,
    base: "./",
    logLevel: "warn",
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(app, "vite.html") } },
  });
  const bundled = readFileSync(join(outDir, "vite.html"), "utf8");
  assert.doesNotMatch(bundled, /importmap/, "the Vite page resolves modules itself");
  checkFromTarball([output].flat().flatMap((o) => o.output.flatMap((chunk) => chunk.moduleIds ?? [])));
  requested.length = 0;
  const result = await readInPage(`${base}/target/vite-test/vite.html?stores=${STORES}`);
  checkAgainstReference(result);
  // The core module as its .wasm file, which Vite copies (new URL(..., import.meta.url)), and
  // the compress module's, which checks the sharded store's crc32c index.
  assert.deepEqual(wasmModules(), ["zarr_wasm_codecs", "zarr_wasm_codecs_compress"], `${requested}`);
  assert.ok(!requested.some((p) => /_inline/.test(p)), `${requested}`);
  assert.deepEqual(inlineCopiesIn(outDir), [], "base64 copies emitted");
  checkWrites(await readInPage(`${base}/target/vite-test/vite.html?write=1&stores=${WRITTEN}`));
  t.diagnostic(downloadSizes(outDir));
  // Vite splits the zfp module into its own chunk, which this page never asks for.
  const assets = readdirSync(join(outDir, "assets"));
  assert.ok(assets.some((a) => /zfp/.test(a)), `a separate zfp chunk among ${assets}`);
  assert.deepEqual(zfpRequests(), []);
  // Vite copies the zfp .wasm file (new URL(..., import.meta.url)), which a zfp read loads.
  const zfp = await readZfpInPage(`${base}/target/vite-test/vite.html?zfp=1`);
  assert.deepEqual(zfp.wasm.map((w) => w.status), [200], JSON.stringify(zfp.wasm));
  assert.ok(zfp.largestScript < INLINE_ZFP_BYTES, `a ${zfp.largestScript}-byte script was downloaded`);
  assert.deepEqual(consoleErrors, []);
});

/** What a pool page read: every store equal to zarr-python's and to the single-thread get. */
function checkPool(result, isolated) {
  assert.equal(result.crossOriginIsolated, isolated);
  for (const name of STORES) {
    const r = result.stores[name];
    assert.deepEqual(r.shape, expected[name].shape, name);
    assert.equal(r.hex, expected[name].read_hex, name);
    assert.equal(r.sameAsSingle, true, name);
    // Workers write into a SharedArrayBuffer only where the page may have one.
    assert.equal(r.shared, isolated, name);
  }
  assert.equal(result.forcedShared, isolated ? "read" : "NO_SHARED_MEMORY");
  assert.equal(result.terminated, true);
  notFound.clear();
}

test("browser, no bundler, worker pool: not isolated (results transferred) and cross-origin isolated (shared output)", async () => {
  checkPool(await readInPage(`${base}/tests/browser/plain.html?pool=1&stores=${STORES}`), false);
  checkPool(await readInPage(`${base}/tests/browser/plain.html?pool=1&isolate=1&stores=${STORES}`), true);
  assert.deepEqual(consoleErrors, []);
});

test("browser, no bundler: zarr-python's compressed, sharded and v2 stores equal zarr-python's, one thread and pooled (the workers fetching too)", async () => {
  const manifest = JSON.parse(readFileSync(join(root, "tests/fixtures/stores/manifest.json"), "utf8"));
  // (Missing chunks are 404s, which Chromium logs; they read as the fill value.)
  const quiet = (page) => page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && consoleErrors.push(m.text()));
  for (const isolate of ["", "&isolate=1"]) {
    const result = await runPage(`${base}/tests/browser/plain.html?compressed=1${isolate}`, quiet, 120000);
    assert.equal(result.read, manifest.filter((c) => !c.refused).length);
    assert.deepEqual(result.wrong, []);
  }
  assert.deepEqual(consoleErrors, []);
});

test("browser, no bundler: zarrs' reshape and rectilinear stores equal zarrs' reads, one thread and pooled (the workers fetching too)", async () => {
  const { cases } = JSON.parse(readFileSync(join(root, "tests/fixtures/extensions/manifest.json"), "utf8"));
  const quiet = (page) => page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && consoleErrors.push(m.text()));
  for (const isolate of ["", "&isolate=1"]) {
    const result = await runPage(`${base}/tests/browser/plain.html?extensions=1${isolate}`, quiet, 120000);
    assert.equal(result.read, cases.length);
    assert.deepEqual(result.wrong, []);
  }
  assert.deepEqual(consoleErrors, []);
});

test("browser, no bundler: every data type zarr-python and xarray wrote, item for item, one thread and pooled; decoded times", async () => {
  const expected = JSON.parse(readFileSync(join(root, "tests/fixtures/dtypes/expected.json"), "utf8"));
  const quiet = (page) => page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && consoleErrors.push(m.text()));
  for (const isolate of ["", "&isolate=1"]) {
    const result = await runPage(`${base}/tests/browser/plain.html?dtypes=1${isolate}`, quiet, 120000);
    assert.ok(result.read >= 40, `${result.read} read`);
    const decoded = expected.filter(
      (c) => (["datetime64", "timedelta64", "bool"].includes(c.encoding) && c.metadata_data_type !== "int64") || c.xarray_decoded_encoding === "ms_since_epoch",
    );
    assert.equal(result.decoded, decoded.length);
    // Chromium has a Float16Array: float16 reads with get there.
    assert.equal(result.float16, expected.filter((c) => c.case.startsWith("float16")).length);
    assert.deepEqual(result.wrong, []);
  }
  assert.deepEqual(consoleErrors, []);
});

test("browser, no bundler: set writes, on one thread and pooled, the stores zarr-python read exactly (tests/fixtures/written)", async () => {
  const verified = JSON.parse(readFileSync(join(root, "tests/fixtures/written/verified.json"), "utf8"));
  for (const isolate of ["", "&isolate=1"]) {
    // (Chromium asks for /favicon.ico, which the test server does not have.)
    const quiet = (page) => page.on("console", (m) => m.type() === "error" && !m.location()?.url?.endsWith("/favicon.ico") && consoleErrors.push(m.text()));
    const result = await runPage(`${base}/tests/browser/plain.html?written=1${isolate}`, quiet, 120000);
    const names = Object.keys(verified.cases);
    assert.equal(Object.keys(result).length, 2 * names.length);
    for (const name of names) {
      for (const via of ["one thread", "pool"]) assert.deepEqual(result[`${name} (${via})`], verified.cases[name].files, `${name} (${via})`);
    }
  }
  assert.deepEqual(consoleErrors, []);
});

test("browser, bundled by Vite, worker pool: the workers start with no configuration", async () => {
  // The bundle the Vite test above built.
  assert.ok(readdirSync(join(root, "target/vite-test")).includes("vite.html"));
  checkPool(await readInPage(`${base}/target/vite-test/vite.html?pool=1&isolate=1&stores=${STORES}`), true);
  checkPool(await readInPage(`${base}/target/vite-test/vite.html?pool=1&stores=${STORES}`), false);
  assert.deepEqual(consoleErrors, []);
});

const ENTRY = join(app, "bundle-entry.js");

/**
 * Bundles the entry with esbuild (ES modules, split), as an app would, into `outdir`, and the
 * same app importing "zarr-wasm-codecs/inline" (esbuild does not copy the .wasm files) into a
 * directory of its own beside it, so that each build's files can be checked for the base64
 * copies; the warnings and input modules of both.
 */
async function esbuildBundle(outdir) {
  const build = (entry, dir) => esbuild.build({
    entryPoints: { entry }, outdir: dir, bundle: true, format: "esm", splitting: true, minify: true,
    platform: "browser", logLevel: "silent", metafile: true,
  });
  rmSync(`${outdir}-inline`, { recursive: true, force: true });
  const results = [await build(ENTRY, outdir), await build(join(app, "inline-entry.js"), `${outdir}-inline`)];
  return {
    warnings: results.flatMap((r) => r.warnings.map((w) => w.text)),
    modules: results.flatMap((r) => Object.keys(r.metafile.inputs)),
  };
}

/** Bundles the entry with webpack 5 in production mode, as an app would; its warnings and modules. */
function webpackBundle(path) {
  const config = {
    mode: "production", entry: ENTRY, target: "web", devtool: false,
    output: { path, filename: "entry.js" }, performance: { hints: false },
  };
  return new Promise((resolve, reject) => {
    webpack(config, (error, stats) => {
      if (error) return reject(error);
      const info = stats.toJson({ all: false, errors: true, warnings: true, modules: true, nestedModules: true });
      if (stats.hasErrors()) return reject(new Error(info.errors.map((e) => e.message).join("\n")));
      const modules = info.modules.flatMap((m) => [m, ...(m.modules ?? [])]).map((m) => m.identifier).filter(Boolean);
      resolve({ warnings: info.warnings.map((w) => w.message), modules });
    });
  });
}

for (const [name, bundle, type] of [["esbuild", esbuildBundle, "module"], ["webpack 5", webpackBundle, "text/javascript"]]) {
  test(`browser, bundled by ${name}: reads equal zarr-python's, on one thread and with a worker pool; writes too`, async (t) => {
    const dir = join(root, "target", `${name.split(" ")[0]}-test`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    // No configuration but the entry: the wasm and the worker script need none.
    const { warnings, modules } = await bundle(dir);
    assert.deepEqual(warnings, [], `${name} warns`);
    checkFromTarball(modules);
    const html = (entry) => `<!doctype html><meta charset="utf-8"><script type="${type}" src="./${entry}.js"></script>\n`;
    writeFileSync(join(dir, "index.html"), html("entry"));
    // No base64 copy in a build that does not import "zarr-wasm-codecs/inline".
    assert.deepEqual(inlineCopiesIn(dir), [], `${name}: base64 copies emitted`);
    // webpack copies the .wasm files; esbuild does not: its app imports "zarr-wasm-codecs/inline".
    const short = name.split(" ")[0];
    let reads = `${short}-test/index.html`;
    if (name === "esbuild") {
      writeFileSync(join(`${dir}-inline`, "index.html"), html("entry"));
      assert.deepEqual(inlineCopiesIn(`${dir}-inline`).sort(), ["archive", "archive_encode", "compress", "core", "encode", "grib", "packing", "pcodec", "zfp", "zstd"]);
      reads = `${short}-test-inline/index.html`;
    }
    const page = `${base}/target/${reads}?stores=${STORES}`;
    requested.length = 0;
    checkAgainstReference(await readInPage(page));
    const wasmFiles = requested.filter((p) => p.endsWith(".wasm"));
    if (name === "esbuild") assert.deepEqual(wasmFiles, [], "the inline entry asks for no .wasm file");
    // (webpack names them by their hash.)
    else assert.equal(new Set(wasmFiles).size, 2, `the core and compress modules' .wasm files: ${wasmFiles}`);
    checkPool(await readInPage(`${page}&pool=1`), false);
    checkPool(await readInPage(`${page}&pool=1&isolate=1`), true);
    checkWrites(await readInPage(`${base}/target/${reads}?write=1&stores=${WRITTEN}`));
    // zfp with the plain entry (zarr.get with the zfp codec: the zfp module alone): webpack's
    // copy of its .wasm file is loaded; esbuild's app, which has no copy of the file, is told
    // which file is missing and to import "zarr-wasm-codecs/inline" (WASM_UNAVAILABLE); its
    // inline build reads zfpy's streams from the base64 copy.
    const zfpPage = `${base}/target/${short}-test/index.html?zfp=1`;
    if (name === "esbuild") {
      const error = await errorInPage(zfpPage);
      assert.match(error, /WASM_UNAVAILABLE.*zarr_wasm_codecs_zfp\.wasm .*HTTP 404.*zarr-wasm-codecs\/inline/s, error);
      const zfp = await readZfpInPage(`${base}/target/${reads}?zfp=1`);
      assert.deepEqual(zfp.wasm, [], JSON.stringify(zfp.wasm));
      assert.ok(zfp.largestScript > INLINE_ZFP_BYTES, `the largest script: ${zfp.largestScript} bytes`);
      // The README's other way: the .wasm files copied into wasm/ beside the plain bundle.
      cpSync(join(app, "node_modules/zarr-wasm-codecs/dist/wasm"), join(dir, "wasm"), { recursive: true, filter: (f) => !/\.(js|ts)$/.test(f) });
      const copied = await readZfpInPage(zfpPage);
      assert.deepEqual(copied.wasm.map((w) => w.status), [200], JSON.stringify(copied.wasm));
    } else {
      const zfp = await readZfpInPage(zfpPage);
      assert.deepEqual(zfp.wasm.map((w) => w.status), [200], JSON.stringify(zfp.wasm));
      assert.ok(zfp.largestScript < INLINE_ZFP_BYTES, `a ${zfp.largestScript}-byte script was downloaded`);
    }
    t.diagnostic(downloadSizes(dir));
    assert.deepEqual(consoleErrors, []);
  });
}

/** Opens the CSP page under `policy` (and `workerUrl`); its result, console errors and requests, after `wait` ms more. */
async function cspPage(policy, { workerUrl, wait = 0 } = {}) {
  const page = await browser.newPage();
  const errors = [];
  const asked = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("request", (r) => asked.push(new URL(r.url()).pathname));
  const query = new URLSearchParams({ csp: policy, ...(workerUrl ? { workerUrl } : {}) });
  await page.goto(`${base}/tests/browser/plain.html?${query}`);
  await page.waitForFunction(() => window.__result, null, { timeout: 30000 });
  await page.waitForTimeout(wait);
  const result = await page.evaluate(() => window.__result);
  const counted = errors.length;
  await page.evaluate(() => window.__pool?.terminate());
  await page.close();
  return { result, errors: errors.slice(0, counted), asked };
}

const SCRIPTS = "script-src 'self' 'unsafe-inline'";

test("browser, a CSP without 'wasm-unsafe-eval': WASM_FORBIDDEN naming the directive, and no inline copy downloaded", async () => {
  const { result, asked } = await cspPage(`${SCRIPTS}`);
  assert.equal(result.one.code, "WASM_FORBIDDEN", JSON.stringify(result.one));
  assert.match(result.one.message, /'wasm-unsafe-eval'.*script-src/);
  assert.ok(!asked.some((p) => p.endsWith("_inline.js")), `${asked}`);
});

test("browser, a CSP with worker-src 'self': WORKER_START_FAILED naming blob: workers, no restart loop; a workerUrl pool reads", async () => {
  const policy = `${SCRIPTS} 'wasm-unsafe-eval'; worker-src 'self'`;
  const { result, errors } = await cspPage(policy, { wait: 5000 });
  assert.equal(result.one.same, true);
  assert.equal(result.pool.code, "WORKER_START_FAILED", JSON.stringify(result.pool));
  assert.match(result.pool.message, /worker-src.*blob:.*workerUrl/);
  // At most one console error per worker of the pool in the 5 s after the failed read.
  assert.ok(errors.length <= 2, `${errors.length} console errors: ${errors.slice(0, 3)}`);
  // The package's worker script served by the page's own origin.
  const served = await cspPage(policy, { workerUrl: "/dist/worker.js" });
  assert.deepEqual(served.result, { one: { same: true }, pool: { same: true } });
  assert.deepEqual(served.errors, []);
});
