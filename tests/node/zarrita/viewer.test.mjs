// A real zarr viewer from npm, not written here: @carbonplan/zarr-layer (a MapLibre GL custom
// layer reading through zarrita), in headless Chromium (WebGL2 on SwiftShader), bundled with
// maplibre-gl by esbuild from tests/browser/viewer.js. It renders two stores, a float64 field
// packed as uint8 (scale_offset + cast_value, NaN as 0) with zstd and a float32 field with zstd
// (1024 x 2048, lat/lon coordinates, 512 x 1024 chunks, written here by the package), once
// handed zarrita's FetchStore after registerCodecs() and once the same store wrapped by
// withWasmCodecs with the default pool. Both must draw the same pixels and answer the same
// value queries (equal to the package's own `get`). While the layer loads, V8 counts the calls
// on the main thread (precise coverage, exact): with the wrapped store not one of the package's
// wasm decode calls is made there, with registerCodecs() they are (the check sees them). A
// sampling profile (0.1 ms) of the same time gives the figures printed, not compared: on two
// busy cores its samples once missed every decode of a load (CI: 0 ms of 45). The longest
// main-thread task is printed, not compared: it is MapLibre's and zarr-layer's own work (texture uploads, drawing), on two cores shared with the workers and
// SwiftShader, and came out either way round from one run to the next (CI: 165 ms wrapped
// against 125; here 98 against 93, then 89 against 102).
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as esbuild from "esbuild";
import * as zarr from "zarrita";

import { get, open, set } from "zarr-wasm-codecs";
import { serve } from "../../../scripts/serve.mjs";
import { launchChromium } from "../shared/chromium.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const out = join(root, "target/viewer");
const [H, W] = [1024, 2048];
const CHUNKS = [512, 1024];
const CLIM = [-10, 15];
// Query points (lng, lat): inside each chunk, one in the disc of NaN, and edges.
const POINTS = [[-170.3, 80.1], [-45.2, 33.3], [10.7, -12.9], [120.1, -60.4], [179.8, -89.8], [-179.9, 89.9], [0.1, 0.1], [-56.3, -17.6]];

const zstd = { name: "zstd", configuration: { level: 3, checksum: false } };
const bytes = { name: "bytes", configuration: { endian: "little" } };

/** The design card's field on an H x W grid: smooth, some noise, a disc of NaN. */
function field() {
  const data = new Float64Array(H * W);
  let seed = 7;
  for (let i = 0; i < H; i++) {
    for (let j = 0; j < W; j++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const v = 2.75 + 12 * Math.sin(i / 97) * Math.cos(j / 131) + (seed / 2 ** 32 - 0.5) * 0.5;
      data[i * W + j] = (i - 0.6 * H) ** 2 + (j - 0.35 * W) ** 2 < (0.08 * H) ** 2 ? NaN : v;
    }
  }
  return data;
}

/** Writes the group: lat, lon, `packed` (float64 as uint8 + zstd) and `sst` (float32 + zstd). */
async function writeStore(dir) {
  const files = new Map();
  const store = { get: async (k) => files.get(k), set: async (k, v) => void files.set(k, v) };
  const json = (o) => new TextEncoder().encode(JSON.stringify(o));
  files.set("/zarr.json", json({ zarr_format: 3, node_type: "group", attributes: {} }));
  const array = (name, shape, chunks, dataType, fill, codecs, dims) => {
    files.set(`/${name}/zarr.json`, json({
      zarr_format: 3, node_type: "array", shape, data_type: dataType, fill_value: fill,
      chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      codecs, dimension_names: dims, attributes: {},
    }));
    return open(zarr.root(store).resolve(name));
  };
  const lat = Float64Array.from({ length: H }, (_, i) => 90 - ((i + 0.5) * 180) / H);
  const lon = Float64Array.from({ length: W }, (_, j) => -180 + ((j + 0.5) * 360) / W);
  await set(await array("lat", [H], [H], "float64", "NaN", [bytes], ["lat"]), null, { data: lat, shape: [H], stride: [1] });
  await set(await array("lon", [W], [W], "float64", "NaN", [bytes], ["lon"]), null, { data: lon, shape: [W], stride: [1] });
  const values = field();
  const packed = await array("packed", [H, W], CHUNKS, "float64", "NaN", [
    { name: "scale_offset", configuration: { offset: -10, scale: 10 } },
    { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } },
    bytes, zstd,
  ], ["lat", "lon"]);
  await set(packed, null, { data: values, shape: [H, W], stride: [W, 1] });
  const sst = await array("sst", [H, W], CHUNKS, "float32", "NaN", [bytes, zstd], ["lat", "lon"]);
  await set(sst, null, { data: Float32Array.from(values), shape: [H, W], stride: [W, 1] });
  for (const [key, b] of files) {
    mkdirSync(dirname(join(dir, key)), { recursive: true });
    writeFileSync(join(dir, key), b);
  }
  return { packed: await get(packed), sst: await get(sst) };
}

