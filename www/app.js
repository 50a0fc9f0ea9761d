// The demo: real packed data (www/data/generate.py) read with zarrita and zarr-wasm-codecs,
// drawn as a map, every stored form compared under the cursor, and the whole view's decode
// time against zarrita's own codecs.
import * as zarr from "zarrita";
import { errorCode, get, getDecoded, getStored, gpuDecoder, registerCodecs, webgl2Textures } from "zarr-wasm-codecs";
import { COLORMAPS, colorOf } from "./colormap.js";
import { colormapTexture as mapTexture, drawFull, PAINT, program } from "./gl.js";
import { gribSection } from "./grib.js";

const DATA = new URL("./data/real/", import.meta.url);
const FORMS = ["scale_offset", "cf", "uint8", "zfp", "pcodec", "original"];
const FORM_LABELS = {
  original: "float32 original", cf: "CF int16 (xarray)", scale_offset: "scale_offset + cast_value int16",
  uint8: "uint8 (planPacking)", zfp: "zfp reversible", pcodec: "pcodec (numcodecs)",
};
// zarrita's built-in JavaScript codecs, kept to time against (registerCodecs replaces them).
const BUILTIN = new Map(["scale_offset", "cast_value"].map((name) => [name, zarr.registry.get(name)]));
registerCodecs();
const OURS = new Map(["scale_offset", "cast_value"].map((name) => [name, zarr.registry.get(name)]));

const params = new URL(location.href).searchParams;
// Timing: rounds per form, and each side's window in ms (repeated reads until it is filled).
const ROUNDS = Number(params.get("rounds") ?? 11);
const WINDOW_MS = Number(params.get("window") ?? 15);

/**
 * What the page calls each variable, in units a reader expects; the file's own attributes are
 * shown beside them (the legend's #units-note), with what is wrong or unclear in them said.
 */
const DISPLAY = {
  "oisst/sst": { name: "Sea-surface temperature", units: "°C" },
  "oisst/anom": { name: "Sea-surface temperature anomaly (from the daily climatology)", units: "°C" },
  "oisst/ice": {
    name: "Sea-ice concentration", units: "fraction of the cell (0–1)",
    note: (v) => `The file's units attribute says "${v.units}", but its values run from 0 to 1: they are fractions of the cell, drawn and shown as such.`,
  },
  "bcsd/tas": { name: "Monthly mean air temperature", units: "°C" },
  "bcsd/pr": {
    name: "Monthly precipitation", units: "mm/month",
    note: (v) => `The file's units attribute "${v.units}" means millimetres per month.`,
  },
};

const $ = (id) => document.getElementById(id);
// `times`: the time step last shown of each dataset, kept while another dataset is shown.
const state = { key: "oisst/sst", form: "scale_offset", t: 0, show: "values", times: {}, views: null };
let manifest;

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

const opened = new Map();

/** The zarrita array of one variable's form (over HTTP), opened once. */
function openForm(key, form) {
  const id = `${key}/${form}`;
  if (!opened.has(id)) {
    const path = variableOf(key).forms[form].path;
    opened.set(id, zarr.open.v3(new zarr.FetchStore(new URL(path, DATA).href.replace(/\/$/, "")), { kind: "array" }));
  }
  return opened.get(id);
}

const datasetOf = (key) => manifest.datasets[key.split("/")[0]];
const variableOf = (key) => datasetOf(key).variables[key.split("/")[1]];
const selectionOf = (key, t) => (variableOf(key).has_time ? [t, null, null] : null);

/** One view (a time step) of a form as a Float64Array, as the package reads it. */
async function readView(key, form, t) {
  const arr = await openForm(key, form);
  const selection = selectionOf(key, t);
  // The CF form is int16 with scale_factor and _FillValue: getDecoded applies them.
  if (form === "cf") return (await getDecoded(arr, selection)).data;
  const { data } = await get(arr, selection);
  // zfp, pcodec and the original are float32 arrays: widened (exactly) for display.
  return data instanceof Float64Array ? data : Float64Array.from(data);
}

// ---------------------------------------------------------------------------------------------
// Drawing
// ---------------------------------------------------------------------------------------------

/** Round tick values over [lo, hi]: steps of 1, 2 or 5 times a power of ten, about `n` of them. */
function niceTicks(lo, hi, n) {
  const raw = (hi - lo) / n;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) ticks.push(Number(v.toFixed(10)));
  return ticks;
}

/** Degree ticks over [lo, hi]: the smallest step of 1, 2, 5, 10, 15, 30 or 60 degrees giving at most `n`. */
function degreeTicks(lo, hi, n) {
  const step = [0.5, 1, 2, 5, 10, 15, 30, 60, 90].find((s) => (hi - lo) / s <= n) ?? 90;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) ticks.push(v);
  return ticks;
}

