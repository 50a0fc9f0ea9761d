// The demo page (www/) in headless Chromium: it loads without console errors; every variable,
// storage form and time step decodes to a Float64Array equal, bit for bit, to the values
// www/data/generate.py recorded from zarr-python, xarray and zfpy; a known ocean cell has the
// colour map's colour for its value and a missing (land) cell is transparent over the hatching;
// the cursor shows every form's value; the slider and the variable switch change the picture;
// the SST as GRIB2 (www/data/grib.py), read through kerchunk's references, is kerchunk's codec's
// values bit for bit and drawn the map's way up. Screenshots are saved to target/.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

import { serve } from "../../../scripts/serve.mjs";
import { COLORMAPS, colorOf } from "../../../www/colormap.js";
import { launchChromium } from "../shared/chromium.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
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
        // Each step's bytes hashed in the page (SHA-256, as the generator hashed them), so that
        // only the digests cross to Node.
        const got = await page.evaluate(async ([key, form, steps]) => {
          const out = [];
          for (let t = 0; t < steps; t++) {
            const data = await window.demo.readView(key, form, t);
            const digest = await crypto.subtle.digest("SHA-256", new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
            out.push({ type: data.constructor.name, sha: [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("") });
          }
          return out;
        }, [`${dataset}/${name}`, form, v.forms[form].per_time.length]);
        assert.equal(got.length, v.forms[form].per_time.length);
        for (const [t, step] of v.forms[form].per_time.entries()) {
          assert.equal(got[t].type, "Float64Array");
          assert.equal(got[t].sha, step.sha256, `${dataset}/${name} ${form} t=${t}`);
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

test("GRIB2 in place: both packings read through kerchunk's references are its codec's values bit for bit, drawn in °C the map's way up", async () => {
  const dir = join(root, "www/data/real/oisst-grib");
  const grib = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  const sst = manifest.datasets.oisst.variables.sst;
  const [lo, hi] = sst.scale;
  const [ocean, land] = sst.probes;
  const nx = manifest.datasets.oisst.lon.length;
  await page.evaluate(() => window.demo.grib.ready);
  // The default packing last, for the screenshot.
  for (const packing of ["ccsds", "simple"]) {
    const m = grib.messages[`sst-${packing}`];
    await page.locator(`input[name="grib-packing"][value="${packing}"]`).check();
    await page.waitForSelector(`#grib[data-state="drawn"][data-packing="${packing}"]`);
    // get's values (kelvin) and the canvas's pixels, as hex.
    const got = await page.evaluate(async (packing) => {
      const hex = (a) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), (b) => b.toString(16).padStart(2, "0")).join("");
      const values = await window.demo.grib.values(packing);
      const canvas = document.getElementById("grib-canvas");
      const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
      return { type: values.constructor.name, values: hex(values), pixels: hex(pixels), info: await window.demo.grib.info(packing) };
    }, packing);
    assert.equal(got.type, "Float64Array");
    const values = new Float64Array(Uint8Array.from(Buffer.from(got.values, "hex")).buffer);
    const b = gunzipSync(readFileSync(join(dir, m.expected.float64)));
    const want = new Float64Array(b.buffer, b.byteOffset, b.byteLength / 8);
    assert.equal(values.length, want.length);
    for (const [k, x] of want.entries()) if (!Object.is(values[k], x)) assert.fail(`${packing}: value ${k} is ${values[k]}, kerchunk's codec gives ${x}`);
    // Every cell the colour map's colour of its value in °C, rows north first as the map's; the
    // named ocean cell (3°S, 136°W) is the original's, and the land cell (11°N, 30°E) transparent.
    const rgba = Buffer.from(got.pixels, "hex");
    for (const [k, x] of want.entries()) {
      const pixel = [...rgba.subarray(4 * k, 4 * k + 4)];
      assert.deepEqual(pixel, colorOf(x - 273.15, lo, hi, COLORMAPS[sst.colormap]), `${packing}: cell ${Math.floor(k / nx)},${k % nx}`);
    }
    const at = (p) => p.i * nx + p.j;
    assert.ok(Math.abs(want[at(ocean)] - 273.15 - ocean.values.original) <= m["max_abs_diff_from_original_minus_273.15"] + 1e-12);
    assert.equal(rgba[4 * at(ocean) + 3], 255);
    assert.deepEqual(await page.evaluate(([i, j]) => window.demo.grib.pixel(i, j), [land.i, land.j]), [0, 0, 0, 0]);
    // The line under the map: the packing, the bytes fetched (the message, in one request), the
    // decode time and the largest difference from the float32 original.
    const { info } = got;
    assert.equal(info.template, m.keys.dataRepresentationTemplateNumber);
    assert.equal(info.bits, m.keys.bitsPerValue);
    assert.deepEqual(info.fetched, { bytes: m.length, requests: 1 });
    assert.equal(info.flipped, false);
    assert.equal(info.maxDiff, m["max_abs_diff_from_original_minus_273.15"]);
    assert.ok(info.maxDiff <= (packing === "simple" ? 0.005 : 2 ** m.keys.binaryScaleFactor / 2 + 1e-5), `${packing}: ${info.maxDiff}`);
    assert.deepEqual([info.missing, info.missingApart], [m.expected.nan, 0]);
    const line = await page.textContent("#grib-info");
    for (const said of [`template 5.${info.template} (${info.bits} bits a value`, `${m.length.toLocaleString("en")} bytes fetched in 1 range request`,
      `largest difference from the float32 original ${info.maxDiff.toExponential(1)} °C`, "the original's land, cell for cell"]) {
      assert.ok(line.includes(said), `${packing}: ${said} in ${line}`);
    }
    assert.match(line, /decoded in \d+(\.\d)? (µs|ms) /);
  }
  mkdirSync(join(root, "target"), { recursive: true });
  await page.locator("#grib").screenshot({ path: join(root, "target/demo-grib.png") });
  // Back to the top, where the tests that follow move the mouse over the map.
  await page.evaluate(() => window.scrollTo(0, 0));
  assert.deepEqual(problems, []);
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
        // The map's pixels read at once, and get's values, each as hex (a string crosses to Node
        // much faster than an array of numbers).
        const got = await page.evaluate(async ([key, form]) => {
          const hex = (a) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), (b) => b.toString(16).padStart(2, "0")).join("");
          const values = await window.demo.readView(key, form, 0);
          return { drawn: window.demo.state.drawn, pixels: hex(window.demo.pixels(key)), values: hex(values), nx: window.demo.geometry(key).nx };
        }, [key, form]);
        const { drawn, nx } = got;
        const rgba = Buffer.from(got.pixels, "hex");
        const pixels = Array.from({ length: rgba.length / 4 }, (_, k) => [...rgba.subarray(4 * k, 4 * k + 4)]);
        const values = new Float64Array(Uint8Array.from(Buffer.from(got.values, "hex")).buffer);
        // The one-read pixels are the per-cell reads (the same canvas), on a few cells.
        for (const k of [0, nx + 1, Math.floor(values.length / 2), values.length - 1]) {
          assert.deepEqual(await pixel(Math.floor(k / nx), k % nx), pixels[k], `${key} ${form} cell ${k}`);
        }
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
  // The monthly fields at January, which the page keeps while OISST is shown.
  await page.evaluate(() => window.demo.show("bcsd/pr", "scale_offset", 0));
  await ready();
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
  assert.equal(await page.getAttribute("#probe", "data-cell"), "none");
  assert.ok((await page.locator("#probe tr").allTextContents()).slice(1).every((r) => r.includes("—") && !/\d\.\d/.test(r)));

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

// ---------------------------------------------------------------------------------------------
// The page as a climate scientist reads it.
// ---------------------------------------------------------------------------------------------

/** The drawn form's values of a view, as the page reads them. */
const viewOf = (key, form, t) => page.evaluate(([key, form, t]) => window.demo.readView(key, form, t).then((v) => [...v]), [key, form, t]);
const showAndWait = async (key, form, t, how = "values") => {
  await page.evaluate(([key, form, t, how]) => window.demo.show(key, form, t, how), [key, form, t, how]);
  await ready();
};
const fmtValue = (x) => (Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(3));

test("a clipped colour scale says so: end arrows, and how many cells lie beyond it and how far", async () => {
  for (const [key, form, t, side, units] of [
    ["bcsd/pr", "scale_offset", 8, "above", "mm/month"],
    ["oisst/sst", "original", 0, "above", "°C"],
    ["oisst/anom", "cf", 0, "below", "°C"],
  ]) {
    await showAndWait(key, form, t);
    const [dataset, name] = key.split("/");
    const [lo, hi] = manifest.datasets[dataset].variables[name].scale;
    const values = (await viewOf(key, form, t)).filter((x) => !Number.isNaN(x));
    const beyond = values.filter((x) => (side === "above" ? x > hi : x < lo));
    const extreme = side === "above" ? Math.max(...values) : Math.min(...values);
    assert.ok(beyond.length > 0, `${key}: some values beyond the scale`);
    const extend = await page.getAttribute("#legend", "data-extend");
    assert.ok(extend === "both" || extend === (side === "above" ? "max" : "min"), `${key}: ${extend}`);
    const said = await page.textContent("#clipped");
    const edge = side === "above" ? hi : lo;
    const far = side === "above" ? "up to" : "down to";
    assert.ok(said.includes(`${beyond.length} cells ${side} ${edge} ${units} (${far} ${fmtValue(extreme)} ${units})`), `${key}: ${said}`);
  }
  // Precipitation in September reaches 848 mm/month: 247 cells above the scale's 500.
  await showAndWait("bcsd/pr", "original", 8);
  assert.match(await page.textContent("#clipped"), /247 cells above 500 mm\/month \(up to 848\.5 mm\/month\)/);
  // Sea ice fits its scale: no arrow, nothing said.
  await showAndWait("oisst/ice", "original", 0);
  assert.equal(await page.getAttribute("#legend", "data-extend"), "none");
  assert.equal(await page.textContent("#clipped"), "");
});

test("units read as a scientist writes them; the file's own attributes are shown, and what is wrong in them said", async () => {
  const expected = {
    "oisst/sst": ["Sea-surface temperature (°C)", []],
    "oisst/anom": ["Sea-surface temperature anomaly (from the daily climatology) (°C)", []],
    "oisst/ice": ["Sea-ice concentration (fraction of the cell (0–1))", [/says "percent", but its values run from 0 to 1/]],
    "bcsd/tas": ["Monthly mean air temperature (°C)", []],
    "bcsd/pr": ["Monthly precipitation (mm/month)", [/"mm\/m" means millimetres per month/]],
  };
  for (const [key, [units, notes]] of Object.entries(expected)) {
    await showAndWait(key, "scale_offset", 0);
    const [dataset, name] = key.split("/");
    const v = manifest.datasets[dataset].variables[name];
    assert.equal(await page.textContent("#units"), units);
    const note = await page.textContent("#units-note");
    assert.ok(note.includes(`long_name "${v.long_name}", units "${v.units}"`), note);
    for (const n of notes) assert.match(note, n);
    // The raw attribute appears only in that note: not in the legend's label, the title or the readout.
    for (const where of ["#units", "#title", "#probe"]) {
      assert.ok(!(await page.textContent(where)).includes(`(${v.units})`), `${key} ${where}`);
    }
  }
  // Sea ice's values are fractions, as the page says.
  const ice = (await viewOf("oisst/ice", "original", 0)).filter((x) => !Number.isNaN(x));
  assert.ok(Math.max(...ice) <= 1 && Math.min(...ice) >= 0);
});

test("each form is named where it is drawn; its difference from the original is a map of its own, and each form's error and compression are in the table", async (t) => {
  const labels = { scale_offset: "scale_offset + cast_value int16", cf: "CF int16 (xarray)", uint8: "uint8 (planPacking)", zfp: "zfp reversible", pcodec: "pcodec (numcodecs)", original: "float32 original" };
  const v = manifest.datasets.bcsd.variables.pr;
  const original = await viewOf("bcsd/pr", "original", 8);
  for (const form of FORMS) {
    await showAndWait("bcsd/pr", form, 8);
    assert.ok((await page.textContent("#title")).endsWith(`— drawn from ${labels[form]}`));
    await showAndWait("bcsd/pr", form, 8, "difference");
    assert.ok((await page.textContent("#title")).endsWith(`— ${labels[form]} − the float32 original`));
    assert.equal(await page.evaluate(() => window.demo.route()), "cpu");
    const values = await viewOf("bcsd/pr", form, 8);
    let most = 0;
    for (const [k, x] of values.entries()) if (!Number.isNaN(x) && !Number.isNaN(original[k])) most = Math.max(most, Math.abs(x - original[k]));
    const note = await page.textContent("#scale-note");
    if (most === 0) assert.match(note, /^Lossless/, form);
    else assert.ok(note.includes(`the largest is ${most.toPrecision(3)} mm/month`), `${form}: ${note}`);
    // Every difference is on the scale: no arrow.
    assert.equal(await page.getAttribute("#legend", "data-extend"), "none", form);
    t.diagnostic(`${form}: the largest difference in September is ${most} mm/month`);
  }
  await shot("difference-uint8");
  // The table: codecs, whether compressed, and the error of the view.
  await showAndWait("bcsd/pr", "uint8", 8);
  const rows = (await page.locator("#bytes tr").evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent))));
  assert.deepEqual(rows[0], ["stored as", "codecs", "compressed", "bytes", "per value", "of the original", "max / RMS error (mm/month)"]);
  const byForm = Object.fromEntries(FORMS.map((f, n) => [f, rows[n + 1]]));
  assert.deepEqual(FORMS.map((f) => byForm[f][2]), ["no", "no", "no", "yes", "yes", "no"]);
  assert.equal(byForm.zfp[1], "zfp (reversible)");
  for (const f of ["zfp", "pcodec"]) assert.equal(byForm[f][6], "lossless");
  const uint8 = await viewOf("bcsd/pr", "uint8", 8);
  let [most, sum, n] = [0, 0, 0];
  for (const [k, x] of uint8.entries()) {
    if (Number.isNaN(x) || Number.isNaN(original[k])) continue;
    most = Math.max(most, Math.abs(x - original[k]));
    sum += (x - original[k]) ** 2;
    n++;
  }
  assert.equal(byForm.uint8[6], `${most.toPrecision(2)} / ${Math.sqrt(sum / n).toPrecision(2)}`);
  assert.ok(most <= v.forms.uint8.plan.max_abs_error);
  assert.ok((await page.textContent("#bytes-note")).includes(`±${v.forms.uint8.plan.max_abs_error.toPrecision(3)} mm/month`));
});

