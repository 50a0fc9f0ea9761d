// The demo: reads a packed temperature field with zarrita and zarr-wasm-codecs, draws a month,
// and compares the packed copies with the float64 original and with zarrita's own codecs.
import * as zarr from "zarrita";
import { createChain, loadZfp, registerCodecs } from "zarr-wasm-codecs";
import { COLORMAP, colorOf } from "./colormap.js";

const DATA = new URL("./data/sample/", import.meta.url);
// zarrita's built-in JavaScript codecs, kept to time against.
const builtin = new Map(["scale_offset", "cast_value"].map((name) => [name, zarr.registry.get(name)]));
registerCodecs();

const $ = (id) => document.getElementById(id);
const state = { store: "uint8", t: 0, data: null, original: null, summary: null };
let manifest;
const opened = new Map();

async function openStore(name) {
  if (!opened.has(name)) {
    const url = new URL(manifest.stores[name].path, DATA).href;
    const store = new zarr.FetchStore(url);
    const arr = await zarr.open.v3(store, { kind: "array" });
    const meta = await (await fetch(`${url}/zarr.json`)).json();
    opened.set(name, { store, arr, meta });
  }
  return opened.get(name);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Milliseconds per call of `fn`: the median of 5 batches, each repeating `fn` for at least 4 ms,
 * since browsers coarsen `performance.now()` (to 100 µs without cross-origin isolation) and a
 * chunk decodes faster than that.
 */
function timeIt(fn) {
  fn();
  const perCall = [];
  for (let batch = 0; batch < 5; batch++) {
    let calls = 0;
    const t0 = performance.now();
    let elapsed = 0;
    while (elapsed < 4) {
      fn();
      calls++;
      elapsed = performance.now() - t0;
    }
    perCall.push(elapsed / calls);
  }
  return median(perCall);
}

/** zarrita's built-in scale_offset + cast_value over one stored chunk, as its pipeline runs them. */
async function builtinDecoder(meta) {
  const chunkShape = meta.chunk_grid.configuration.chunk_shape;
  const base = { dataType: meta.data_type, shape: chunkShape, codecs: meta.codecs, fillValue: NaN };
  const [so, cv] = meta.codecs;
  const soCodec = (await builtin.get("scale_offset")()).fromConfig(so.configuration, base);
  const cvCodec = (await builtin.get("cast_value")()).fromConfig(cv.configuration, base);
  const Stored = { uint8: Uint8Array, int16: Int16Array }[cv.configuration.data_type];
  const stride = chunkShape.map((_, i) => chunkShape.slice(i + 1).reduce((a, b) => a * b, 1));
  return (bytes) => {
    const copy = bytes.slice();
    const chunk = { data: new Stored(copy.buffer), shape: chunkShape, stride };
    return soCodec.decode(cvCodec.decode(chunk)).data;
  };
}

/** A stored chunk's decoder with this package: the zfp module for zfp, else a core chain. */
async function wasmDecoder(meta) {
  const chunkShape = meta.chunk_grid.configuration.chunk_shape;
  const zfp = meta.codecs.find((c) => c.name === "zfp");
  if (zfp) {
    const { ZfpCodec } = await loadZfp();
    const codec = new ZfpCodec(JSON.stringify(zfp.configuration), meta.data_type, JSON.stringify(chunkShape));
    return (bytes) => codec.decode(bytes);
  }
  const chain = await createChain({ ...meta, chunk_shape: chunkShape });
  return (bytes) => chain.decode(bytes);
}

async function timeChunks(name, t) {
  const { store, meta } = await openStore(name);
  const wasm = await wasmDecoder(meta);
  // zarrita has no zfp of its own to compare with.
  const js = meta.codecs.some((c) => c.name === "zfp") ? null : await builtinDecoder(meta);
  // The chunks month t touches: its row of the chunk grid along time, 2 x 2 in lat/lon.
  const [ct, cy, cx] = meta.chunk_grid.configuration.chunk_shape;
  const [, ny, nx] = meta.shape;
  const rows = [];
  for (let i = 0; i < Math.ceil(ny / cy); i++) {
    for (let j = 0; j < Math.ceil(nx / cx); j++) {
      const key = `c/${Math.floor(t / ct)}/${i}/${j}`;
      const bytes = await store.get(`/${key}`);
      if (!bytes) continue;
      rows.push({
        key,
        bytes: bytes.length,
        wasm: timeIt(() => wasm(bytes)),
        js: js ? timeIt(() => js(bytes)) : null,
      });
    }
  }
  return rows;
}

function summarize(data, original) {
  let min = Infinity;
  let max = -Infinity;
  let nan = 0;
  let maxAbsError = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (Number.isNaN(v)) {
      nan++;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    if (original) maxAbsError = Math.max(maxAbsError, Math.abs(v - original[i]));
  }
  return { min, max, nan, maxAbsError };
}

function drawMap(data, [ny, nx]) {
  const canvas = $("map");
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(nx, ny);
  for (let i = 0; i < ny * nx; i++) {
    image.data.set(colorOf(data[i], manifest.min, manifest.max), i * 4);
  }
  ctx.putImageData(image, 0, 0);
}

function drawLegend() {
  const ctx = $("legend-bar").getContext("2d");
  const image = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++) image.data.set([...COLORMAP.subarray(i * 3, i * 3 + 3), 255], i * 4);
  ctx.putImageData(image, 0, 0);
  const fmt = (v) => `${v.toFixed(1)}`;
  $("tick-lo").textContent = fmt(manifest.min);
  $("tick-mid").textContent = fmt((manifest.min + manifest.max) / 2);
  $("tick-hi").textContent = fmt(manifest.max);
}