/** The map's geometry: cell size on screen, the grid's edges in degrees, margins for labels. */
function geometry(ds) {
  const ny = ds.lat.length;
  const nx = ds.lon.length;
  // As wide as the page allows (up to 900 px; 48 px of labels on the left, 12 on the right).
  const room = Math.min(900, contentWidth() - 60);
  const cell = Math.max(1, Math.min(room / nx, 460 / ny));
  const dlat = Math.abs(ds.lat[0] - ds.lat[1]);
  const dlon = Math.abs(ds.lon[1] - ds.lon[0]);
  return {
    nx, ny, cell, left: 48, top: 8, width: nx * cell, height: ny * cell,
    lat0: ds.lat[0] + dlat / 2, lat1: ds.lat[ny - 1] - dlat / 2,
    lon0: ds.lon[0] - dlon / 2, lon1: ds.lon[nx - 1] + dlon / 2,
  };
}

/** The width of the page's content (the body's, less its padding), in CSS pixels. */
function contentWidth() {
  const style = getComputedStyle(document.body);
  return document.body.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
}

/** Sizes `canvas` to W x H CSS pixels at the screen's resolution; its context, in CSS pixels. */
function sizeCanvas(canvas, W, H) {
  canvas.width = W * devicePixelRatio;
  canvas.height = H * devicePixelRatio;
  canvas.style.width = `${W}px`;
  canvas.style.height = `${H}px`;
  const ctx = canvas.getContext("2d");
  ctx.scale(devicePixelRatio, devicePixelRatio);
  return ctx;
}

const fmtLat = (v) => `${Math.abs(v)}°${v > 0 ? "N" : v < 0 ? "S" : ""}`;
const fmtLon = (v) => `${Math.abs(v)}°${v > 0 ? "E" : v < 0 ? "W" : ""}`;

/** Places the map (one pixel a cell, scaled up) and shows the canvas of `route`. */
function placeMap(g, route) {
  Object.assign($("map").style, { left: `${g.left}px`, top: `${g.top}px`, width: `${g.width}px`, height: `${g.height}px` });
  $("map-cpu").hidden = route !== "cpu";
  $("map-gpu").hidden = route !== "gpu";
  $("map").dataset.route = route;
}

/**
 * What the map shows: the drawn form's values on the variable's fixed scale, or the form's
 * difference from the original on a diverging scale symmetric about 0 that holds every
 * difference (`lossless` when there is none).
 */
function picture(key, form, how, views) {
  const v = variableOf(key);
  if (how !== "difference") return { values: views[form], scale: v.scale, colormap: v.colormap, difference: false };
  const values = views[form].map((x, k) => x - views.original[k]);
  let most = 0;
  for (const d of values) if (Number.isFinite(d)) most = Math.max(most, Math.abs(d));
  const edge = most === 0 ? 1 : niceCeil(most);
  return { values, scale: [-edge, edge], colormap: "diverging", difference: true, lossless: most === 0, most };
}

/** The smallest of 1, 2, 2.5 or 5 times a power of ten at or above `x` (> 0). */
function niceCeil(x) {
  const power = 10 ** Math.floor(Math.log10(x));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= x);
}

/** Draws `pic` (values on the CPU: get's Float64Array, or differences): each value's colour, into a 2-D canvas. */
function drawMap(pic) {
  const g = geometry(datasetOf(state.key));
  const map = $("map-cpu");
  map.width = g.nx;
  map.height = g.ny;
  placeMap(g, "cpu");
  const image = map.getContext("2d").createImageData(g.nx, g.ny);
  const table = COLORMAPS[pic.colormap];
  const [lo, hi] = pic.scale;
  for (let i = 0; i < pic.values.length; i++) image.data.set(colorOf(pic.values[i], lo, hi, table), i * 4);
  map.getContext("2d").putImageData(image, 0, 0);
  drawOverlay();
}

// The packed forms (uint8, scale_offset int16) are drawn by the GPU: their stored values are
// uploaded as they are (getStored) and the fragment shader decodes each with the code
// gpuDecoder generates from the array's codecs, then colours it as colorOf does.
const GPU_FORMS = new Set(["uint8", "scale_offset"]);
let gpu;

/** The map's WebGL2 context (null: none here), with each colour map as a texture. */
function gpuContext() {
  if (gpu !== undefined) return gpu;
  const gl = $("map-gpu").getContext("webgl2", { preserveDrawingBuffer: true, premultipliedAlpha: false, antialias: false });
  gpu = gl && { gl, programs: new Map(), colormaps: new Map() };
  return gpu;
}

function colormapTexture(name) {
  const { gl, colormaps } = gpu;
  if (!colormaps.has(name)) colormaps.set(name, mapTexture(gl, COLORMAPS[name]));
  return colormaps.get(name);
}

