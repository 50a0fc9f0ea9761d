// Shared by the browser pages: reads fixture stores over HTTP with zarrita's FetchStore and this
// package's codecs, and reports what it decoded (hex of the bytes, as the Node tests compare).
import * as zarr from "zarrita";
import { registerCodecs } from "zarr-wasm-codecs";
import { zfpStore } from "./zfp-store.js";

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

const CTORS = {
  int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array,
  int32: Int32Array, uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array,
  float16: globalThis.Float16Array, float32: Float32Array, float64: Float64Array,
};

/** Every zfp fixture (zfpy's streams) through zarrita: the ids whose values differ from zfpy's. */
export async function readZfpCases() {
  const cases = await (await fetch("/tests/fixtures/zfp/cases.json")).json();
  const wrong = [];
  let read = 0;
  for (const c of cases) {
    if (!CTORS[c.data_type]) continue;
    const stream = new Uint8Array(c.stream.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
    const store = zfpStore(c, stream);
    const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
    const got = await zarr.get(arr);
    const data = c.shape.length === 0 ? CTORS[c.data_type].of(got) : got.data;
    if (hex(data) !== c.decoded) wrong.push(c.id);
    read++;
  }
  return { read, total: cases.length, wrong };
}
