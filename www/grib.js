// GRIB2 read in place: the map's OISST sea-surface temperature as ecCodes writes it in GRIB2
// (www/data/grib.py), in two packings, read through the references kerchunk's scan_grib made
// (one range request for the message), decoded by the package into a Float64Array in kelvin and
// drawn in °C on the map's scale; missing cells (land) transparent over the hatching.
import * as zarr from "zarrita";
import { errorCode, get, open, referenceStore } from "zarr-wasm-codecs";
import { COLORMAPS, colorOf } from "./colormap.js";

const DIR = new URL("./data/real/oisst-grib/", import.meta.url);
const KELVIN = 273.15;
/** The packings, as their files are named (sst-<packing>.grib2); the first is shown first. */
export const PACKINGS = ["simple", "ccsds"];
/** Each packing's template (section 5) number and name. */
const TEMPLATES = { 0: "grid_simple", 42: "grid_ccsds (CCSDS)" };
// Decode time: the mean of as many reads as fill WINDOW_MS, median over ROUNDS rounds.
const ROUNDS = 5;
const WINDOW_MS = 10;

const $ = (id) => document.getElementById(id);

/** Section 5 of a GRIB2 message: its template number, bits a value and D (decimal scale factor). */
function section5(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 16; at + 5 <= bytes.length;) {
    const length = view.getUint32(at);
    if (view.getUint8(at + 4) === 5) {
      const d = view.getUint16(at + 17);
      // GRIB's signed integers: the top bit is the sign, the rest the magnitude.
      return { template: view.getUint16(at + 9), bits: view.getUint8(at + 19), decimal: d & 0x8000 ? -(d & 0x7fff) : d };
    }
    if (length < 5) break;
    at += length;
  }
  throw new Error("the message has no section 5");
}

/** Milliseconds a call of async `fn` takes: the mean over WINDOW_MS of calls, median of ROUNDS. */
async function decodeTime(fn) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    let calls = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < WINDOW_MS) {
      await fn();
      calls++;
    }
    rounds.push((performance.now() - t0) / calls);
  }
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1];
}

/**
 * One packing read as a reader of the archive would: its reference set fetched, the variable
 * opened, `get` (the message's bytes fetched through the store, counted here, and decoded).
 * Then its decode time, from the message held in memory, and its rows put in the page's order.
 */
async function read(packing, page) {
  const fetched = { bytes: 0, requests: 0 };
  const counting = async (request) => {
    const response = await fetch(request);
    if (new URL(request.url).pathname.endsWith(".grib2")) {
      fetched.requests++;
      fetched.bytes += Number(response.headers.get("content-length"));
    }
    return response;
  };
  const t0 = performance.now();
  const store = await referenceStore(new URL(`sst-${packing}.kerchunk.json`, DIR), { fetch: counting });
  const arr = await open(zarr.root(store).resolve("sst"));
  const { data, shape } = await get(arr);
  const firstMs = performance.now() - t0;
  // What get fetched (the copy for the timing below fetches the message again).
  const fetchedByGet = { ...fetched };
  // The grid as the references give it, against the map's: the same, or upside down.
  const [lat, lon] = await Promise.all(["latitude", "longitude"].map(async (c) => (await get(await open(zarr.root(store).resolve(c)))).data));
  const same = (a, b) => a.length === b.length && a.every((x, k) => x === b[k]);
  const flipped = same([...lat].reverse(), page.lat);
  if (!(same(lat, page.lat) || flipped) || !same(lon, page.lon) || shape.join() !== `${lat.length},${lon.length}`) {
    throw new Error(`GRIB ${packing}: its grid is not the map's`);
  }
  // The message in memory (a zarr v2 array of one chunk), decoded again and again for its time.
  const message = await store.get("/sst/0.0");
  const memory = new Map([["/sst/.zarray", await store.get("/sst/.zarray")], ["/sst/0.0", message]]);
  const inMemory = await open(zarr.root(memory).resolve("sst"));
  const decodeMs = await decodeTime(() => get(inMemory));
  // The values in °C, rows as the map's (north first), against the float32 original.
  const [ny, nx] = shape;
  const celsius = new Float64Array(data.length);
  for (let i = 0; i < ny; i++) {
    const row = flipped ? ny - 1 - i : i;
    for (let j = 0; j < nx; j++) celsius[i * nx + j] = data[row * nx + j] - KELVIN;
  }
  let maxDiff = 0;
  let missing = 0;
  let missingApart = 0;
  for (let k = 0; k < celsius.length; k++) {
    const [x, o] = [celsius[k], page.original[k]];
    if (Number.isNaN(x)) missing++;
    if (Number.isNaN(x) || Number.isNaN(o)) missingApart += Number.isNaN(x) !== Number.isNaN(o);
    else maxDiff = Math.max(maxDiff, Math.abs(x - o));
  }
  return {
    values: data, celsius, shape, flipped, ...section5(message), length: message.length, fetched: fetchedByGet, firstMs, decodeMs,
    maxDiff, missing, missingApart,
  };
}