/** The fragment shader: the generated decode, then the colour map (NaN transparent). */
const mapShader = (decoder) => `#version 300 es
precision highp float;
precision highp int;
${decoder.glsl}
${PAINT}
void main() {
  ivec2 size = textureSize(zarrStored, 0);
  // The stored rows run north to south; the canvas's y runs up.
  paint(zarrDecodeAt(ivec2(gl_FragCoord.x, float(size.y) - gl_FragCoord.y)));
}`;

/**
 * Draws time step `t` of a packed form on the GPU; false where it cannot (no WebGL2, or a chain
 * gpuDecoder refuses), and the map is drawn from get's values instead.
 */
async function drawOnGpu(key, form, t, how) {
  if (how !== "values" || !GPU_FORMS.has(form) || !gpuContext()) return false;
  const arr = await openForm(key, form);
  const id = `${key}/${form}`;
  if (!gpu.programs.has(id)) {
    const decoder = await gpuDecoder(arr).catch((e) => {
      if (errorCode(e) === "NOT_ON_GPU") return null;
      throw e;
    });
    gpu.programs.set(id, decoder && { decoder, program: program(gpu.gl, mapShader(decoder)) });
  }
  const made = gpu.programs.get(id);
  if (!made) return false;
  const stored = await getStored(arr, selectionOf(key, t));
  return () => {
    const { gl } = gpu;
    const v = variableOf(key);
    const g = geometry(datasetOf(key));
    const canvas = $("map-gpu");
    canvas.width = g.nx;
    canvas.height = g.ny;
    placeMap(g, "gpu");
    gl.viewport(0, 0, g.nx, g.ny);
    gl.useProgram(made.program);
    // The table once per array; each draw uploads the stored values only.
    const textures = webgl2Textures(gl, made.decoder, stored, { unit: 0, program: made.program, table: made.table });
    made.table = textures.table;
    gl.activeTexture(gl.TEXTURE2);
    gl.bindTexture(gl.TEXTURE_2D, colormapTexture(v.colormap));
    gl.uniform1i(gl.getUniformLocation(made.program, "colormap"), 2);
    gl.uniform1f(gl.getUniformLocation(made.program, "lo"), v.scale[0]);
    gl.uniform1f(gl.getUniformLocation(made.program, "hi"), v.scale[1]);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
    drawFull(gl);
    gl.deleteTexture(textures.stored);
    const bytes = stored.data.byteLength;
    $("route").textContent =
      `Drawn by the GPU: the ${made.decoder.storedDataType} values as stored (${bytes.toLocaleString("en")} bytes, ` +
      `${stored.data.BYTES_PER_ELEMENT} a value, against ${(4 * stored.data.length).toLocaleString("en")} as float32) ` +
      "uploaded to a texture and decoded in the fragment shader by the code gpuDecoder generated from the array's " +
      "codecs. The values under the cursor are get's, in float64.";
    drawOverlay();
    return { uploaded: bytes, values: stored.data.length };
  };
}

/** The map's pixel for cell (i, j), from whichever canvas drew it: [r, g, b, a]. */
function pixelAt(i, j) {
  if ($("map").dataset.route === "gpu") {
    const { gl } = gpu;
    const out = new Uint8Array(4);
    gl.readPixels(j, $("map-gpu").height - 1 - i, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, out);
    return [...out];
  }
  return [...$("map-cpu").getContext("2d").getImageData(j, i, 1, 1).data];
}

/** Every cell's pixel (ny x nx, rows from the top), [r, g, b, a] each, read at once. */
function pixelsOf(ny, nx) {
  if ($("map").dataset.route === "gpu") {
    const { gl } = gpu;
    const height = $("map-gpu").height;
    const read = new Uint8Array(nx * height * 4);
    gl.readPixels(0, 0, nx, height, gl.RGBA, gl.UNSIGNED_BYTE, read);
    // WebGL's rows run from the bottom.
    const out = new Uint8Array(ny * nx * 4);
    for (let i = 0; i < ny; i++) out.set(read.subarray((height - 1 - i) * nx * 4, (height - i) * nx * 4), i * nx * 4);
    return out;
  }
  return new Uint8Array($("map-cpu").getContext("2d").getImageData(0, 0, nx, ny).data.buffer);
}

