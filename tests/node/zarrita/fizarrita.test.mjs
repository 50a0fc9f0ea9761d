// fizarrita's workers decode with the package's codecs (issue: the zarrita apps on npm). An app
// built as an ngff-zarr app is, bundled by Vite with zarrita 0.6 (fizarrita 1.4.1 needs it:
// with zarrita 0.7 its workers' codecs fail), reads zarr-python's packed, zfpy and pcodec stores
// with fizarrita's getWorker, its pool's workers `zarr-wasm-codecs/fizarrita-worker`, held bit
// for bit to zarr-python's values, in headless Chromium. The same reads with fizarrita's own
// worker fail (zarrita 0.6 has none of these codecs), so the entry is what decodes them. A
// refusal inside the workers reaches the page with its code at the start of its message
// (fizarrita hands on the message alone), which the package's errorCode reads there.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { build } from "vite";

import { serve } from "../../../scripts/serve.mjs";
import { launchChromium } from "../shared/chromium.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const outDir = join(root, "target/fizarrita");
const hexOf = (path) => readFileSync(join(root, path)).toString("hex");

// Each store (a path under the repository) and zarr-python's values: packed floats
// (scale_offset, cast_value, zstd; zarrita 0.6 has neither codec) stored as wide as they read,
// numcodecs.zfpy and numcodecs.pcodec.
const STORES = {
  "tests/fixtures/fizarrita/f4_as_i4.zarr": hexOf("tests/fixtures/fizarrita/f4_as_i4.expected.bin"),
  "tests/fixtures/fizarrita/f8_as_i8.zarr": hexOf("tests/fixtures/fizarrita/f8_as_i8.expected.bin"),
  "tests/fixtures/stores/v3_zfpy_rate_f4.zarr": hexOf("tests/fixtures/stores/v3_zfpy_rate_f4.expected.bin"),
  "tests/fixtures/stores/v3_zfpy_precision_f8.zarr": hexOf("tests/fixtures/stores/v3_zfpy_precision_f8.expected.bin"),
  "tests/fixtures/pcodec/v3_i4_2d_mode_classic.zarr": hexOf("tests/fixtures/pcodec/v3_i4_2d_mode_classic.expected.bin"),
  "tests/fixtures/pcodec/v3_f8_2d_then_zstd.zarr": hexOf("tests/fixtures/pcodec/v3_f8_2d_then_zstd.expected.bin"),
};
// fizarrita 1.4.1 takes a chunk's shape from its decompressed size over the array's item size,
// on the page: a float64 array packed as uint8 (the design card's) it shapes wrong ([2, 16] for
// [16, 16]), which the package's codecs refuse (CHUNK_LENGTH) rather than decode wrong.
const MISSHAPED = "tests/node/fixtures/stores/design_2d_zstd.zarr";

// The app's zarrita is 0.6 (zarrita-0.6, a development dependency), for every module of the
// page and of the workers: fizarrita's, and the package's.
const zarrita06 = {
  name: "zarrita-0.6",
  enforce: "pre",
  async resolveId(source, importer, options) {
    if (source === "zarrita" || source.startsWith("zarrita/")) {
      return this.resolve(source.replace(/^zarrita/, "zarrita-0.6"), importer, { ...options, skipSelf: true });
    }
  },
};

let server;
let browser;

before(async () => {
  await build({
    root: join(root, "tests/browser"),
    plugins: [zarrita06],
    worker: { plugins: () => [zarrita06] },
    // (The package as an app has it installed: its exports of the entry and of errorCode, from dist/.)
    resolve: {
      alias: [
        { find: /^zarr-wasm-codecs\/fizarrita-worker/, replacement: join(root, "dist/fizarrita-worker.js") },
        { find: /^zarr-wasm-codecs$/, replacement: join(root, "dist/index.js") },
      ],
    },
    base: "./",
    logLevel: "warn",
    build: { outDir, emptyOutDir: true, rollupOptions: { input: join(root, "tests/browser/fizarrita.html") } },
  });
  server = await serve(root);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
});

test("fizarrita's pool with the package's worker entry reads packed, zfpy and pcodec stores exactly, and its refusals reach the page coded (zarrita 0.6, Chromium)", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => process.env.DEBUG_PAGE && process.stderr.write(`${m.text()}\n`));
  const base = `http://127.0.0.1:${server.address().port}`;
  await page.goto(`${base}/target/fizarrita/fizarrita.html?base=/&stores=${[...Object.keys(STORES), MISSHAPED].join(",")}`);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 180000 });
  const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  await page.close();
  assert.equal(error, undefined);
  // (fizarrita's own worker, lacking the codecs, fails its reads with errors left unhandled.)
  assert.deepEqual(errors.filter((e) => !/Unknown codec: (scale_offset|cast_value|numcodecs\.zfpy|numcodecs\.pcodec)/.test(e)), []);
  for (const [store, hex] of Object.entries(STORES)) {
    const got = result.withPackage[store];
    assert.equal(got.error, undefined, `${store}: ${got.error}`);
    assert.equal(got.hex, hex, `${store}, fizarrita with the package's worker`);
    const alone = result.alone[store];
    assert.ok(alone.error !== undefined || alone.hex !== hex, `${store}: fizarrita's own worker read it too`);
  }
  // Refused in a worker: the code at the start of the message the page gets, read by errorCode.
  const refused = result.withPackage[MISSHAPED];
  assert.match(refused.error ?? "", /^\[CHUNK_LENGTH\] .*chunk has 256 elements but its shape and data type need 32/);
  assert.equal(refused.code, "CHUNK_LENGTH", refused.error);
});
