// What a reader's browser downloads: each read scenario (tests/browser/downloads.js) in a fresh
// headless Chromium context, the package's files as it ships them (dist/, no bundler). Every
// file the page requested from dist/ is measured gzipped (level 9), as a server sends it, and
// the wasm a scenario downloads must stay within its budget. The values read are held to
// zarr-python's and xarray's, so that a scenario cannot shrink by reading less.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";

import { serve } from "../../../scripts/serve.mjs";
import { launchChromium } from "../shared/chromium.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const json = (path) => JSON.parse(readFileSync(join(root, path), "utf8"));

/** Each scenario's wasm budget (gzipped bytes) and the values it must read. */
const SCENARIOS = {
  // The design card's packing: zarr-python's values (tests/node/fixtures/generate.py).
  packed: { budget: 160_000, hex: json("tests/node/fixtures/expected.json").design_2d_zstd.read_hex },
  // xarray's decoding of its CF int16 store (tests/fixtures/stores/make.py).
  cf: { budget: 200_000, hex: readFileSync(join(root, "tests/fixtures/stores/xr_cf_v3.expected.bin")).toString("hex") },
  // xarray's decoding of a CF store shaped as users write them (tests/fixtures/cf/make.py).
  cf_whole: { budget: 200_000, hex: gunzipSync(readFileSync(join(root, "tests/fixtures/cf/sst.expected.bin.gz"))).toString("hex") },
  // zarr-python's float32 values (tests/fixtures/dtypes/generate.py).
  float32: {
    budget: 160_000,
    hex: json("tests/fixtures/dtypes/expected.json").find((c) => c.case === "xr_dataset.v3" && c.path === "tas").values_hex,
  },
};

let server;
let browser;
let base;

before(async () => {
  server = await serve(root);
  base = `http://127.0.0.1:${server.address().port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/** The scenario read in a fresh context: what it read and the package files it requested. */
async function download(name, way) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const files = new Set();
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/dist/")) files.add(path);
  });
  await page.goto(`${base}/tests/browser/downloads.html?scenario=${name}&way=${way}`);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 30000 });
  const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  await context.close();
  assert.equal(error, undefined);
  const sizes = { wasm: 0, js: 0, files: {} };
  for (const path of [...files].sort()) {
    const gz = gzipSync(readFileSync(join(root, path)), { level: 9 }).length;
    sizes.files[path.slice("/dist/".length)] = gz;
    sizes[path.endsWith(".wasm") ? "wasm" : "js"] += gz;
  }
  return { result, sizes };
}

// Each scenario three ways: the package's open, zarrita's zarr.open after registerCodecs(), and
// zarr.open over the store wrapped by withWasmCodecs (zarr.get; getDecoded for the CF reads).
const WAYS = { open: "the package's open", zarrita: "zarr.open", wrapped: "zarr.open over withWasmCodecs" };

for (const [name, { budget, hex }] of Object.entries(SCENARIOS)) {
  for (const [way, how] of Object.entries(WAYS)) {
    test(`downloads: the ${name} scenario through ${how} reads the reference's values with at most ${budget / 1000} KB of wasm`, async (t) => {
      const { result, sizes } = await download(name, way);
      assert.equal(result.hex, hex);
      t.diagnostic(JSON.stringify(sizes));
      assert.ok(sizes.wasm > 0, "the scenario decodes in wasm");
      assert.ok(sizes.wasm <= budget, `${name}: ${sizes.wasm} bytes of wasm gzipped, over ${budget}: ${JSON.stringify(sizes.files)}`);
      // No .wasm file twice over (its base64 copy as well): a plain page loads the files.
      assert.ok(!Object.keys(sizes.files).some((f) => f.includes("_inline")), JSON.stringify(sizes.files));
    });
  }
}