/** Graticule, axes with degree labels, and the cursor's cell. */
function drawOverlay() {
  const ds = datasetOf(state.key);
  const g = geometry(ds);
  const W = g.left + g.width + 12;
  const H = g.top + g.height + 26;
  $("plot").style.width = `${W}px`;
  $("plot").style.height = `${H}px`;
  const ctx = sizeCanvas($("overlay"), W, H);
  const x = (lon) => g.left + ((lon - g.lon0) / (g.lon1 - g.lon0)) * g.width;
  const y = (lat) => g.top + ((g.lat0 - lat) / (g.lat0 - g.lat1)) * g.height;
  ctx.font = "12px system-ui, sans-serif";
  ctx.fillStyle = "#333";
  ctx.strokeStyle = "rgba(40, 40, 50, 0.35)";
  ctx.lineWidth = 1;
  ctx.textAlign = "center";
  for (const lon of degreeTicks(g.lon0, g.lon1, 7)) {
    ctx.beginPath();
    ctx.moveTo(x(lon), g.top);
    ctx.lineTo(x(lon), g.top + g.height + 4);
    ctx.stroke();
    ctx.fillText(fmtLon(lon), x(lon), g.top + g.height + 18);
  }
  ctx.textAlign = "right";
  for (const lat of degreeTicks(g.lat1, g.lat0, 6)) {
    ctx.beginPath();
    ctx.moveTo(g.left - 4, y(lat));
    ctx.lineTo(g.left + g.width, y(lat));
    ctx.stroke();
    ctx.fillText(fmtLat(lat), g.left - 7, y(lat) + 4);
  }
  ctx.strokeStyle = "#777";
  ctx.strokeRect(g.left - 0.5, g.top - 0.5, g.width + 1, g.height + 1);
  if (state.cursor) {
    const { i, j } = state.cursor;
    ctx.strokeStyle = "#000";
    ctx.lineWidth = 2;
    ctx.strokeRect(g.left + j * g.cell - 1, g.top + i * g.cell - 1, g.cell + 2, g.cell + 2);
    ctx.strokeStyle = "#fff";
    ctx.lineWidth = 1;
    ctx.strokeRect(g.left + j * g.cell - 3, g.top + i * g.cell - 3, g.cell + 6, g.cell + 6);
  }
}

/** Values of `values` below and above [lo, hi] (NaN aside), and the extremes. */
function outside(values, lo, hi) {
  let below = 0;
  let above = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const x of values) {
    if (Number.isNaN(x)) continue;
    if (x < lo) below++;
    if (x > hi) above++;
    min = Math.min(min, x);
    max = Math.max(max, x);
  }
  return { below, above, min, max };
}

const fmtValue = (x) => (Math.abs(x) >= 100 ? x.toFixed(1) : x.toPrecision(3));

/**
 * The colour bar of `pic`, with an end arrow on each side some value of the view lies beyond
 * (drawn in the end colour), and the names, units and counts beside it.
 */
