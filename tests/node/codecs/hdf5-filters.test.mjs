// The HDF5 filters as VirtualiZarr names them (imagecodecs' ids: imagecodecs_lzf,
// imagecodecs_lz4h5, imagecodecs_bz2), on the path a reader of a netCDF4/HDF5 file read in place
// meets them: a zarr v2 array (and a v3 one) whose chunk is what the HDF5 file holds
// (tests/fixtures/compress/imagecodecs: h5py's LZF, hdf5plugin's LZ4 and BZip2 chunks, read back
// raw), read with `get` on one thread and pooled and with zarr.get over withWasmCodecs, in the
// module the codec table says (LZF and LZ4 in compress, bzip2 in archive). A write is refused
// (UNSUPPORTED), the store unchanged. tests/imagecodecs.rs holds the decoders to every fixture.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { get, set, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { asked } from "../../../dist/loading/load.js";
import { bytesModuleOf } from "../../../dist/modules.js";
import { memoryStore } from "../../fixtures/written/cases.mjs";

const dir = fileURLToPath(new URL("../../fixtures/compress/imagecodecs/", import.meta.url));
const file = (name) => new Uint8Array(readFileSync(join(dir, name)));
const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const TYPES = { "<f4": ["float32", Float32Array], "<f8": ["float64", Float64Array], "<i2": ["int16", Int16Array] };

const pool = new WorkerPool(2);
after(() => pool.terminate());

/** A store of one chunk ("0.0" / "c/0/0") of the fixture `stored`, as the metadata names its codecs. */
function storeOf(c, format) {
  const store = memoryStore();
  const [dataType] = TYPES[c.dtype];
  if (format === 2) {
    const zarray = { zarr_format: 2, shape: c.shape, chunks: c.shape, dtype: c.dtype, order: "C", fill_value: 0, filters: c.filters, compressor: c.compressor };
    store.files.set("/.zarray", new TextEncoder().encode(JSON.stringify(zarray)));
    store.files.set("/0.0", file(c.stored));
  } else {
    // The v2 codecs under their `numcodecs.` names, as VirtualiZarr writes zarr v3.
    const codecs = [...(c.filters ?? []), ...(c.compressor ? [c.compressor] : [])].map(({ id, ...configuration }) => ({
      name: id === "shuffle" ? "numcodecs.shuffle" : `numcodecs.${id}`,
      configuration,
    }));
    const meta = {
      zarr_format: 3, node_type: "array", data_type: dataType, shape: c.shape, fill_value: 0,
      chunk_grid: { name: "regular", configuration: { chunk_shape: c.shape } },
      chunk_key_encoding: { name: "default" },
      codecs: [{ name: "bytes", configuration: { endian: "little" } }, ...codecs],
    };
    store.files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
    store.files.set("/c/0/0", file(c.stored));
  }
  return store;
}

const LZF = { id: "imagecodecs_lzf", header: false };
const CASES = [
  // h5py's LZF chunk, and after h5py's shuffle; imagecodecs' own stream with its header (its default).
  { stored: "smooth_f4.h5-lzf.bin", values: "smooth_f4.bin", dtype: "<f4", shape: [64, 64], filters: null, compressor: LZF, module: "compress" },
  { stored: "large_f4.h5-shuffle-lzf.bin", values: "large_f4.bin", dtype: "<f4", shape: [80, 160], filters: [{ id: "shuffle", elementsize: 4 }, LZF], compressor: null, module: "compress" },
  { stored: "constant_f8.lzf-header.bin", values: "constant_f8.bin", dtype: "<f8", shape: [32, 32], filters: null, compressor: { id: "imagecodecs_lzf" }, module: "compress" },
  // hdf5plugin's LZ4: 16 KiB blocks (two lz4, two stored), and one block.
  { stored: "large_f4.h5-lz4-block16384.bin", values: "large_f4.bin", dtype: "<f4", shape: [80, 160], filters: [{ id: "imagecodecs_lz4h5" }], compressor: null, module: "compress" },
  { stored: "noisy_i2.h5-lz4.bin", values: "noisy_i2.bin", dtype: "<i2", shape: [64, 64], filters: null, compressor: { id: "imagecodecs_lz4h5", level: null, hc: false, blocksize: null }, module: "compress" },
  // hdf5plugin's BZip2 (last: the archive module loads only for it).
  { stored: "noisy_i2.h5-bzip2.bin", values: "noisy_i2.bin", dtype: "<i2", shape: [64, 64], filters: null, compressor: { id: "imagecodecs_bz2", level: null }, module: "archive" },
];

for (const c of CASES) {
  test(`${c.stored}: get (one thread, pooled) and zarr.get over withWasmCodecs read the HDF5 file's values, v2 and v3, in the ${c.module} module`, async () => {
    const [, Ctor] = TYPES[c.dtype];
    const want = file(c.values);
    const names = [...(c.filters ?? []), ...(c.compressor ? [c.compressor] : [])].map((x) => ({ name: x.id }));
    assert.equal(bytesModuleOf(names), c.module);
    for (const format of [2, 3]) {
      const arr = await zarr.open(zarr.root(storeOf(c, format)), { kind: "array" });
      for (const options of [{}, { pool }]) {
        const got = await get(arr, null, options);
        assert.deepEqual(got.shape, c.shape);
        assert.equal(got.data.constructor, Ctor);
        assert.ok(bits(got.data).equals(Buffer.from(want)), `v${format} ${JSON.stringify(Object.keys(options))}: values differ`);
      }
      const wrapped = await zarr.open(zarr.root(withWasmCodecs(storeOf(c, format))), { kind: "array" });
      assert.ok(bits((await zarr.get(wrapped)).data).equals(Buffer.from(want)), `v${format}: through withWasmCodecs`);
    }
    assert.equal(asked("archive"), c.module === "archive", "the archive module loads for bzip2 alone");
  });
}

test("a write to an array with one of them is refused (UNSUPPORTED, naming the codec); the store is unchanged", async () => {
  for (const c of CASES) {
    for (const format of [2, 3]) {
      const store = storeOf(c, format);
      const before = new Map([...store.files].map(([k, v]) => [k, Buffer.from(v)]));
      const arr = await zarr.open(zarr.root(store), { kind: "array" });
      await assert.rejects(set(arr, null, 1), (e) => {
        assert.equal(e.code, "UNSUPPORTED", `${c.stored} v${format}: ${e.message}`);
        assert.match(e.message, /imagecodecs_(lzf|lz4h5|bz2)/);
        return true;
      });
      assert.deepEqual([...store.files.keys()], [...before.keys()]);
      for (const [k, v] of store.files) assert.ok(Buffer.from(v).equals(before.get(k)), `${c.stored} v${format}: ${k} unchanged`);
    }
  }
});