test("the timing table says which way its ratio runs and what each row compares, and is marked while it re-measures", async () => {
  await showAndWait("oisst/sst", "scale_offset", 0);
  assert.equal(await page.getAttribute("#timing", "data-stale"), "false");
  assert.equal(await page.getAttribute("#timing", "data-view"), "oisst/sst@0");
  // Another variable: at once the old figures are marked stale, until the new ones are in.
  await page.locator('input[name="var"][value="bcsd/tas"]').check();
  assert.equal(await page.getAttribute("#timing", "data-stale"), "true");
  assert.match(await page.textContent("#timing-state"), /previous view's/);
  assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById("timing")).opacity), "0.45");
  await page.waitForFunction(() => window.demo.state.key === "bcsd/tas" && document.body.dataset.state === "ready");
  assert.equal(await page.getAttribute("#timing", "data-stale"), "false");
  assert.match(await page.getAttribute("#timing", "data-view"), /^bcsd\/tas@/);
  assert.equal(await page.textContent("#timing-state"), "");
  const rows = await page.locator("#timing tr").evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => ({ text: c.textContent, noisy: c.classList.contains("noisy") }))));
  assert.deepEqual(rows[0].map((c) => c.text), ["stored as", "what each side runs", "zarr-wasm-codecs", "zarrita", "zarrita ÷ ours"]);
  assert.match(await page.textContent("#timing-note"), /above 1, this package is faster/);
  assert.match(await page.textContent("#timing-note"), /clock steps by \d+ µs/);
  for (const row of rows.slice(1)) {
    assert.match(row[1].text, /get|getDecoded/);
    for (const cell of row.slice(2, 4)) {
      const m = /^(\d+) µs \((\d+)–(\d+)\)( noisy)?$/.exec(cell.text);
      if (cell.text === "—") continue;
      assert.ok(m, cell.text);
      const [median, q1, q3] = m.slice(1, 4).map(Number);
      assert.ok(q1 <= median && median <= q3, cell.text);
      // Marked noisy exactly when the quartiles spread by more than a quarter of the median (to the µs shown).
      if (m[4]) assert.ok(cell.noisy && (q3 - q1 + 2) / median > 0.25, cell.text);
      else assert.ok((q3 - q1 - 2) / median <= 0.25, cell.text);
    }
  }
  const ratio = rows.find((r) => r[0].text.startsWith("float32"))[1].text;
  assert.match(ratio, /same bytes codec on both sides/);
});