function drawLegend(pic) {
  const v = variableOf(state.key);
  const show = DISPLAY[state.key];
  const [lo, hi] = pic.scale;
  const W = Math.max(200, Math.min(440, contentWidth()));
  const ctx = sizeCanvas($("legend-axis"), W, 40);
  const table = COLORMAPS[pic.colormap];
  const { below, above, min, max } = outside(pic.values, lo, hi);
  // Room at each end for an arrow and for the end ticks' labels.
  const arrow = 12;
  const barX = 22;
  const barW = W - 2 * barX;
  for (let k = 0; k < barW; k++) {
    const [r, g, b] = colorOf(lo + ((hi - lo) * (k + 0.5)) / barW, lo, hi, table);
    ctx.fillStyle = `rgb(${r},${g},${b})`;
    ctx.fillRect(barX + k, 0, 1, 16);
  }
  ctx.strokeStyle = "#888";
  ctx.strokeRect(barX - 0.5, -0.5, barW + 1, 17);
  const triangle = (x, dir, rgb) => {
    ctx.beginPath();
    ctx.moveTo(x, 0);
    ctx.lineTo(x + dir * arrow, 8);
    ctx.lineTo(x, 16);
    ctx.closePath();
    ctx.fillStyle = `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;
    ctx.fill();
    ctx.stroke();
  };
  if (below) triangle(barX - 0.5, -1, table.slice(0, 3));
  if (above) triangle(barX + barW + 0.5, 1, table.slice(765, 768));
  $("legend").dataset.extend = below && above ? "both" : below ? "min" : above ? "max" : "none";
  ctx.fillStyle = "#333";
  ctx.font = "12px system-ui, sans-serif";
  ctx.textAlign = "center";
  const labels = [];
  for (const t of niceTicks(lo, hi, W < 320 ? 4 : 6)) {
    const px = barX + ((t - lo) / (hi - lo)) * barW;
    ctx.fillRect(px - 0.5, 16, 1, 5);
    ctx.fillText(String(t), px, 34);
    const half = ctx.measureText(String(t)).width / 2;
    labels.push({ text: String(t), from: px - half, to: px + half });
  }
  // Where the labels fell, for the page's test: each inside the canvas.
  state.legend = { width: W, labels };
  const form = FORM_LABELS[state.form];
  $("units").textContent = pic.difference
    ? `${form} − float32 original (${show.units})`
    : `${show.name} (${show.units})`;
  $("scale-note").textContent = pic.difference
    ? pic.lossless
      ? "Lossless: every value equals the original's, so the whole map is the scale's middle colour."
      : `Scale ±${pic.scale[1]}, holding every difference of this view (the largest is ${pic.most.toPrecision(3)} ${show.units}).`
    : "Fixed scale: the same colours for every time step and every storage form.";
  const parts = [];
  const u = pic.difference || !show.units.startsWith("fraction") ? ` ${show.units}` : "";
  if (below) parts.push(`${below} cell${below === 1 ? "" : "s"} below ${lo}${u} (down to ${fmtValue(min)}${u})`);
  if (above) parts.push(`${above} cell${above === 1 ? "" : "s"} above ${hi}${u} (up to ${fmtValue(max)}${u})`);
  $("clipped").textContent = parts.length
    ? `Outside the scale: ${parts.join("; ")}, drawn in the end colour${parts.length > 1 ? "s" : ""} (the arrow${parts.length > 1 ? "s" : ""}).`
    : "";
  $("units-note").textContent = `The file's attributes: long_name "${v.long_name}", units "${v.units}".` +
    (show.note ? ` ${show.note(v)}` : "");
  $("missing-label").textContent = state.key.startsWith("oisst")
    ? state.key.endsWith("ice") ? "missing: land, and open water with no ice" : "missing: land"
    : "missing: ocean (the data cover land)";
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

// ---------------------------------------------------------------------------------------------
// The cursor
// ---------------------------------------------------------------------------------------------

/**
 * The readout of the cell under the cursor, from the views on screen; cleared while there is
 * no cursor on this map or its views are still loading, so it never describes another map.
 */
function showProbe() {
  const ds = datasetOf(state.key);
  const v = variableOf(state.key);
  const units = DISPLAY[state.key].units;
  const header = ["stored as", `value (${units})`, "− original"];
  if (!state.cursor || !state.views) {
    // The rows are there before the cursor is: the panel keeps its height.
    $("where").textContent = state.views ? "Move the cursor over the map." : "Loading…";
    $("probe").dataset.cell = "none";
    fillTable($("probe"), header, FORMS.map((form) => [FORM_LABELS[form], "—", form === "original" ? "" : "—"]));
    return;
  }
  $("probe").dataset.cell = "shown";
  const { i, j } = state.cursor;
  const k = i * ds.lon.length + j;
  $("where").textContent = `${fmtLat(ds.lat[i])}, ${fmtLon(ds.lon[j])} (row ${i}, column ${j})` +
    (v.has_time ? `, ${ds.time[state.t]}` : "");
  const original = state.views.original[k];
  const fmt = (x) => (Number.isNaN(x) ? "missing" : x.toPrecision(7));
  fillTable($("probe"), header, FORMS.map((form) => {
    const x = state.views[form][k];
    const err = Number.isNaN(x) || Number.isNaN(original) ? (Number.isNaN(x) === Number.isNaN(original) ? "—" : "differs") : (x - original).toExponential(2);
    return [FORM_LABELS[form], fmt(x), form === "original" ? "" : err];
  }));
}

function onPointer(event) {
  const g = geometry(datasetOf(state.key));
  const rect = $("map").getBoundingClientRect();
  const j = Math.floor((event.clientX - rect.left) / g.cell);
  const i = Math.floor((event.clientY - rect.top) / g.cell);
  if (i < 0 || j < 0 || i >= g.ny || j >= g.nx) return;
  state.cursor = { i, j };
  drawOverlay();
  showProbe();
}

// ---------------------------------------------------------------------------------------------
// Sizes and timings
// ---------------------------------------------------------------------------------------------

const codecLists = new Map();

/** A form's codecs, from its zarr.json (names, with zfp's mode), read once. */
function codecsOf(key, form) {
  const id = `${key}/${form}`;
  if (!codecLists.has(id)) {
    codecLists.set(id, openForm(key, form).then(async (arr) => {
      const meta = JSON.parse(new TextDecoder().decode(await arr.store.get(arr.resolve("zarr.json").path)));
      return meta.codecs.map((c) => (c.name === "zfp" ? `zfp (${c.configuration?.mode ?? "?"})` : c.name));
    }));
  }
  return codecLists.get(id);
}

/** Codecs that only lay values out or change their type: a chain of only these is uncompressed. */
const UNCOMPRESSED = new Set(["bytes", "scale_offset", "cast_value", "transpose"]);

/** The largest and the RMS difference of `values` from `original` where both have a value, and the cells missing in one only. */
function errorOf(values, original) {
  let most = 0;
  let sum = 0;
  let n = 0;
  let missing = 0;
  for (let k = 0; k < values.length; k++) {
    const [x, o] = [values[k], original[k]];
    if (Number.isNaN(x) || Number.isNaN(o)) {
      if (Number.isNaN(x) !== Number.isNaN(o)) missing++;
      continue;
    }
    const d = x - o;
    most = Math.max(most, Math.abs(d));
    sum += d * d;
    n++;
  }
  return { most, rms: n ? Math.sqrt(sum / n) : 0, missing };
}

/** Each form's size (the whole array) and error against the original (the view on the map). */
function showBytes(codecs) {
  const v = variableOf(state.key);
  const units = DISPLAY[state.key].units;
  const originalPerValue = v.forms.original.stored_bytes / v.forms.original.values;
  const fmtErr = (x) => (x === 0 ? "0" : x.toPrecision(2));
  const rows = FORMS.map((form, n) => {
    const f = v.forms[form];
    const per = f.stored_bytes / f.values;
    const compressed = codecs[n].some((c) => !UNCOMPRESSED.has(c.replace(/ .*/, "")));
    const e = form === "original" ? null : errorOf(state.views[form], state.views.original);
    const exact = e && e.most === 0 && e.missing === 0;
    return [
      FORM_LABELS[form],
      codecs[n].join(", ") + (form === "cf" ? " (scale_factor in the attributes)" : ""),
      compressed ? "yes" : "no",
      f.stored_bytes.toLocaleString("en"),
      per.toFixed(2),
      `${((100 * per) / originalPerValue).toFixed(0)}%`,
      e ? (exact ? "lossless" : `${fmtErr(e.most)} / ${fmtErr(e.rms)}${e.missing ? `, ${e.missing} cells missing in one only` : ""}`) : "(the reference)",
    ];
  });
  fillTable($("bytes"), ["stored as", "codecs", "compressed", "bytes", "per value", "of the original", `max / RMS error (${units})`], rows);
  const bound = v.forms.uint8.plan?.max_abs_error;
  $("bytes-note").textContent =
    "Bytes are the whole array's, every time step; the errors are the view's on the map. " +
    "The uint8, int16 and float32 forms store their values uncompressed; zfp (reversible) and pcodec compress them losslessly. " +
    (bound === undefined ? "" : `planPacking bounds the uint8 form's error by ±${bound.toPrecision(3)} ${units}. `) +
    (state.key.startsWith("oisst")
      ? "The int16 forms hold the netCDF file's own integers: their differences from the float32 original (below 1e-6) are the original's float32 rounding of those integers × 0.01, not packing error."
      : "");
}

/** A form's chunks in memory (a Map store), so that the timings measure decoding, not HTTP. */
async function memoryCopy(key, form) {
  const id = `${key}/${form}/memory`;
  if (!opened.has(id)) {
    // Every key of the array (zarr.json and each chunk) from the store it was opened over.
    const arr = await openForm(key, form);
    const grid = arr.shape.map((n, d) => Math.ceil(n / arr.chunks[d]));
    const chunks = grid.reduce((acc, n) => acc.flatMap((p) => Array.from({ length: n }, (_, c) => [...p, c])), [[]]);
    const store = new Map();
    await Promise.all(["/zarr.json", ...chunks.map((c) => `/c/${c.join("/")}`)].map(async (k) => {
      const bytes = await arr.store.get(k);
      if (bytes) store.set(k, bytes);
    }));
    opened.set(id, store);
  }
  return opened.get(id);
}

/** An array over `store` whose codecs are zarrita's own (loaded while they are registered). */
async function withBuiltinCodecs(store, selection) {
  for (const [name, loader] of BUILTIN) zarr.registry.set(name, loader);
  try {
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    await zarr.get(arr, selection); // loads and keeps the codecs
    return arr;
  } finally {
    for (const [name, loader] of OURS) zarr.registry.set(name, loader);
  }
}

/** Milliseconds per call of async `fn`: repeated for at least WINDOW_MS (timers are coarse). */
async function perCall(fn) {
  let calls = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < WINDOW_MS) {
    await fn();
    calls++;
    elapsed = performance.now() - t0;
  }
  return elapsed / calls;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))];
};