function fillTable(table, header, rows) {
  table.replaceChildren();
  const tr = (cells, tag) => {
    const row = document.createElement("tr");
    for (const c of cells) {
      const cell = document.createElement(tag);
      cell.textContent = c;
      row.append(cell);
    }
    return row;
  };
  if (header) table.append(tr(header, "th"));
  for (const r of rows) table.append(tr(r, "td"));
}

/** Shows month `t` of the copy stored as `name`. */
async function show(name = state.store, t = state.t) {
  document.body.dataset.state = "loading";
  state.store = name;
  state.t = t;
  const { arr } = await openStore(name);
  const { arr: truth } = await openStore("float64");
  const [view, original] = await Promise.all([
    zarr.get(arr, [t, null, null]),
    zarr.get(truth, [t, null, null]),
  ]);
  state.data = view.data;
  state.original = original.data;
  state.shape = view.shape;
  drawMap(view.data, view.shape);
  state.summary = { store: name, t, shape: view.shape, ...summarize(view.data, original.data) };
  $("time-label").textContent = manifest.time[t];
  const s = state.summary;
  fillTable($("stats"), null, [
    ["stored as", name],
    ["shape", `[${s.shape}]`],
    ["min / max", `${s.min.toFixed(2)} / ${s.max.toFixed(2)} °C`],
    ["missing (NaN)", `${s.nan} of ${view.data.length}`],
    ["max |decoded − float64 original|", `${s.maxAbsError.toExponential(3)} °C`],
    ["whole array, all months", `${manifest.stores[name].max_abs_error.toExponential(3)} °C`],
  ]);
  const rows = await timeChunks(name, t);
  fillTable(
    $("timing"),
    ["chunk", "stored", "zarr-wasm-codecs", "zarrita JS", "speed-up"],
    rows.map((r) => [
      r.key,
      `${r.bytes} B`,
      `${(r.wasm * 1000).toFixed(1)} µs`,
      r.js === null ? "—" : `${(r.js * 1000).toFixed(1)} µs`,
      r.js === null ? "—" : `${(r.js / r.wasm).toFixed(1)}×`,
    ]),
  );
  const chunkShape = (await openStore(name)).meta.chunk_grid.configuration.chunk_shape;
  $("timing-note").textContent =
    `The chunks this month touches, each decoded whole to float64 (${chunkShape.join(" × ")} values): ` +
    `median time per decode over 5 batches of repeated decodes.`;
  if (lastPointer) probe(lastPointer);
  document.body.dataset.state = "ready";
  return state.summary;
}

let lastPointer = null;

function probe(event) {
  if (!state.data) return;
  lastPointer = { target: event.target, clientX: event.clientX, clientY: event.clientY };
  const rect = event.target.getBoundingClientRect();
  const [ny, nx] = state.shape;
  const j = Math.min(nx - 1, Math.floor(((event.clientX - rect.left) / rect.width) * nx));
  const i = Math.min(ny - 1, Math.floor(((event.clientY - rect.top) / rect.height) * ny));
  const lat = manifest.lat[i];
  const lon = manifest.lon[j];
  const v = state.data[i * nx + j];
  const where = `${Math.abs(lat).toFixed(1)}°${lat >= 0 ? "N" : "S"}, ${lon.toFixed(1)}°E`;
  $("probe").textContent = Number.isNaN(v) ? `${where}: missing (land)` : `${where}: ${v.toFixed(2)} °C`;
}

async function main() {
  manifest = await (await fetch(new URL("manifest.json", DATA))).json();
  $("time").max = String(manifest.time.length - 1);
  drawLegend();
  $("time").addEventListener("input", (e) => show(state.store, Number(e.target.value)).catch(fail));
  for (const radio of document.querySelectorAll('input[name="store"]')) {
    radio.addEventListener("change", (e) => show(e.target.value, state.t).catch(fail));
  }
  $("map").addEventListener("mousemove", probe);
  return show();
}

function fail(error) {
  document.body.dataset.state = "error";
  $("error").textContent = `${error}\n${error.cause ?? ""}`;
  console.error(error);
}

/** For tests and `npm run demo -- --check`. */
window.demo = {
  ready: main().catch((e) => {
    fail(e);
    throw e;
  }),
  show,
  state,
  get manifest() {
    return manifest;
  },
  /** One month of a copy as a Float64Array, read through zarrita and this package. */
  async readMonth(name, t) {
    const { arr } = await openStore(name);
    return (await zarr.get(arr, [t, null, null])).data;
  },
  /** The whole array through zarrita and this package: shape, min/max, NaN count. */
  async readAll(name = state.store) {
    const { arr } = await openStore(name);
    const { data, shape } = await zarr.get(arr);
    return { shape, ...summarize(data, null) };
  },
};
