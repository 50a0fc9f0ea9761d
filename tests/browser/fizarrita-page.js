// An app that reads with fizarrita (@fideus-labs/fizarrita, its pool of workers decoding with the
// codecs its workers import), as ngff-zarr does, with zarrita 0.6: each store the page names
// read with fizarrita's getWorker, its workers the package's fizarrita worker entry
// (`zarr-wasm-codecs/fizarrita-worker`); and with fizarrita's own worker, for comparison. Answers
// the hex of each read's bytes (or its error, and the package's code that `errorCode` reads from
// it), for the Node test to hold to zarr-python's.
import { getWorker } from "@fideus-labs/fizarrita";
import { WorkerPool } from "@fideus-labs/worker-pool";
import * as zarr from "zarrita";
import { errorCode } from "zarr-wasm-codecs";
import workerUrl from "zarr-wasm-codecs/fizarrita-worker?worker&url";
import { hex } from "./hex.js";

async function read(base, names, withPackage) {
  const pool = new WorkerPool(2);
  const out = {};
  try {
    for (const name of names) {
      try {
        const arr = await zarr.open.v3(new zarr.FetchStore(`${base}${name}`), { kind: "array" });
        // (fizarrita's own worker never answers a read whose codec it lacks: 5 s at most.)
        const read = getWorker(arr, null, withPackage ? { pool, workerUrl } : { pool });
        const chunk = withPackage ? await read : await Promise.race([read, new Promise((_, no) => setTimeout(() => no(new Error("no answer in 5 s")), 5000))]);
        out[name] = { shape: chunk.shape, type: chunk.data.constructor.name, hex: hex(chunk.data) };
      } catch (e) {
        out[name] = { error: String(e?.message ?? e), code: errorCode(e) };
      }
    }
  } finally {
    pool.terminateWorkers();
  }
  return out;
}

const params = new URL(location.href).searchParams;
const base = new URL(params.get("base"), location.href).href;
const names = params.get("stores").split(",");
(async () => {
  const withPackage = await read(base, names, true);
  window.__withPackage = withPackage;
  return { withPackage, alone: await read(base, names, false) };
})().then(
  (result) => { window.__result = result; },
  (e) => { window.__error = String(e?.stack ?? e); },
);