/**
 * The whole view's decode time, this package against zarrita's JavaScript codecs, from chunks
 * in memory: ROUNDS rounds, the two sides alternating which goes first, after one warm-up
 * round; medians with the interquartile range.
 */
async function timeView(key, t) {
  const v = variableOf(key);
  const selection = selectionOf(key, t);
  const rows = [];
  for (const form of FORMS) {
    const store = await memoryCopy(key, form);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    let ours;
    let theirs = null;
    if (form === "cf") {
      ours = () => getDecoded(arr, selection);
      // What a zarrita user writes for CF packing: zarr.get, then scale and mask in JavaScript.
      const { scale_factor: scale = 1, add_offset: offset = 0, _FillValue: fill } = arr.attrs;
      theirs = async () => {
        const { data } = await zarr.get(arr, selection);
        const out = new Float64Array(data.length);
        for (let i = 0; i < data.length; i++) out[i] = data[i] === fill ? NaN : data[i] * scale + offset;
        return out;
      };
    } else {
      ours = () => get(arr, selection);
      if (form === "scale_offset" || form === "uint8") {
        const builtin = await withBuiltinCodecs(store, selection);
        theirs = () => zarr.get(builtin, selection);
      } else if (form === "original") {
        theirs = () => zarr.get(arr, selection);
      }
    }
    const a = [];
    const b = [];
    await ours();
    if (theirs) await theirs();
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0 || !theirs) {
        a.push(await perCall(ours));
        if (theirs) b.push(await perCall(theirs));
      } else {
        b.push(await perCall(theirs));
        a.push(await perCall(ours));
      }
    }
    rows.push({ form, ours: a, theirs: theirs ? b : null });
  }
  const values = v.forms.original.values / (v.has_time ? datasetOf(key).time.length : 1);
  return { rows, values };
}

