// numcodecs' shuffle (zarr v3 `numcodecs.shuffle`, zarr v2 filter or compressor `shuffle`) and
// checksums (`numcodecs.crc32`, v2 `adler32`), written by `set` into zarr-python 3.4.2's stores (tests/fixtures/stores, make.py): every chunk
// zarr-python wrote is written again with the same shuffled bytes (compared once the
// compressor after the shuffle is undone, since two zstd or blosc builds may compress the same
// bytes differently), with the element size the configuration gives (8, and 4 on float64),
// or, without one, the size of what the codec receives (uint16 after cast_value: 2). Reads of
// these stores are checked in stores.test.mjs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { get, registerCodecs, set } from "zarr-wasm-codecs";
import { loadModule, memoryOf } from "../../../dist/loading/load.js";
import { filesUnder } from "../shared/files.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const CTORS = { int16: Int16Array, float64: Float64Array };
/**
 * Each case's codecs after the one the package encodes in wasm (shuffle, a checksum), undone
 * before the bytes are compared (none: compared as stored); for a checksum after zstd, both
 * (the checksum must verify, then the values compare).
 */
const CASES = {
  v3_shuffle8_zstd: [{ name: "numcodecs.zstd" }],
  v3_shuffle4_f8: [{ name: "zstd" }],
  v3_shuffle_packed_u2: [],
  v2_shuffle_compressor: [],
  v2_shuffle_filter: [{ name: "zstd" }],
  v2_shuffle_filter_i2: [{ name: "blosc" }],
  v2_adler32_filter: [{ name: "zstd" }],
  v3_crc32_zstd: [{ name: "numcodecs.zstd" }, { name: "numcodecs.crc32" }],
  v3_fletcher32_zstd: [{ name: "numcodecs.zstd" }, { name: "numcodecs.fletcher32" }],
  v2_fletcher32_filter: [{ name: "zstd" }],
  // delta: set writes numcodecs' differences (values: zarr-python's read back, which are the
  // sums of the differences it stored).
  v3_delta_i2_blosc: [{ name: "blosc" }],
};
// (bitround's writes are held to zarr-python's in tests/fixtures/written: v3_bitround_zstd,
// v2_bitround_zstd. Here set would round the fill value of the chunk zarr-python left out.)

/** The store's files: metadata kept, chunks (what zarr-python wrote) apart. */
function split(storeDir) {
  const meta = new Map();
  const chunks = new Map();
  for (const p of filesUnder(storeDir)) {
    const key = "/" + relative(storeDir, p).split(sep).join("/");
    const bytes = new Uint8Array(readFileSync(p));
    (/(^|\/)(zarr\.json|\.zarray|\.zattrs|\.zgroup)$/.test(key) ? meta : chunks).set(key, bytes);
  }
  return { meta, chunks };
}

async function decompressor(codecs) {
  if (!codecs.length) return (bytes) => bytes;
  const wasm = await loadModule("compress");
  const d = new wasm.Decompressor(JSON.stringify(codecs), 1, undefined);
  return (bytes) => {
    const n = d.decode(bytes);
    return new Uint8Array(memoryOf(wasm).buffer, d.address, n).slice();
  };
}

for (const [name, compressor] of Object.entries(CASES)) {
  test(`${name}: set writes zarr-python's chunks (shuffled, checksummed), and get reads them back`, async () => {
    const c = manifest.find((m) => m.case === name);
    assert.ok(c, name);
    const { meta, chunks } = split(join(dir, c.store));
    const store = new Map(meta);
    const arr = await zarr.open(zarr.root(store), { kind: "array" });
    const raw = readFileSync(join(dir, c.expected));
    const Ctor = CTORS[c.dtype];
    const values = new Ctor(raw.buffer, raw.byteOffset, raw.byteLength / Ctor.BYTES_PER_ELEMENT);
    await set(arr, null, { data: values, shape: c.shape, stride: [c.shape[1], 1] });
    const undo = await decompressor(compressor);
    assert.ok(chunks.size >= 5, `${name}: zarr-python wrote ${chunks.size} chunks`);
    for (const [key, theirs] of chunks) {
      const ours = store.get(key);
      assert.ok(ours, `${name}: ${key} written`);
      assert.ok(Buffer.from(undo(ours)).equals(Buffer.from(undo(theirs))), `${name}: ${key}: the bytes differ`);
    }
    const back = await get(arr);
    assert.ok(Buffer.from(back.data.buffer).equals(raw), `${name}: read back`);
  });
}
