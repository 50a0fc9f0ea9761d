// No read leaves an unhandled promise rejection behind: zarrita loads an array's codecs all at
// once and, past the first its registry lacks, leaves the others' failures unhandled. The
// package checks its registry first wherever it hands an array to zarrita (`get`, `set` and
// the store extension's getChunk), zarr v2 arrays (whose codec names zarrita makes from the
// filters and compressor) included; and the chain that first showed it (zarr-python's v2 <U5
// with categorize, delta, crc32 and bz2) is now read on the package's own path.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { get, open, withWasmCodecs } from "zarr-wasm-codecs";
import { memoryStore } from "../shared/files.mjs";

const fixtures = fileURLToPath(new URL("../../fixtures/", import.meta.url));

/** The unhandled rejections while `f` runs, and a turn of the event loop after it. */
async function unhandledDuring(f) {
  const seen = [];
  const note = (reason) => seen.push(reason);
  process.on("unhandledRejection", note);
  try {
    await f();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off("unhandledRejection", note);
  }
  return seen;
}

/** A v2 array's files in memory: `.zarray` as given, one chunk's bytes (any: never decoded). */
function v2Store(zarray) {
  const enc = new TextEncoder();
  const files = new Map([
    ["/.zarray", enc.encode(JSON.stringify({ zarr_format: 2, shape: [4], chunks: [4], dtype: "<f8", fill_value: 0, order: "C", dimension_separator: ".", ...zarray }))],
    ["/.zattrs", enc.encode("{}")],
    ["/0", new Uint8Array(32)],
  ]);
  return { get: async (k) => files.get(k) };
}

test("the v2 <U5 array with categorize, delta, crc32 and bz2 reads as zarr-python reads it, leaving nothing behind", async () => {
  const cases = JSON.parse(readFileSync(join(fixtures, "dtypes/expected.json"), "utf8"));
  const c = cases.find((a) => a.case === "utf32_categorize_delta_crc32.v2");
  assert.ok(c, "the fixture");
  const seen = await unhandledDuring(async () => {
    const arr = await open(zarr.root(memoryStore(join(fixtures, "dtypes", c.store))));
    const got = await get(arr);
    assert.deepEqual(Array.from({ length: got.data.length }, (_, i) => got.data.get(i)), c.values);
  });
  assert.deepEqual(seen, []);
});

test("an array with several codecs zarrita's registry lacks is refused (UNKNOWN_CODEC) with no rejection left unhandled, v2 and v3", async () => {
  const filters = [{ id: "made-up-one" }, { id: "made-up-two" }, { id: "made-up-three" }];
  const v3Codecs = [{ name: "made-up-one" }, { name: "bytes", configuration: { endian: "little" } }, { name: "made-up-two" }, { name: "made-up-three" }];
  const enc = new TextEncoder();
  const v3 = () => {
    const meta = { zarr_format: 3, node_type: "array", shape: [4], data_type: "float64", chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } }, chunk_key_encoding: { name: "default" }, fill_value: 0, codecs: v3Codecs };
    const files = new Map([["/zarr.json", enc.encode(JSON.stringify(meta))], ["/c/0", new Uint8Array(32)]]);
    return { get: async (k) => files.get(k) };
  };
  for (const [name, store] of [["v2", () => v2Store({ filters })], ["v3", v3]]) {
    const seen = await unhandledDuring(async () => {
      // The package's get, on an array opened by zarrita and by the package.
      for (const arr of [await zarr.open(zarr.root(store()), { kind: "array" }), await open(zarr.root(store()))]) {
        await assert.rejects(get(arr), (e) => e.code === "UNKNOWN_CODEC", `${name}: get`);
      }
      // zarr.get through the store extension.
      const wrapped = await zarr.open(zarr.root(withWasmCodecs(store())), { kind: "array" });
      await assert.rejects(zarr.get(wrapped), (e) => e.code === "UNKNOWN_CODEC" || e.cause?.code === "UNKNOWN_CODEC", `${name}: zarr.get, wrapped`);
    });
    assert.deepEqual(seen.map(String), [], `${name}: unhandled rejections`);
  }
});
