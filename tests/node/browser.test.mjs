// The npm package in headless Chromium: loaded with no bundler (an import map over the package's
// own files) and bundled by Vite; both read zarr-python's stores over HTTP through zarrita's
// FetchStore and must give zarr-python's values bit for bit.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";
import { build } from "vite";

import { serve } from "../../scripts/serve.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const expected = JSON.parse(readFileSync(join(root, "tests/node/fixtures/expected.json"), "utf8"));
const STORES = ["design_2d", "design_2d_sharded", "float64_int32_towards_zero", "int64_big"];

let browser;
let server;
let base;
const consoleErrors = [];
const notFound = new Set();

before(async () => {
  server = await serve(root);
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

const requested = [];

async function readInPage(url) {
  const page = await browser.newPage();
  page.on("request", (r) => requested.push(new URL(r.url()).pathname));
  page.on("response", (r) => r.status() === 404 && notFound.add(new URL(r.url()).pathname));
  // Chromium logs every 404 as a console error; which URLs those were is checked separately.
  page.on("console", (m) => {
    if (m.type() === "error" && !m.text().startsWith("Failed to load resource: the server responded with a status of 404")) {
      consoleErrors.push(m.text());
    }
  });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(url);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 30000 });
  const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  await page.close();
  assert.equal(error, undefined);
  return result;
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

// The zfp wasm module's files (glue and inlined module).
const zfpRequests = () => requested.filter((p) => p.includes("zarr_wasm_codecs_zfp"));

test("browser, no bundler (import map over dist/): reads equal zarr-python's", async () => {
  const result = await readInPage(`${base}/tests/browser/plain.html?stores=${STORES}`);
  checkAgainstReference(result);
  assert.equal(result.design_2d.type, "Float64Array");
  // Reading packed integers never downloads the zfp module.
  assert.deepEqual(zfpRequests(), []);
  assert.deepEqual(consoleErrors, []);
});

test("browser, no bundler: zfpy's streams decode to zfpy's values (the zfp module loads on demand)", async () => {
  const result = await readInPage(`${base}/tests/browser/plain.html?zfp=1`);
  assert.deepEqual(result.wrong, []);
  assert.equal(result.read, result.total, "float16 too (Chromium has Float16Array)");
  assert.ok(zfpRequests().some((p) => p.endsWith("zarr_wasm_codecs_zfp_inline.js")));
  assert.deepEqual(consoleErrors, []);
});

test("browser, bundled by Vite: reads equal zarr-python's", async () => {
  // Built under target/ (ignored by git) so the same server serves the bundle and the stores.
  const outDir = join(root, "target/vite-test");
  await build({
    root: join(root, "tests/browser"),
    base: "./",
    logLevel: "warn",
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(root, "tests/browser/vite.html") } },
  });
  const bundled = readFileSync(join(outDir, "vite.html"), "utf8");
  assert.doesNotMatch(bundled, /importmap/, "the Vite page resolves modules itself");
  requested.length = 0;
  const result = await readInPage(`${base}/target/vite-test/vite.html?stores=${STORES}`);
  checkAgainstReference(result);
  // Vite splits the zfp module into its own chunk, which this page never asks for.
  const assets = readdirSync(join(outDir, "assets"));
  assert.ok(assets.some((a) => /zfp/.test(a)), `a separate zfp chunk among ${assets}`);
  assert.deepEqual(zfpRequests(), []);
  assert.deepEqual(consoleErrors, []);
});
