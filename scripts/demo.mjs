// `npm run demo`: builds the package, serves the demo page on localhost and prints its URL;
// Ctrl-C stops it. `npm run demo -- --check` instead loads the page in headless Chromium,
// prints what it decoded and exits (non-zero if the page failed or logged an error).
// `--port N` picks the port (default 8080; 0 for any free one).
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { serve } from "./serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const check = args.includes("--check");
const portArg = args.indexOf("--port");
const port = portArg >= 0 ? Number(args[portArg + 1]) : check ? 0 : 8080;

execFileSync(process.execPath, [join(root, "scripts/build.mjs")], { cwd: root, stdio: "inherit" });

const server = await serve(root, port);
const url = `http://127.0.0.1:${server.address().port}/www/`;

if (!check) {
  console.log(`\nDemo: ${url}\n(Ctrl-C to stop)`);
  const stop = () => {
    server.close();
    server.closeAllConnections?.();
    console.log("\nstopped");
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} else {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const problems = [];
  try {
    const page = await browser.newPage();
    page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
    page.on("pageerror", (e) => problems.push(`page error: ${e}`));
    await page.goto(`${url}?rounds=5`);
    await page.evaluate(() => window.demo.ready);
    await page.waitForSelector('body[data-state="ready"]', { timeout: 120000 });
    // Every variable, form and time step as the page decodes it, against the values the
    // generator recorded from zarr-python, xarray and zfpy (SHA-256 of the float64 bytes); the
    // page's forms are the manifest's.
    const { rows: report, unmatched } = await page.evaluate(async () => {
      const { manifest, FORMS, readView } = window.demo;
      const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
      const rows = [];
      const unmatched = [];
      for (const [dataset, ds] of Object.entries(manifest.datasets)) {
        for (const [name, v] of Object.entries(ds.variables)) {
          for (const form of Object.keys(v.forms).filter((f) => !FORMS.includes(f))) {
            unmatched.push(`${dataset}/${name} ${form}: in the manifest but not on the page`);
          }
          for (const form of FORMS) {
            if (!v.forms[form]) {
              unmatched.push(`${dataset}/${name} ${form}: on the page but not in the manifest`);
              continue;
            }
            const steps = v.forms[form].per_time;
            let same = 0;
            let nan = 0;
            let min = Infinity;
            let max = -Infinity;
            for (let t = 0; t < steps.length; t++) {
              const data = await readView(`${dataset}/${name}`, form, t);
              if (hex(await crypto.subtle.digest("SHA-256", data.buffer)) === steps[t].sha256) same++;
              for (const x of data) {
                if (Number.isNaN(x)) nan++;
                else { if (x < min) min = x; if (x > max) max = x; }
              }
            }
            rows.push({ key: `${dataset}/${name}`, form, type: "Float64Array", steps: steps.length, same, nan, min, max,
              wantNan: steps.reduce((a, s) => a + s.nan, 0) });
          }
        }
      }
      return { rows, unmatched };
    });
    problems.push(...unmatched);
    console.log(`\n${url}`);
    for (const r of report) {
      console.log(`${r.key} ${r.form.padEnd(12)} ${r.type} x ${r.steps}: min ${r.min.toFixed(3)}, max ${r.max.toFixed(3)}, ` +
        `NaN ${r.nan}; equal to the reference in ${r.same} of ${r.steps} steps`);
      if (r.same !== r.steps) problems.push(`${r.key} ${r.form}: ${r.steps - r.same} steps differ from the reference`);
      if (r.nan !== r.wantNan) problems.push(`${r.key} ${r.form}: ${r.nan} NaN, the reference has ${r.wantNan}`);
    }
    // The SST as GRIB2 read through kerchunk's references (www/grib.js), each packing against
    // the values kerchunk's grib codec decoded (www/data/grib.py), NaN where it gives NaN.
    await page.evaluate(() => window.demo.grib.ready);
    const grib = await page.evaluate(async () => {
      const { grib } = window.demo;
      const rows = [];
      for (const packing of grib.PACKINGS) {
        const values = await grib.values(packing);
        const info = await grib.info(packing);
        const response = await fetch(`data/real/oisst-grib/sst-${packing}.f64.gz`);
        const want = new Float64Array(await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
        let same = 0;
        let nan = 0;
        let min = Infinity;
        let max = -Infinity;
        for (const [k, x] of values.entries()) {
          if (Object.is(x, want[k])) same++;
          if (Number.isNaN(x)) nan++;
          else { if (x < min) min = x; if (x > max) max = x; }
        }
        rows.push({ ...info, packing, type: values.constructor.name, n: want.length, count: values.length, same, nan, min, max });
      }
      return rows;
    });
    for (const r of grib) {
      console.log(`GRIB2 sst-${r.packing.padEnd(7)} template 5.${r.template}, ${r.type}: min ${r.min.toFixed(3)} K, max ${r.max.toFixed(3)} K, ` +
        `NaN ${r.nan}; equal to kerchunk's codec's values in ${r.same} of ${r.n}; ${r.fetched.bytes} bytes fetched, ` +
        `decoded in ${(r.decodeMs * 1000).toFixed(0)} µs, largest difference from the original ${r.maxDiff.toExponential(2)} °C`);
      if (r.type !== "Float64Array" || r.count !== r.n || r.same !== r.n) problems.push(`GRIB2 sst-${r.packing}: ${r.n - r.same} values differ from kerchunk's codec's`);
    }
  } catch (e) {
    problems.push(String(e));
  } finally {
    await browser.close();
    server.close();
  }
  if (problems.length) {
    console.error(problems.join("\n"));
    process.exit(1);
  }
  console.log("check passed");
}
