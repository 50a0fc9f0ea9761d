// A write through zarrita's codecs when registerCodecs() was not called: set says to call it,
// writes nothing, and works once it is called. (Its own process: no other test registers.)
import assert from "node:assert/strict";
import { test } from "node:test";

import * as zarr from "zarrita";
import { errorCode, get, registerCodecs, set } from "zarr-wasm-codecs";

test("set of an array zarr.set encodes says to call registerCodecs(), and writes nothing until then", async () => {
  // A transpose before zfp (which codes a chunk whole) is not written on the package's own
  // path, so set hands the write to zarr.set.
  const meta = {
    zarr_format: 3, node_type: "array", shape: [3, 4], data_type: "float64", fill_value: 0, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: [3, 4] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [
      { name: "transpose", configuration: { order: [1, 0] } },
      { name: "zfp", configuration: { mode: "reversible" } },
    ],
  };
  const store = new Map([["/temps/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  const arr = await zarr.open.v3(zarr.root(store).resolve("temps"), { kind: "array" });
  const value = { data: Float64Array.from({ length: 12 }, (_, i) => i / 4), shape: [3, 4], stride: [4, 1] };
  const e = await set(arr, null, value).then(() => assert.fail("wrote without the package's codecs"), (x) => x);
  assert.equal(errorCode(e), "UNKNOWN_CODEC");
  assert.match(e.message, /^array "\/temps": /);
  assert.match(e.message, /registerCodecs\(\)/);
  assert.deepEqual([...store.keys()], ["/temps/zarr.json"]);
  registerCodecs();
  const again = await zarr.open.v3(zarr.root(store).resolve("temps"), { kind: "array" });
  await set(again, null, value);
  // (get reads a transposed array through zarr.get, whose result keeps the transpose's strides.)
  const back = await get(again);
  const at = (i, j) => back.data[i * back.stride[0] + j * back.stride[1]];
  for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) assert.equal(at(i, j), value.data[i * 4 + j]);
});
