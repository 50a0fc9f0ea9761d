// A worker for fizarrita's pool (@fideus-labs/fizarrita, as ngff-zarr uses it) that decodes with
// this package's codecs: fizarrita fetches a chunk's bytes on the page and decodes them in its
// workers, with the codecs of the zarrita registry those workers import, which neither
// `registerCodecs()` on the page nor a wrapped store reaches. This entry registers the package's
// codecs in the worker's registry, then runs fizarrita's own codec worker:
//
//   import workerUrl from "zarr-wasm-codecs/fizarrita-worker?worker&url"; // (Vite)
//   await getWorker(arr, null, { pool, workerUrl });
//
// Its bundle must resolve "zarrita" to the app's zarrita, the one fizarrita's worker imports.
import { registerCodecs } from "./index.js";

registerCodecs();

// fizarrita's codec worker is imported for what it does (it listens for the page's messages),
// which a bundler drops from an import whose bindings are unused, for fizarrita says it has no
// side effects: it is imported dynamically, its namespace kept, and the messages that arrive
// before it listens are held and handed to it, in their order, once it does.
const early: MessageEvent[] = [];
const hold = (event: Event) => {
  event.stopImmediatePropagation();
  early.push(event as MessageEvent);
};
self.addEventListener("message", hold);
void import("@fideus-labs/fizarrita/codec-worker").then((module) => {
  // (Its namespace kept, so that no bundler leaves the module out.)
  (self as unknown as Record<symbol, unknown>)[Symbol.for("zarr-wasm-codecs.fizarrita-worker")] = module;
  self.removeEventListener("message", hold);
  for (const event of early.splice(0)) self.dispatchEvent(new MessageEvent("message", { data: event.data, ports: [...event.ports] }));
});
