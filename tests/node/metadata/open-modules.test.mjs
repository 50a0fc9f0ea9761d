// The package's open reads a CF-packed array's metadata with the packing module (the module
// getDecoded reads it with), any other with the core module: both the same way; so does zarr.open
// over withWasmCodecs. In a process of its own (a file of its own), where nothing has loaded the
// core module yet: CF stores of xarray's read exactly through open + getDecoded and zarr.open over
// withWasmCodecs + getDecoded; metadata no reader may read is refused with the same code and
// message by either module (each way of opening, before the core module is loaded, then after).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { getDecoded, loadWasm, open, withWasmCodecs } from "zarr-wasm-codecs";

const fixtures = fileURLToPath(new URL("../../fixtures/", import.meta.url));
const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

/** A CF-packed array's zarr.json (int16, scale_factor, add_offset, _FillValue), with `edit` applied. */
function cfStore(edit) {
  const meta = {
    zarr_format: 3, node_type: "array", shape: [4, 4], data_type: "int16", fill_value: -32768,
    attributes: { scale_factor: 0.01, add_offset: 15, _FillValue: -32768 },
    chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 2] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }],
  };
  edit(meta);
  const files = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
  return { get: async (k) => files.get(k) };
}

// Metadata no reader may read, each with the code both modules give, each way of opening (the
// wrapped store refuses what zarrita cannot open, an unknown data type, with open's own error).
const BROKEN = {
  "codecs out of order": [(m) => m.codecs.reverse(), "INVALID_METADATA"],
  "a fill value int16 cannot hold": [(m) => (m.fill_value = 40000), "INVALID_SCALAR"],
  "an unknown data type": [(m) => (m.data_type = "int17"), "UNKNOWN_DATA_TYPE"],
  "a malformed bytes configuration": [(m) => (m.codecs[0].configuration.endian = "middle"), "INVALID_CONFIG"],
  "no array -> bytes codec": [(m) => m.codecs.splice(0, 1), "INVALID_METADATA"],
};

// The two ways of opening: the package's open, and zarr.open over withWasmCodecs.
const OPENS = {
  open: (store) => open(zarr.root(store)),
  wrapped: (store) => zarr.open.v3(zarr.root(withWasmCodecs(store)), { kind: "array" }),
};

/** What each way of opening says of each broken metadata: its code and message, by way. */
async function refusals() {
  const out = {};
  for (const [how, opened] of Object.entries(OPENS)) {
    out[how] = {};
    for (const [name, [edit]] of Object.entries(BROKEN)) {
      const e = await opened(cfStore(edit)).then(() => undefined, (x) => x);
      out[how][name] = e && { code: e.code, message: e.message };
    }
  }
  return out;
}

test("open and zarr.open over withWasmCodecs refuse a CF array's broken metadata with the packing module as the core module does; CF stores read exactly", async () => {
  // Before anything loads the core module: open reads these with the packing module.
  const cases = [
    ["stores/xr_cf_v3.zarr", "t", readFileSync(join(fixtures, "stores/xr_cf_v3.expected.bin"))],
    ["stores/xr_cf_v3_fillvalue.zarr", "t", readFileSync(join(fixtures, "stores/xr_cf_v3_fillvalue.expected.bin"))],
    ["stores/xr_cf_v2.zarr", "t", readFileSync(join(fixtures, "stores/xr_cf_v2.expected.bin"))],
    ["cf/sst.zarr", "sst", gunzipSync(readFileSync(join(fixtures, "cf/sst.expected.bin.gz")))],
  ];
  for (const [store, path, expected] of cases) {
    const arr = await open(zarr.root(new FileSystemStore(join(fixtures, store))).resolve(path));
    assert.deepEqual(bits((await getDecoded(arr)).data), expected, store);
    const wrapped = await zarr.open(zarr.root(withWasmCodecs(new FileSystemStore(join(fixtures, store)))).resolve(path), { kind: "array" });
    assert.deepEqual(bits((await getDecoded(wrapped)).data), expected, `${store}, over withWasmCodecs`);
  }
  const packing = await refusals();
  for (const how of Object.keys(OPENS)) {
    for (const [name, [, code]] of Object.entries(BROKEN)) {
      assert.equal(packing[how][name]?.code, code, `${how}, ${name}: ${packing[how][name]?.message}`);
    }
  }
  // Then with the core module loaded: each way reads them with it, and says the same.
  await loadWasm();
  assert.deepEqual(await refusals(), packing);
});