let browser;
let server;
let written;
/** The bundle's line -> the module (its path under the repository) the line came from. */
let moduleAt;
/** The offset in the bundle at which each line starts. */
let lineStarts;
/** The line (from 0) an offset in the bundle is on. */
function lineAt(offset) {
  let [lo, hi] = [0, lineStarts.length - 1];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

before(async () => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  written = await writeStore(join(out, "store.zarr"));
  await esbuild.build({
    entryPoints: [join(root, "tests/browser/viewer.js")],
    bundle: true,
    format: "esm",
    outfile: join(out, "viewer.bundle.js"),
    // The package as the repository builds it, its wasm inlined (esbuild copies no .wasm files).
    alias: { "zarr-wasm-codecs": join(root, "dist/inline.js") },
    logLevel: "error",
  });
  // esbuild heads each module's code with a comment naming its path.
  let current = "";
  const bundle = readFileSync(join(out, "viewer.bundle.js"), "utf8");
  lineStarts = [0];
  for (let i = bundle.indexOf("\n"); i >= 0; i = bundle.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  moduleAt = bundle.split("\n").map((line) => {
    const named = /^\/\/ ((?:node_modules|dist|packages|tests)\/\S+)$/.exec(line);
    if (named) current = named[1];
    return current;
  });
  // MapLibre 6 starts its workers from maplibre-gl-worker.mjs beside the module that imports it
  // (here, the bundle): without it a worker fails to load, and the map, when that failure comes
  // before its load, never loads (seen once in eight loads here).
  copyFileSync(join(root, "node_modules/maplibre-gl/dist/maplibre-gl-worker.mjs"), join(out, "maplibre-gl-worker.mjs"));
  writeFileSync(join(out, "index.html"), `<!doctype html><meta charset="utf-8"><title>viewer</title>
<link rel="stylesheet" href="/node_modules/maplibre-gl/dist/maplibre-gl.css">
<div id="map" style="width: 512px; height: 512px"></div>
<script type="module" src="viewer.bundle.js"></script>`);
  server = await serve(root);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.close();
});

/**
 * A call into the package's wasm to decode: every chunk decode on a thread goes through one, a
 * wasm-bindgen module's `decode`, `decodeChunk`, `decodeTile` or `decodeBytes`, in dist/wasm/.
 */
const isDecodeCall = (functionName, module) => /^decode(Chunk|Tile|Bytes)?$/.test(functionName) && module.startsWith("dist/wasm/");
/** One of the package's modules (as `moduleAt` names them). */
const isPackageModule = (module) => /^(dist|packages)\//.test(module);

/**
 * What a main-thread profile shows: `decodeMs`, the time in samples inside the package's wasm
 * decode calls (`isDecodeCall`); `packageMs`, inside any of the package's code (its modules or
 * wasm); `busyMs`, not idle.
 */
function profiled(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const moduleOf = ({ url, lineNumber }) => (url.endsWith("/viewer.bundle.js") ? moduleAt[lineNumber] ?? "" : "");
  const isDecode = (f) => isDecodeCall(f.functionName, moduleOf(f));
  const isPackage = (f) => isPackageModule(moduleOf(f)) || f.functionName.startsWith("wasm-function");
  const figures = { decodeMs: 0, packageMs: 0, busyMs: 0 };
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    if (["(idle)", "(program)"].includes(nodes.get(id).callFrame.functionName)) return;
    figures.busyMs += ms;
    let decode = false;
    let pkg = false;
    for (let at = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at).callFrame;
      decode ||= isDecode(frame);
      pkg ||= isPackage(frame);
    }
    if (decode) figures.decodeMs += ms;
    if (pkg) figures.packageMs += ms;
  });
  return figures;
}

/**
 * From V8's call counts on the main thread (exact, where a sampling profile can miss a call):
 * `decodeCalls`, calls to the package's wasm decode functions (`isDecodeCall`); `packageCalls`,
 * to any function of the package's modules (so that no decode call means something: the
 * package ran there).
 */
function counted(coverage) {
  const script = coverage.find((s) => s.url.endsWith("/viewer.bundle.js"));
  assert.ok(script, "the bundle's call counts");
  const calls = { decodeCalls: 0, packageCalls: 0 };
  for (const { functionName, ranges: [whole] } of script.functions) {
    const module = moduleAt[lineAt(whole.startOffset)];
    if (isDecodeCall(functionName, module)) calls.decodeCalls += whole.count;
    if (isPackageModule(module)) calls.packageCalls += whole.count;
  }
  return calls;
}

