// The demo page (www/) in headless Chromium: it loads without console errors, decodes every
// month of both packed copies to exactly what zarr-python read (www/data/generate.py records
// it), colours a known location with the colour map's colour for zarr-python's value, leaves NaN
// transparent, and redraws when the month changes. A screenshot is saved to target/.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

import { serve } from "../../scripts/serve.mjs";
import { colorOf } from "../../www/colormap.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "www/data/sample/manifest.json"), "utf8"));

let server;
let browser;
let page;
const problems = [];

before(async () => {
  server = await serve(root);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  await page.goto(`http://127.0.0.1:${server.address().port}/www/`);
  await page.evaluate(() => window.demo.ready);
});

after(async () => {
  await browser?.close();
  server?.close();
});

const ready = () => page.waitForSelector('body[data-state="ready"]');

test("the page loads and draws with no console errors", async () => {
  await ready();
  assert.deepEqual(problems, []);
  assert.match(await page.textContent("#time-label"), new RegExp(manifest.time[0]));
});

test("every month of every copy (uint8, int16, zfp) decodes to what zarr-python read, bit for bit", async () => {
  for (const name of ["uint8", "int16", "float64", "zfp"]) {
    const digests = await page.evaluate(async (name) => {
      const out = [];
      for (let t = 0; t < 12; t++) {
        const data = await window.demo.readMonth(name, t);
        const hash = await crypto.subtle.digest("SHA-256", data.buffer);
        out.push([...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join(""));
      }
      return out;
    }, name);
    assert.deepEqual(digests, manifest.per_time[name].map((m) => m.sha256), name);
  }
});

async function pixel(x, y) {
  return page.evaluate(
    ([x, y]) => [...document.getElementById("map").getContext("2d").getImageData(x, y, 1, 1).data],
    [x, y],
  );
}

test("a pixel at a known location has the colour map's colour for zarr-python's value; NaN is transparent", async () => {
  await page.evaluate(() => window.demo.show("uint8", 0));
  await ready();
  const probes = manifest.probes.filter((p) => p.store === "uint8" && p.t === 0);
  assert.ok(probes.some((p) => p.value === null) && probes.some((p) => p.value !== null));
  for (const p of probes) {
    const value = p.value === null ? NaN : p.value;
    const want = colorOf(value, manifest.min, manifest.max);
    assert.deepEqual(await pixel(p.lon_index, p.lat_index), want, JSON.stringify(p));
    if (p.value === null) assert.equal(want[3], 0, "NaN is transparent");
  }
});

test("the cursor shows the value and coordinates under it", async () => {
  const p = manifest.probes.find((q) => q.store === "uint8" && q.t === 0 && q.value !== null);
  const box = await page.locator("#map").boundingBox();
  const [ny, nx] = manifest.shape.slice(1);
  await page.mouse.move(box.x + ((p.lon_index + 0.5) / nx) * box.width, box.y + ((p.lat_index + 0.5) / ny) * box.height);
  const text = await page.textContent("#probe");
  assert.match(text, new RegExp(`${p.value.toFixed(2)} °C`));
  assert.match(text, new RegExp(`${manifest.lon[p.lon_index].toFixed(1)}°E`));
});

test("the slider changes the picture; the int16 copy has the smaller quantisation error", async () => {
  const snapshot = () => page.evaluate(() => document.getElementById("map").toDataURL());
  const before = await snapshot();
  await page.locator("#time").fill("6");
  await page.waitForFunction(() => window.demo.state.t === 6 && document.body.dataset.state === "ready");
  assert.notEqual(await snapshot(), before);
  assert.match(await page.textContent("#time-label"), new RegExp(manifest.time[6]));

  const uint8 = await page.evaluate(() => window.demo.state.summary.maxAbsError);
  await page.locator('input[value="int16"]').check();
  await page.waitForFunction(() => window.demo.state.store === "int16" && document.body.dataset.state === "ready");
  const int16 = await page.evaluate(() => window.demo.state.summary.maxAbsError);
  assert.ok(int16 < uint8, `int16 error ${int16} < uint8 error ${uint8}`);
  assert.ok(uint8 <= manifest.stores.uint8.max_abs_error);

  // Per-chunk timings are shown for both implementations.
  const rows = await page.locator("#timing tr").count();
  assert.equal(rows, 5);

  // The zfp copy is reversible: no error at all, and its module loads only now.
  await page.locator('input[value="zfp"]').check();
  await page.waitForFunction(() => window.demo.state.store === "zfp" && document.body.dataset.state === "ready");
  assert.equal(await page.evaluate(() => window.demo.state.summary.maxAbsError), 0);
  mkdirSync(join(root, "target"), { recursive: true });
  await page.screenshot({ path: join(root, "target/demo-screenshot.png"), fullPage: true });
  assert.deepEqual(problems, []);
});
