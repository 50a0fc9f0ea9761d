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


import { serve } from "../../scripts/serve.mjs";
import { COLORMAPS, colorOf } from "../../www/colormap.js";
import { launchChromium } from "./chromium.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, "www/data/real/manifest.json"), "utf8"));
const FORMS = ["scale_offset", "cf", "uint8", "zfp", "pcodec", "original"];

let server;
let browser;
let page;
const problems = [];

before(async () => {
  server = await serve(root);
  browser = await launchChromium();
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
  assert.deepEqual(await page.evaluate(() => window.demo.FORMS), FORMS);
  for (const [dataset, ds] of Object.entries(manifest.datasets)) {
    for (const [name, v] of Object.entries(ds.variables)) {
      assert.deepEqual(Object.keys(v.forms).sort(), [...FORMS].sort(), `${dataset}/${name}: the manifest's forms`);
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

/** The map's pixel for cell (i, j) (one pixel per cell), from the canvas that drew it. */
const pixel = (i, j) => page.evaluate(([i, j]) => window.demo.pixel(i, j), [i, j]);

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

test("the uint8 and int16 forms are drawn by the GPU from their stored values, every cell the colour of get's value", async (t) => {
  for (const [dataset, ds] of Object.entries(manifest.datasets)) {
    for (const [name, v] of Object.entries(ds.variables)) {
      const key = `${dataset}/${name}`;
      for (const form of FORMS) {
        await page.evaluate(([key, form]) => window.demo.show(key, form, 0), [key, form]);
        await ready();
        const route = await page.evaluate(() => window.demo.route());
        assert.equal(route, form === "uint8" || form === "scale_offset" ? "gpu" : "cpu", `${key} ${form}`);
        if (route !== "gpu") continue;
        const { drawn, pixels, values, nx } = await page.evaluate(async ([key, form]) => {
          const g = window.demo.geometry(key);
          const pixels = [];
          for (let i = 0; i < g.ny; i++) for (let j = 0; j < g.nx; j++) pixels.push(window.demo.pixel(i, j));
          return { drawn: window.demo.state.drawn, pixels, values: [...(await window.demo.readView(key, form, 0))], nx: g.nx };
        }, [key, form]);
        // Uploaded: the stored bytes, 1 or 2 a value.
        assert.equal(drawn.uploaded, drawn.values * (form === "uint8" ? 1 : 2));
        assert.equal(drawn.values, values.length);
        const [lo, hi] = v.scale;
        let offByOne = 0;
        for (const [k, value] of values.entries()) {
          const want = colorOf(value, lo, hi, COLORMAPS[v.colormap]);
          if (pixels[k].every((c, n) => c === want[n])) continue;
          // A colour one step off only where the value sits on a boundary between two colours,
          // which the shader's float32 arithmetic may put on the other side than float64.
          const position = ((value - lo) / (hi - lo)) * 255;
          assert.ok(Math.abs(position - Math.floor(position) - 0.5) < 1e-4, `${key} ${form} cell ${Math.floor(k / nx)},${k % nx}: ${pixels[k]} for ${value}, not ${want}`);
          offByOne++;
        }
        t.diagnostic(`${key} ${form}: ${values.length} cells, ${offByOne} of them on a boundary between two colours and drawn in the other`);
      }
    }
  }
  assert.match(await page.textContent("#route"), /Drawn/);
  await page.evaluate(() => window.demo.show("oisst/sst", "scale_offset", 0));
  await ready();
  assert.match(await page.textContent("#route"), /Drawn by the GPU: the int16 values as stored \(32,400 bytes, 2 a value, against 64,800 as float32\)/);
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
    const row = rows.slice(1).find((r) => r.includes({ scale_offset: "scale_offset", cf: "CF", uint8: "uint8", zfp: "zfp", pcodec: "pcodec", original: "original" }[form]));
    assert.ok(row.includes(p.values[form].toPrecision(7)), `${form}: ${row}`);
  }
  assert.match(await page.textContent("#where"), /3°S, 136°W/);
});

test("the variable switch and the time slider change the picture", async () => {
  const snapshot = () => page.evaluate(() => window.demo.snapshot());
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

test("the readout describes the cell under the cursor of the map on screen, cleared or recomputed when the variable, time or form changes", async () => {
  await page.evaluate(() => window.demo.show("oisst/sst", "scale_offset", 0));
  await ready();
  const sst = manifest.datasets.oisst.variables.sst;
  const moveTo = async (key, i, j) => {
    const g = await page.evaluate((key) => window.demo.geometry(key), key);
    const box = await page.locator("#map").boundingBox();
    await page.mouse.move(box.x + (j + 0.5) * g.cell, box.y + (i + 0.5) * g.cell);
  };
  await moveTo("oisst/sst", sst.probes[0].i, sst.probes[0].j);
  assert.match(await page.textContent("#where"), /3°S, 136°W/);
  const header = async () => (await page.locator("#probe tr").first().textContent()) ?? "";

  // Another variable of the same grid: the same cell, recomputed in its units and values.
  await page.locator('input[name="var"][value="oisst/anom"]').check();
  await page.waitForFunction(() => window.demo.state.key === "oisst/anom" && document.body.dataset.state === "ready");
  const anom = manifest.datasets.oisst.variables.anom.probes[0];
  assert.match(await page.textContent("#where"), /3°S, 136°W \(row 46, column 22\)/);
  const rows = await page.locator("#probe tr").allTextContents();
  assert.ok(rows.some((r) => r.includes(anom.values.cf.toPrecision(7))), `anomaly values: ${rows}`);

  // Another dataset (another grid): the readout is cleared, not left describing the old map.
  await page.locator('input[name="var"][value="bcsd/pr"]').check();
  await page.waitForFunction(() => window.demo.state.key === "bcsd/pr" && document.body.dataset.state === "ready");
  assert.doesNotMatch(await page.textContent("#where"), /136°W|row 46/);
  assert.equal(await page.textContent("#where"), "Move the cursor over the map.");
  assert.equal(await page.locator("#probe tr").count(), 0);

  // The cursor on the new map: its cell, its units, its values.
  const pr = manifest.datasets.bcsd.variables.pr;
  const p = pr.probes[0];
  await moveTo("bcsd/pr", p.i, p.j);
  assert.match(await page.textContent("#where"), /35\.3125°N, 80\.0625°W \(row 14, column 39\), 1999-01/);
  assert.match(await header(), /mm\/m/);
  const january = await page.locator("#probe tr").allTextContents();
  for (const form of FORMS) assert.ok(january.some((r) => r.includes(p.values[form].toPrecision(7))), `${form}: ${january}`);

  // Another time step: the same cell at that time, its values read from the map's own views.
  await page.locator("#time").fill("8");
  await page.waitForFunction(() => window.demo.state.t === 8 && document.body.dataset.state === "ready");
  assert.match(await page.textContent("#where"), /35\.3125°N, 80\.0625°W \(row 14, column 39\), 1999-09/);
  const september = await page.evaluate(async ([i, j]) => {
    const view = await window.demo.readView("bcsd/pr", "original", 8);
    return view[i * window.demo.geometry("bcsd/pr").nx + j];
  }, [p.i, p.j]);
  const rowsSep = await page.locator("#probe tr").allTextContents();
  assert.ok(rowsSep.some((r) => r.startsWith("float32 original") && r.includes(september.toPrecision(7))), `${september}: ${rowsSep}`);

  // Another form: the readout stays on the cell, with the same rows.
  await page.locator('input[name="form"][value="zfp"]').check();
  await page.waitForFunction(() => window.demo.state.form === "zfp" && document.body.dataset.state === "ready");
  assert.deepEqual(await page.locator("#probe tr").allTextContents(), rowsSep);
  assert.deepEqual(problems, []);
});
