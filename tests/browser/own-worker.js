// An app's own worker reading with zarrita and this package: each store the page names, read
// with the package's `get` on this worker's thread and with a pool of two workers started from
// this one (nested workers); answers the hex of the bytes of each, as the Node tests compare.
import * as zarr from "zarrita";
import { get, open, registerCodecs, WorkerPool } from "zarr-wasm-codecs";
import { hex } from "./hex.js";

registerCodecs();

async function read(base, names) {
  const pool = new WorkerPool(2);
  const result = {};
  try {
    for (const name of names) {
      const arr = await open(new zarr.FetchStore(`${base}${name}.zarr`));
      const one = await get(arr);
      const pooled = await get(arr, null, { pool });
      result[name] = { shape: one.shape, type: one.data.constructor.name, one: hex(one.data), pooled: hex(pooled.data) };
    }
  } finally {
    await pool.terminate();
  }
  return result;
}

self.onmessage = ({ data: { base, names } }) => {
  read(base, names).then(
    (result) => self.postMessage({ result }),
    (e) => self.postMessage({ error: [e, e.cause].filter(Boolean).map((x) => `${x.code ? `${x.code}: ` : ""}${x}`).join(" <- ") }),
  );
};
