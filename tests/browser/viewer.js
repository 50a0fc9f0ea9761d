// A real viewer from npm, @carbonplan/zarr-layer (a MapLibre custom layer that reads through
// zarrita), rendering a store, bundled by tests/node/zarrita/viewer.test.mjs. `?store=URL&variable=NAME`
// and `mode=`: "registry" hands the layer zarrita's FetchStore after registerCodecs(); "wrapped"
// hands it the same store wrapped by withWasmCodecs with the default pool. When the layer has
// loaded and the map is idle, the page answers `__result`: the canvas's pixels (a PNG data URL),
// the layer's value queries at `points`, and the longest main-thread task while it loaded (the
// largest gap between turns of a message loop, and the longest "longtask" entry).
import { ZarrLayer } from "@carbonplan/zarr-layer";
import * as maplibregl from "maplibre-gl";
import * as zarr from "zarrita";
import { registerCodecs, withWasmCodecs } from "zarr-wasm-codecs";

const params = new URLSearchParams(location.search);
const mode = params.get("mode");
const variable = params.get("variable");
const url = new URL(params.get("store"), location.href).href;
const points = JSON.parse(params.get("points"));

// The main thread's longest task while the layer loads: gaps between turns of a message loop.
let longest = 0;
let probing = true;
let last = performance.now();
const channel = new MessageChannel();
channel.port1.onmessage = () => {
  const now = performance.now();
  longest = Math.max(longest, now - last);
  last = now;
  if (probing) channel.port2.postMessage(null);
};
const longTasks = [];
new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration))).observe({ type: "longtask", buffered: true });

/**
 * The layer's store, counting the chunk requests it makes and those still in flight: the layer
 * reports the loading of its chunks (`chunks` in its loading state) only where that takes
 * long enough to be seen, so that the page cannot wait on that report alone (it waited forever
 * in about one load of eight here).
 */
const requests = { made: 0, open: 0 };
class CountingStore extends zarr.FetchStore {
  async #counted(key, request) {
    if (!/\/c(\/|$)/.test(key)) return request();
    requests.made++;
    requests.open++;
    try {
      return await request();
    } finally {
      requests.open--;
    }
  }
  get(key, options) {
    return this.#counted(key, () => super.get(key, options));
  }
  getRange(key, range, options) {
    return this.#counted(key, () => super.getRange(key, range, options));
  }
}

try {
  let store = new CountingStore(url);
  if (mode === "wrapped") store = withWasmCodecs(store, { pool: true });
  else registerCodecs();

  const map = new maplibregl.Map({
    container: "map",
    style: { version: 8, sources: {}, layers: [{ id: "background", type: "background", paint: { "background-color": "#000000" } }] },
    center: [0, 0],
    zoom: 0.5,
    attributionControl: false,
    fadeDuration: 0,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  await new Promise((resolve) => map.on("load", resolve));

  // Loaded: the layer's metadata and chunks were being loaded, and no longer are.
  let loaded;
  let seen = false;
  const done = new Promise((resolve, reject) => (loaded = { resolve, reject }));
  const layer = new ZarrLayer({
    id: "zarr",
    store,
    variable,
    clim: JSON.parse(params.get("clim")),
    colormap: ["#000004", "#3b0f70", "#8c2981", "#de4968", "#fe9f6d", "#fcfdbf"],
    onLoadingStateChange: (state) => {
      if (state.error) loaded.reject(state.error);
      seen ||= state.chunks || state.metadata;
      if (seen && !state.loading) loaded.resolve();
    },
  });
  // A test may profile the main thread while the layer loads (`__loading`, a binding it exposes).
  await window.__loading?.("start");
  const started = performance.now();
  last = started;
  channel.port2.postMessage(null);
  map.addLayer(layer);
  await done;
  const idle = () => new Promise((resolve) => (map.loaded() ? resolve() : map.once("idle", resolve)));
  // Then until the chunks it asked for are in and drawn: four frames in a row, 50 ms apart,
  // with none in flight and none asked for.
  for (let quiet = 0; quiet < 4;) {
    const before = requests.made;
    await idle();
    await new Promise((resolve) => setTimeout(resolve, 50));
    map.triggerRepaint();
    await new Promise((resolve) => map.once("idle", resolve));
    quiet = requests.made > 0 && requests.open === 0 && requests.made === before ? quiet + 1 : 0;
  }
  probing = false;
  const loadMs = performance.now() - started;
  await window.__loading?.("end");
  const values = [];
  for (const [lng, lat] of points) {
    const answer = await layer.queryData({ type: "Point", coordinates: [lng, lat] });
    values.push(Array.from(answer[variable] ?? [], (v) => (Number.isNaN(v) ? "NaN" : v)));
  }
  window.__result = { pixels: map.getCanvas().toDataURL("image/png"), values, longest, longTasks, loadMs };
} catch (e) {
  window.__error = `${e?.code ?? ""} ${e?.message ?? e}\n${e?.stack ?? ""}`;
}
