// The demo page (www/) in headless Chromium: it loads without console errors; every variable,
// storage form and time step decodes to a Float64Array equal, bit for bit, to the values
// www/data/generate.py recorded from zarr-python, xarray and zfpy; a known ocean cell has the
// colour map's colour for its value and a missing (land) cell is transparent over the hatching;
// the cursor shows every form's value; the slider and the variable switch change the picture.
// Screenshots are saved to target/.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

import { serve } from "../../scripts/serve.mjs";
import { COLORMAPS, colorOf } from "../../www/colormap.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "www/data/real/manifest.json"), "utf8"));
const FORMS = ["scale_offset", "cf", "uint8", "zfp", "original"];

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
  page = await browser.newPage({ viewport: { width: 1150, height: 1300 } });
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  // Two timing rounds: the test checks the table is there, not the figures.
  await page.goto(`http://127.0.0.1:${server.address().port}/www/?rounds=2`);
  await page.evaluate(() => window.demo.ready);
});

after(async () => {
  await browser?.close();
  server?.close();
});

const ready = () => page.waitForSelector('body[data-state="ready"]');
const shot = (name) => {
  mkdirSync(join(root, "target"), { recursive: true });
  return page.screenshot({ path: join(root, `target/demo-${name}.png`), fullPage: true });
};

test("the page loads and draws OISST's SST with no console errors", async () => {
  await ready();
  assert.deepEqual(problems, []);
  assert.match(await page.textContent("#title"), /OISST.*1981-12-31/);
  assert.equal(await page.locator("#timing tr").count(), FORMS.length + 1);
  assert.equal(await page.locator("#bytes tr").count(), FORMS.length + 1);
  await shot("sst");
});

test("every variable, form and time step decodes to the generator's reference values, bit for bit", async () => {
  for (const [dataset, ds] of Object.entries(manifest.datasets)) {
    for (const [name, v] of Object.entries(ds.variables)) {
      for (const form of FORMS) {
        const got = await page.evaluate(async ([key, form, steps]) => {
          const out = [];
          for (let t = 0; t < steps; t++) {
            const data = await window.demo.readView(key, form, t);
            out.push({ type: data.constructor.name, bytes: [...new Uint8Array(data.buffer, data.byteOffset, data.byteLength)] });
          }
          return out;
        }, [`${dataset}/${name}`, form, v.forms[form].per_time.length]);
        assert.equal(got.length, v.forms[form].per_time.length);
        for (const [t, step] of v.forms[form].per_time.entries()) {
          assert.equal(got[t].type, "Float64Array");
          const sha = createHash("sha256").update(Buffer.from(got[t].bytes)).digest("hex");
          assert.equal(sha, step.sha256, `${dataset}/${name} ${form} t=${t}`);
        }
      }
    }
  }
});

/** The map canvas's pixel for cell (i, j) (one pixel per cell). */
const pixel = (i, j) => page.evaluate(([i, j]) => [...document.getElementById("map").getContext("2d").getImageData(j, i, 1, 1).data], [i, j]);

test("an ocean cell has the colour map's colour for its value; a land cell is transparent over the hatching", async () => {
  for (const [key, form] of [["oisst/sst", "scale_offset"], ["oisst/anom", "cf"], ["bcsd/tas", "uint8"]]) {
    await page.evaluate(([key, form]) => window.demo.show(key, form, 0), [key, form]);
    await ready();
    const [dataset, name] = key.split("/");
    const v = manifest.datasets[dataset].variables[name];
    const [valued, missing] = v.probes;
    assert.ok(!valued.missing && missing.missing);
    const want = colorOf(valued.values[form], v.scale[0], v.scale[1], COLORMAPS[v.colormap]);
    assert.equal(want[3], 255);
    assert.deepEqual(await pixel(valued.i, valued.j), want, `${key} ${form} at ${valued.lat}, ${valued.lon}`);
    assert.deepEqual(await pixel(missing.i, missing.j), [0, 0, 0, 0], `${key} missing at ${missing.lat}, ${missing.lon}`);
  }
  // What shows through the transparent cells: the hatching.
  assert.match(await page.evaluate(() => getComputedStyle(document.getElementById("map")).backgroundImage), /repeating-linear-gradient/);
});

test("the cursor marks its cell and shows every form's value and error there", async () => {
  await page.evaluate(() => window.demo.show("oisst/sst", "scale_offset", 0));
  await ready();
  const v = manifest.datasets.oisst.variables.sst;
  const [p] = v.probes;
  const g = await page.evaluate(() => window.demo.geometry("oisst/sst"));
  const box = await page.locator("#map").boundingBox();
  const before = await page.evaluate(() => document.getElementById("overlay").toDataURL());
  await page.mouse.move(box.x + (p.j + 0.5) * g.cell, box.y + (p.i + 0.5) * g.cell);
  assert.notEqual(await page.evaluate(() => document.getElementById("overlay").toDataURL()), before, "the cell is marked");
  const rows = await page.locator("#probe tr").allTextContents();
  assert.equal(rows.length, FORMS.length + 1);
  for (const form of FORMS) {
    const row = rows.slice(1).find((r) => r.includes({ scale_offset: "scale_offset", cf: "CF", uint8: "uint8", zfp: "zfp", original: "original" }[form]));
    assert.ok(row.includes(p.values[form].toPrecision(7)), `${form}: ${row}`);
  }
  assert.match(await page.textContent("#where"), /3°S, 136°W/);
});

test("the variable switch and the time slider change the picture", async () => {
  const snapshot = () => page.evaluate(() => document.getElementById("map").toDataURL());
  const sst = await snapshot();
  await page.locator('input[name="var"][value="oisst/anom"]').check();
  await page.waitForFunction(() => window.demo.state.key === "oisst/anom" && document.body.dataset.state === "ready");
  assert.notEqual(await snapshot(), sst);
  assert.equal(await page.locator("#time").isDisabled(), true, "one day of OISST: no slider");
  await shot("anomaly");

  await page.locator('input[name="var"][value="bcsd/pr"]').check();
  await page.waitForFunction(() => window.demo.state.key === "bcsd/pr" && document.body.dataset.state === "ready");
  const january = await snapshot();
  await page.locator("#time").fill("8");
  await page.waitForFunction(() => window.demo.state.t === 8 && document.body.dataset.state === "ready");
  assert.notEqual(await snapshot(), january);
  assert.match(await page.textContent("#time-label"), /1999-09/);
  await shot("precipitation-september");
  assert.deepEqual(problems, []);
});