/** The smallest step of this page's clock, in ms (browsers coarsen it: 0.1 ms unless isolated). */
function timerStep() {
  let step = Infinity;
  let last = performance.now();
  for (let ticks = 0, spins = 0; ticks < 20 && spins < 1e7; spins++) {
    const now = performance.now();
    if (now > last) {
      step = Math.min(step, now - last);
      last = now;
      ticks++;
    }
  }
  return step;
}

/** What each row's two sides run. */
const COMPARES = {
  scale_offset: "get / zarr.get with zarrita's scale_offset and cast_value",
  uint8: "get / zarr.get with zarrita's scale_offset and cast_value",
  cf: "getDecoded / zarr.get, then scale_factor and _FillValue in a JavaScript loop",
  zfp: "get only: zarrita has no zfp codec",
  pcodec: "get only: zarrita has no pcodec codec",
  original: "get / zarr.get, the same bytes codec on both sides: the read paths' own costs",
};

/** Whether a side's figures spread too widely to trust (interquartile range over a quarter of the median). */
const noisy = (xs) => (quantile(xs, 0.75) - quantile(xs, 0.25)) / quantile(xs, 0.5) > 0.25;

/** Marks the timing table as measuring `key` at `t`: stale (dimmed, and said) if it shows another view. */
function markTimingStale(key, t) {
  if (ROUNDS <= 0) return;
  const view = `${key}@${t}`;
  const table = $("timing");
  const other = table.rows.length > 0 && table.dataset.view !== view;
  table.dataset.stale = String(other);
  $("timing-state").textContent = other ? "(measuring this view; the figures below are the previous view's)" : "(measuring…)";
}

function showTiming({ rows, values, key, t, step }) {
  const us = (x) => `${(x * 1000).toFixed(0)} µs`;
  const n = (x) => (x * 1000).toFixed(0);
  const ms = (xs) => `${us(quantile(xs, 0.5))} (${n(quantile(xs, 0.25))}–${n(quantile(xs, 0.75))})${noisy(xs) ? " noisy" : ""}`;
  fillTable($("timing"), ["stored as", "what each side runs", "zarr-wasm-codecs", "zarrita", "zarrita ÷ ours"], rows.map((r) => [
    FORM_LABELS[r.form],
    COMPARES[r.form],
    ms(r.ours),
    r.theirs ? ms(r.theirs) : "—",
    r.theirs ? `${(quantile(r.theirs, 0.5) / quantile(r.ours, 0.5)).toFixed(2)}×` : "",
  ]));
  for (const cell of $("timing").querySelectorAll("td")) if (cell.textContent.endsWith(" noisy")) cell.classList.add("noisy");
  $("timing").dataset.view = `${key}@${t}`;
  $("timing").dataset.stale = "false";
  $("timing-state").textContent = "";
  $("timing-note").textContent =
    `The view (${values} values) read whole into typed arrays from the chunks held in memory. ` +
    "The last column is zarrita's time divided by this package's: above 1, this package is faster. " +
    "On the float32 original both sides run the same codec (bytes), so the ratio shows the two read paths' " +
    "own costs; at a few thousand values, this package's per-read cost (its plan, a turn of the event loop per " +
    "chunk) is a visible share, as is getDecoded's reader setup on the CF form. " +
    `Medians over ${ROUNDS} rounds, interquartile range in brackets; each round times both sides, alternating ` +
    `which goes first; a side's time is the mean of as many reads as fill ${WINDOW_MS} ms, since this page's clock ` +
    `steps by ${us(step)}. A figure whose quartiles spread by more than a quarter of its median is marked noisy.`;
}

// ---------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------

/** Shows time step `t` (default: the dataset's last shown) of variable `key`, drawn from `form`, as values or as its difference from the original. */
let shown = 0;

