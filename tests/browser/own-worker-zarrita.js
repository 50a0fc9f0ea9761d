// The same worker as own-worker.js with zarrita alone (its own decode-only scale_offset and
// cast_value): what the app's worker bundle weighs without this package. Each store the page
// names is read with zarr.get; a store zarrita cannot read answers its error instead.
import * as zarr from "zarrita";
import { hex } from "./hex.js";

async function read(base, names) {
  const result = {};
  for (const name of names) {
    try {
      const arr = await zarr.open.v3(new zarr.FetchStore(`${base}${name}.zarr`), { kind: "array" });
      const chunk = await zarr.get(arr);
      result[name] = { shape: chunk.shape, type: chunk.data.constructor.name, one: hex(chunk.data) };
    } catch (e) {
      result[name] = { error: String(e) };
    }
  }
  return result;
}

self.onmessage = ({ data: { base, names } }) => {
  read(base, names).then(
    (result) => self.postMessage({ result }),
    (e) => self.postMessage({ error: String(e) }),
  );
};