test("the page says how to use the package: install, a snippet, links, the data's sources and the version", async () => {
  const use = await page.textContent("#use");
  assert.match(use, /npm i zarr-wasm-codecs zarrita/);
  assert.match(use, /registerCodecs\(\);/);
  assert.match(use, /await get\(arr, \[0, null, null\]\)/);
  assert.match(use, /gpuDecoder\(arr\)/);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.equal(await page.textContent("#version"), pkg.version);
  const links = await page.locator("#use a, footer a").evaluateAll((as) => as.map((a) => a.href));
  assert.ok(links.some((h) => h.endsWith("/README.md")) && links.some((h) => h.includes("npmjs.com/package/zarr-wasm-codecs")));
  for (const local of links.filter((h) => h.startsWith("http://127.0.0.1"))) {
    assert.equal(await page.evaluate((h) => fetch(h).then((r) => r.status), local), 200, local);
  }
  const footer = await page.textContent("footer");
  for (const cited of [/Reynolds, R\. W\..*2007/s, /Maurer, E\. P\..*2002/s, /Pebesma, E\., 2018/, /public domain/]) assert.match(footer, cited);
});

test("at 420 x 800 the page fits: no sideways scroll, the whole map, labels inside the colour bar, a readout that keeps its place", async () => {
  const narrow = await browser.newPage({ viewport: { width: 420, height: 800 } });
  narrow.on("pageerror", (e) => problems.push(String(e)));
  await narrow.goto(`http://127.0.0.1:${server.address().port}/www/?rounds=2`);
  await narrow.evaluate(() => window.demo.ready);
  for (const key of ["oisst/sst", "bcsd/pr"]) {
    await narrow.evaluate((key) => window.demo.show(key, "scale_offset", 8), key);
    await narrow.waitForSelector('body[data-state="ready"]');
    assert.ok(await narrow.evaluate(() => document.scrollingElement.scrollWidth <= 420), `${key}: scrolls sideways`);
    const map = await narrow.locator("#map").boundingBox();
    assert.ok(map.x >= 0 && map.x + map.width <= 420, `${key}: map ${JSON.stringify(map)}`);
    const legend = await narrow.evaluate(() => window.demo.legend());
    for (const l of legend.labels) assert.ok(l.from >= 0 && l.to <= legend.width, `${key}: label ${l.text}`);
    const bar = await narrow.locator("#legend-axis").boundingBox();
    assert.ok(bar.x + bar.width <= 420);
    // Each line of the legend's text holds more than a word.
    const lines = await narrow.evaluate(() => {
      const el = document.getElementById("units");
      return el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight);
    });
    assert.ok(lines <= 2, `${key}: the legend's label runs over ${lines} lines`);
  }
  // The readout holds its rows before the cursor comes, and stays clear of the heading after it.
  const before = await narrow.locator("#probe").boundingBox();
  assert.equal(await narrow.locator("#probe tr").count(), FORMS.length + 1);
  const g = await narrow.evaluate(() => window.demo.geometry("bcsd/pr"));
  await narrow.locator("#map").scrollIntoViewIfNeeded();
  const box = await narrow.locator("#map").boundingBox();
  await narrow.mouse.move(box.x + 10.5 * g.cell, box.y + 10.5 * g.cell);
  const after = await narrow.locator("#probe").boundingBox();
  assert.equal(await narrow.getAttribute("#probe", "data-cell"), "shown");
  assert.ok(Math.abs(after.height - before.height) <= 2, `${before.height} -> ${after.height}`);
  const next = await narrow.locator("#probe").evaluate((el) => el.closest("section").nextElementSibling.querySelector("h2").getBoundingClientRect().top);
  assert.ok(after.y + after.height <= next, "the readout runs into the next heading");
  await narrow.screenshot({ path: join(root, "target/demo-narrow.png"), fullPage: true });
  await narrow.close();
});