async function show(key = state.key, form = state.form, t = undefined, how = state.show) {
  const call = ++shown;
  document.body.dataset.state = "loading";
  const ds = datasetOf(key);
  const dataset = key.split("/")[0];
  const v = variableOf(key);
  t = v.has_time ? Math.min(Math.max(0, t ?? state.times[dataset] ?? 0), ds.time.length - 1) : 0;
  // Another dataset is another grid: the cursor's row and column are not the same place.
  if (datasetOf(state.key) !== ds) state.cursor = null;
  Object.assign(state, { key, form, t, show: how, views: null });
  state.times[dataset] = t;
  markTimingStale(key, t);
  showProbe();
  const views = {};
  const [onGpu, codecs] = await Promise.all([
    drawOnGpu(key, form, t, how),
    Promise.all(FORMS.map((f) => codecsOf(key, f))),
    ...FORMS.map(async (f) => { views[f] = await readView(key, f, t); }),
  ]);
  // A later call (the slider moved on) draws instead.
  if (call !== shown) return { key, form, t };
  state.views = views;
  const drawn = how === "difference" ? `${FORM_LABELS[form]} − the float32 original` : `drawn from ${FORM_LABELS[form]}`;
  $("title").textContent = `${ds.title}: ${DISPLAY[key].name}, ${ds.time[t]} — ${drawn}`;
  $("time").max = String(ds.time.length - 1);
  $("time").value = String(t);
  $("time").disabled = !v.has_time;
  document.querySelector(`input[name="var"][value="${key}"]`).checked = true;
  document.querySelector(`input[name="form"][value="${form}"]`).checked = true;
  document.querySelector(`input[name="show"][value="${how}"]`).checked = true;
  $("time-label").textContent = ds.time[t];
  state.pic = picture(key, form, how, views);
  if (onGpu) state.drawn = onGpu();
  else {
    drawMap(state.pic);
    state.drawn = null;
    $("route").textContent = how === "difference"
      ? `Drawn from get's values: the ${FORM_LABELS[form]} form's, less the original's, in float64.`
      : `Drawn from get's ${FORM_LABELS[form]} values, decoded to float64 by WebAssembly` +
        (GPU_FORMS.has(form) ? " (this browser has no WebGL2)." : ".");
  }
  drawLegend(state.pic);
  showBytes(codecs);
  showProbe();
  document.body.dataset.state = "drawn";
  if (ROUNDS > 0) {
    const timing = await timeView(key, t);
    if (call !== shown) return { key, form, t };
    showTiming({ ...timing, key, t, step: clockStep });
  }
  document.body.dataset.state = "ready";
  return { key, form, t };
}

/** Lays the drawn map, its axes and its legend out again for the page's new width. */
function relayout() {
  if (!state.views || !state.pic) return;
  placeMap(geometry(datasetOf(state.key)), $("map").dataset.route);
  drawOverlay();
  drawLegend(state.pic);
}

let clockStep;

async function main() {
  manifest = await (await fetch(new URL("manifest.json", DATA))).json();
  clockStep = timerStep();
  fetch(new URL("../package.json", location.href)).then((r) => r.json()).then((p) => { $("version").textContent = p.version; })
    .catch(() => { $("version").textContent = "(version not found)"; });
  for (const radio of document.querySelectorAll('input[name="var"]')) {
    radio.addEventListener("change", (e) => show(e.target.value, state.form).catch(fail));
  }
  for (const radio of document.querySelectorAll('input[name="form"]')) {
    radio.addEventListener("change", (e) => show(state.key, e.target.value, state.t).catch(fail));
  }
  for (const radio of document.querySelectorAll('input[name="show"]')) {
    radio.addEventListener("change", (e) => show(state.key, state.form, state.t, e.target.value).catch(fail));
  }
  $("time").addEventListener("input", (e) => show(state.key, state.form, Number(e.target.value)).catch(fail));
  $("map").addEventListener("mousemove", onPointer);
  addEventListener("resize", relayout);
  return show();
}

function fail(error) {
  document.body.dataset.state = "error";
  $("error").textContent = `${error}\n${error.cause ?? ""}`;
  console.error(error);
}

const ready = main().catch((e) => {
  fail(e);
  throw e;
});

/** For tests and `npm run demo -- --check`. */
window.demo = {
  ready,
  show,
  state,
  FORMS,
  get manifest() {
    return manifest;
  },
  readView,
  geometry: (key) => geometry(datasetOf(key)),
  /** The map's pixel for cell (i, j), and which route drew it ("gpu" or "cpu"). */
  pixel: (i, j) => pixelAt(i, j),
  /** Every cell's pixel of the map of `key` on screen, as `pixel` reads each (row by row, 4 bytes a cell). */
  pixels: (key) => {
    const g = geometry(datasetOf(key));
    return pixelsOf(g.ny, g.nx);
  },
  route: () => $("map").dataset.route,
  legend: () => state.legend,
  /** The drawn map as a data URL. */
  snapshot: () => $(`map-${$("map").dataset.route}`).toDataURL(),
  /** The GRIB2 section (www/grib.js), read once the map is ready, against its SST. */
  grib: gribSection(ready.then(async () => {
    const ds = manifest.datasets.oisst;
    const { scale, colormap } = ds.variables.sst;
    return { lat: ds.lat, lon: ds.lon, scale, colormap, original: await readView("oisst/sst", "original", 0) };
  })),
  /** Puts the cursor on cell (i, j), as a mouse move there does. */
  point(i, j) {
    state.cursor = { i, j };
    drawOverlay();
    showProbe();
  },
};
