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
    await page.goto(url);
    const report = await page.evaluate(async () => {
      const view = await window.demo.ready;
      const all = {};
      for (const name of ["uint8", "int16", "zfp"]) all[name] = await window.demo.readAll(name);
      return { view, all, manifest: { nan_count: window.demo.manifest.nan_count, shape: window.demo.manifest.shape } };
    });
    console.log(`\n${url}`);
    const v = report.view;
    console.log(`shown: ${v.store}, month ${v.t}, shape [${v.shape}], min ${v.min.toFixed(3)}, max ${v.max.toFixed(3)}, NaN ${v.nan}, max |error| ${v.maxAbsError.toExponential(3)}`);
    for (const [name, s] of Object.entries(report.all)) {
      console.log(`decoded ${name}: Float64Array shape [${s.shape}], min ${s.min.toFixed(3)}, max ${s.max.toFixed(3)}, NaN ${s.nan}`);
      if (s.nan !== report.manifest.nan_count) problems.push(`${name}: ${s.nan} NaN, zarr-python read ${report.manifest.nan_count}`);
      if (String(s.shape) !== String(report.manifest.shape)) problems.push(`${name}: shape [${s.shape}]`);
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