/** Draws the °C values on the map's scale and colour map, one pixel a cell. */
function draw(got, page) {
  const [ny, nx] = got.shape;
  const canvas = $("grib-canvas");
  canvas.width = nx;
  canvas.height = ny;
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(nx, ny);
  const [lo, hi] = page.scale;
  for (let k = 0; k < got.celsius.length; k++) image.data.set(colorOf(got.celsius[k], lo, hi, COLORMAPS[page.colormap]), k * 4);
  ctx.putImageData(image, 0, 0);
}

function describe(got) {
  const n = (x) => x.toLocaleString("en");
  const ms = (x) => (x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(1)} ms`);
  const small = (x) => (x === 0 ? "0" : x < 0.001 ? x.toExponential(1) : x.toPrecision(2));
  const { bytes, requests } = got.fetched;
  return [
    `${TEMPLATES[got.template] ?? "packing"}, template 5.${got.template} (${got.bits} bits a value${got.template === 0 ? `, D = ${got.decimal}` : ""})`,
    `${n(bytes)} bytes fetched in ${requests} range request${requests === 1 ? "" : "s"} (the message: ${n(got.length)} bytes)`,
    `decoded in ${ms(got.decodeMs)} (the first read, with HTTP and the GRIB module's loading: ${ms(got.firstMs)})`,
    `largest difference from the float32 original ${small(got.maxDiff)} °C`,
    `${n(got.missing)} cells missing: ` +
      (got.missingApart === 0 ? "the original's land, cell for cell" : `${n(got.missingApart)} cells missing in one of the two only`) +
      (got.flipped ? "; rows south first, drawn north first" : ""),
  ].join(" · ");
}

/**
 * The section: `context` resolves to the map's SST (its grid, scale, colour map and float32
 * original); nothing is read before it does.
 */
export function gribSection(context) {
  const reads = new Map();
  let shown = 0;
  const section = $("grib");
  const readOf = (packing) => {
    if (!reads.has(packing)) reads.set(packing, context.then((page) => read(packing, page)));
    return reads.get(packing);
  };
  async function show(packing = PACKINGS[0]) {
    const call = ++shown;
    section.dataset.state = "loading";
    document.querySelector(`input[name="grib-packing"][value="${packing}"]`).checked = true;
    try {
      const [page, got] = await Promise.all([context, readOf(packing)]);
      if (call !== shown) return;
      draw(got, page);
      section.dataset.packing = packing;
      $("grib-info").textContent = describe(got);
      section.dataset.state = "drawn";
    } catch (e) {
      if (call !== shown) return;
      section.dataset.state = "error";
      reads.delete(packing);
      // A build of the package without the GRIB2 decoder refuses the message: said here, not an error of the page.
      if (errorCode(e) === "UNSUPPORTED") {
        $("grib-info").textContent = `This build of zarr-wasm-codecs does not decode these messages: ${e.message}`;
        return;
      }
      $("grib-info").textContent = `${e}`;
      console.error(e);
    }
  }
  for (const radio of document.querySelectorAll('input[name="grib-packing"]')) {
    radio.addEventListener("change", (e) => show(e.target.value));
  }
  return {
    // (A page that failed to load says so itself.)
    ready: context.then(() => show(), () => { section.dataset.state = "error"; }),
    show,
    PACKINGS,
    /** The packing's values as `get` returned them: a Float64Array in kelvin, NaN where missing. */
    values: async (packing) => (await readOf(packing)).values,
    /** What the packing's line says, as numbers. */
    info: async (packing) => {
      const { values, celsius, ...rest } = await readOf(packing);
      return rest;
    },
    /** The drawn pixel of cell (i, j) (rows as the map's): [r, g, b, a]. */
    pixel: (i, j) => [...$("grib-canvas").getContext("2d").getImageData(j, i, 1, 1).data],
    snapshot: () => $("grib-canvas").toDataURL(),
  };
}