test("missing cells read apart from near-zero anomalies; the month stays chosen across a visit to OISST", async () => {
  // The hatching's colours against the diverging map's middle colours (values near 0).
  const hatch = await page.evaluate(() => getComputedStyle(document.querySelector(".hatched")).backgroundImage);
  const colours = [...hatch.matchAll(/rgb\((\d+), (\d+), (\d+)\)/g)].map((m) => m.slice(1, 4).map(Number));
  assert.equal(colours.length >= 2, true, hatch);
  const middle = [127, 128].map((i) => [...COLORMAPS.diverging.slice(i * 3, i * 3 + 3)]);
  const distance = (a, b) => Math.hypot(...a.map((x, k) => x - b[k]));
  for (const c of middle) for (const h of colours) assert.ok(distance(c, h) > 25, `hatching ${h} against ${c}`);
  // Its lines are darker than any colour a value takes.
  const darkest = Math.min(...colours.map((c) => c[0] + c[1] + c[2]));
  const table = COLORMAPS.diverging;
  for (let i = 96; i < 160; i++) assert.ok(table[i * 3] + table[i * 3 + 1] + table[i * 3 + 2] > darkest + 60);

  await showAndWait("bcsd/pr", "scale_offset", 5);
  await page.locator('input[name="var"][value="oisst/sst"]').check();
  await page.waitForFunction(() => window.demo.state.key === "oisst/sst" && document.body.dataset.state === "ready");
  await page.locator('input[name="var"][value="bcsd/tas"]').check();
  await page.waitForFunction(() => window.demo.state.key === "bcsd/tas" && document.body.dataset.state === "ready");
  assert.equal(await page.evaluate(() => window.demo.state.t), 5);
  assert.equal(await page.textContent("#time-label"), "1999-06");
  assert.equal(await page.inputValue("#time"), "5");
});

test("screenshots of every variable", async () => {
  for (const [key, t] of [["oisst/sst", 0], ["oisst/anom", 0], ["oisst/ice", 0], ["bcsd/tas", 6], ["bcsd/pr", 8]]) {
    await showAndWait(key, "scale_offset", t);
    await shot(key.replace("/", "-"));
  }
  assert.deepEqual(problems, []);
});