/** One page load of the viewer: what it answered, and its main thread's profile while it loaded. */
async function render(mode, variable) {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  let profile;
  let coverage;
  await page.exposeFunction("__loading", async (what) => {
    if (what === "start") {
      // Call counts, exact (V8's precise coverage): taking them once resets them to zero.
      await cdp.send("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
      await cdp.send("Profiler.takePreciseCoverage");
      await cdp.send("Profiler.start");
    } else {
      ({ profile } = await cdp.send("Profiler.stop"));
      ({ result: coverage } = await cdp.send("Profiler.takePreciseCoverage"));
      await cdp.send("Profiler.stopPreciseCoverage");
    }
  });
  const query = new URLSearchParams({ mode, variable, store: "store.zarr", points: JSON.stringify(POINTS), clim: JSON.stringify(CLIM) });
  await page.goto(`http://127.0.0.1:${server.address().port}/target/viewer/index.html?${query}`);
  await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 120000 });
  const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
  if (result) writeFileSync(join(out, `${variable}-${mode}.png`), Buffer.from(result.pixels.split(",")[1], "base64"));
  await page.close();
  assert.equal(error, undefined);
  assert.deepEqual(errors, []);
  assert.ok(profile, "the page was profiled while the layer loaded");
  return { ...result, ...profiled(profile), ...counted(coverage) };
}

/** The value the package's `get` read at a point (the cell the point is in). */
function expectedAt(values, [lng, lat]) {
  const i = Math.min(H - 1, Math.floor(((90 - lat) * H) / 180));
  const j = Math.min(W - 1, Math.floor(((lng + 180) * W) / 360));
  const v = values.data[i * W + j];
  return Number.isNaN(v) ? "NaN" : v;
}

for (const variable of ["packed", "sst"]) {
  test(`zarr-layer renders ${variable} through the wrapped store as through registerCodecs(), and decodes no chunk on its main thread`, async () => {
    const runs = { registry: [], wrapped: [] };
    // Taken in turns, three loads each.
    for (let round = 0; round < 3; round++) {
      for (const mode of ["registry", "wrapped"]) runs[mode].push(await render(mode, variable));
    }
    const [reference] = runs.registry;
    for (const r of [...runs.registry, ...runs.wrapped]) {
      assert.equal(r.pixels, reference.pixels, "the same pixels");
      assert.deepEqual(r.values, reference.values, "the same value queries");
    }
    // The queries answer the package's own values (float32 in the layer: compared as float32);
    // a point whose value is NaN (no data) has no answer.
    const want = POINTS.map((p) => expectedAt(written[variable], p));
    assert.deepEqual(reference.values.map((v) => (v.length ? Math.fround(v[0]) : "NaN")), want.map((v) => (v === "NaN" ? v : Math.fround(v))));
    assert.ok(want.includes("NaN") && want.filter((v) => v !== "NaN").length >= 6);
    // The picture is not blank: many colours.
    assert.ok(reference.pixels.length > 20000, "a drawn map");
    const median = (mode, key) => runs[mode].map((r) => r[key]).sort((a, b) => a - b)[1];
    const figures = (mode) => `decode ${median(mode, "decodeMs").toFixed(1)} ms, the package ${median(mode, "packageMs").toFixed(1)} ms, busy ${median(mode, "busyMs").toFixed(0)} ms, longest task ${median(mode, "longest").toFixed(1)} ms, load ${median(mode, "loadMs").toFixed(0)} ms`;
    console.log(`${variable} per load: ${JSON.stringify(Object.fromEntries(Object.entries(runs).map(([m, rs]) => [m, rs.map((r) => [+r.decodeMs.toFixed(1), r.decodeCalls, r.packageCalls])])))}`);
    console.log(`${variable}, main thread while the layer loads (medians of 3): registerCodecs ${figures("registry")}; wrapped with a pool ${figures("wrapped")}`);
    // With registerCodecs() zarrita decodes every chunk on the main thread, through the package's
    // codecs: the call counts see it (else the check below could not fail). The sampled time is
    // printed only: on two busy cores a load's samples once missed every decode call (CI: 0 ms).
    for (const r of runs.registry) assert.ok(r.decodeCalls > 0, `registerCodecs: no decode call counted on the main thread (${r.decodeCalls})`);
    // The wrapped store decodes them in its workers: not one decode call on the main thread.
    for (const r of runs.wrapped) {
      assert.ok(r.packageCalls > 0, "wrapped: the package's calls counted on the main thread");
      assert.equal(r.decodeCalls, 0, "wrapped: a chunk decoded on the main thread");
    }
  });
}
