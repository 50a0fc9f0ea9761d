// numcodecs' zfpy codec (zarr v3 `numcodecs.zfpy`, zarr v2 compressor `zfpy`), the zfp codec
// zarr-python users have, on every path a user meets it: `get` (one thread and pooled: the
// stores.test.mjs cases), zarr.get after registerCodecs(), zarr.get over a store wrapped by
// withWasmCodecs (no registration), and a header that describes other chunks than the
// array's, refused with a code naming the array and the chunk. The stores are zarr-python
// 3.4.2's with numcodecs 0.17.1 and zfpy 1.0.1 (tests/fixtures/stores/make.py); the codec's
// streams are held byte for byte to numcodecs' in tests/zfpy.rs, and `set`'s to zarr-python's
// own writes in tests/fixtures/written (v3_zfpy_*, v2_zfpy_*).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { get, open, registerCodecs, withWasmCodecs } from "zarr-wasm-codecs";
import { memoryStore } from "../shared/files.mjs";

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const cases = manifest.filter((c) => c.codecs.some((s) => /zfpy/.test(s)));
const CTORS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, int64: BigInt64Array };
const bytesOf = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

test("the zfpy stores: v3 and v2, each mode numcodecs writes", () => {
  assert.equal(cases.length, 7);
  assert.deepEqual(new Set(cases.map((c) => c.zarr_format)), new Set([2, 3]));
});

for (const c of cases) {
  test(`${c.case}: zarr.get reads zarr-python's values after registerCodecs(), and through withWasmCodecs without it`, async () => {
    const want = readFileSync(join(dir, c.expected));
    assert.equal(want.length / CTORS[c.dtype].BYTES_PER_ELEMENT, c.shape.reduce((a, b) => a * b, 1));
    // Wrapped, with a registry that has no zfpy (the extension decodes on the package's path).
    const wrapped = await zarr.open(zarr.root(withWasmCodecs(memoryStore(join(dir, c.store)))), { kind: "array" });
    assert.ok(bytesOf((await zarr.get(wrapped)).data).equals(want), "through withWasmCodecs");
    registerCodecs();
    const arr = await zarr.open(zarr.root(memoryStore(join(dir, c.store))), { kind: "array" });
    assert.ok(bytesOf((await zarr.get(arr)).data).equals(want), "zarr.get after registerCodecs()");
  });
}

test("a zfpy header that disagrees with the array's metadata is CORRUPT_CHUNK, naming the array and the chunk", async () => {
  const c = cases.find((m) => m.case === "v3_zfpy_rate_f4");
  for (const [what, edit] of [
    ["another chunk shape", (meta) => (meta.chunk_grid.configuration.chunk_shape = [20, 16])],
    ["another data type", (meta) => ((meta.data_type = "float64"), (meta.fill_value = 0))],
  ]) {
    const store = memoryStore(join(dir, c.store));
    const meta = JSON.parse(new TextDecoder().decode(store.files.get("/zarr.json")));
    edit(meta);
    store.files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
    const arr = await open(zarr.root(store));
    await assert.rejects(get(arr), (e) => {
      assert.equal(e.code, "CORRUPT_CHUNK", `${what}: ${e.message}`);
      assert.match(e.message, /^array "\/": chunk c\/\d+\/\d+: .*the zfp header says float32 values of shape \[16, 20\]/, what);
      return true;
    });
  }
});
