// Decoded reads (getDecoded) against xarray: stores written by xarray with CF packing and
// _FillValue, and by zarr-python with the zarr missing_value convention
// (fixtures/cf/generate.py); the decoded Float64Array must equal, bit for bit, what xarray's
// mask_and_scale decoding gave.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { getDecoded, registerCodecs } from "zarr-wasm-codecs";

registerCodecs();

const fixtures = fileURLToPath(new URL("../fixtures/cf/", import.meta.url));
const expected = JSON.parse(readFileSync(join(fixtures, "expected.json"), "utf8"));
const hex = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("hex");

async function open(name) {
  const store = new FileSystemStore(join(fixtures, "stores", `${name}.zarr`));
  return zarr.open.v3(zarr.root(store).resolve(expected[name].array), { kind: "array" });
}

for (const [name, want] of Object.entries(expected)) {
  test(`getDecoded ${name}: equals xarray's decoding (${want.xarray_dtype}) bit for bit`, async () => {
    const arr = await open(name);
    const got = await getDecoded(arr);
    assert.ok(got.data instanceof Float64Array);
    assert.deepEqual(got.shape, want.shape);
    assert.equal(hex(got.data), want.decoded_hex);
    // The raw read is left alone: it still holds the stored values, sentinels included.
    const raw = await zarr.get(arr);
    assert.equal(raw.data.length, got.data.length);
    const rawNaNs = Array.from(raw.data, (v) => Number.isNaN(Number(v))).filter(Boolean).length;
    const decodedNaNs = got.data.filter(Number.isNaN).length;
    // (Where xarray masks anything.)
    const xarrayNaNs = new Float64Array(Uint8Array.from(Buffer.from(want.decoded_hex, "hex")).buffer).filter(Number.isNaN).length;
    if (!name.endsWith("_nan") && xarrayNaNs > 0) assert.ok(rawNaNs < decodedNaNs, `${rawNaNs} raw NaN, ${decodedNaNs} decoded`);
  });
}

test("getDecoded of a region and of one value", async () => {
  const arr = await open("int16_scale_offset_fill");
  const full = await getDecoded(arr);
  const part = await getDecoded(arr, [zarr.slice(2, 5), zarr.slice(4, 10)]);
  assert.deepEqual(part.shape, [3, 6]);
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 6; j++) {
      assert.ok(Object.is(part.data[i * 6 + j], full.data[(2 + i) * 13 + 4 + j]));
    }
  }
  const one = await getDecoded(arr, [3, 6]);
  assert.deepEqual(one.shape, []);
  assert.ok(Number.isNaN(one.data[0]), "a missing value");
});

test("bad attributes give an Error with a code", async () => {
  const store = new Map();
  const arr = await zarr.create(zarr.root(store), {
    shape: [2], chunkShape: [2], dtype: "float32", attributes: { _FillValue: "not base64!" },
  });
  await assert.rejects(getDecoded(arr), (e) => {
    assert.equal(e.code, "INVALID_METADATA", e.message);
    assert.match(e.message, /_FillValue/);
    return true;
  });
  const arr2 = await zarr.create(zarr.root(new Map()), {
    shape: [2], chunkShape: [2], dtype: "uint8", attributes: { missing_value: 300 },
  });
  await assert.rejects(getDecoded(arr2), (e) => e.code === "INVALID_METADATA");
});
