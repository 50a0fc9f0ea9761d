// Shared by the browser pages: reads fixture stores over HTTP with zarrita's FetchStore and this
// package's codecs, and reports what it decoded (hex of the bytes, as the Node tests compare).
import * as zarr from "zarrita";
import { registerCodecs } from "zarr-wasm-codecs";

registerCodecs();

function hex(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

export async function readStores(names) {
  const results = {};
  for (const name of names) {
    const url = new URL(`/tests/node/fixtures/stores/${name}.zarr`, location.href).href;
    const arr = await zarr.open.v3(new zarr.FetchStore(url), { kind: "array" });
    const chunk = await zarr.get(arr);
    results[name] = { shape: chunk.shape, hex: hex(chunk.data), type: chunk.data.constructor.name };
  }
  return results;
}
