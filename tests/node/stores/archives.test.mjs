// netCDF4/HDF5 archives read where they lie (issue 69): two OISST-like files netCDF4-python
// wrote (int16 `sst` and `anom` with CF packing, zlib + shuffle; one `anom` chunk never written)
// and their reference sets by kerchunk 0.2.10 and VirtualiZarr 2.8.0, h5py/hdf5plugin filters
// (tests/fixtures/archives, make.py). Through the package's `referenceStore`: every read path
// gives netCDF4-python's stored values, `getDecoded` gives xarray's decode of the same
// references, a whole read is one request per file and a window one per file it touches, on a
// recording server; zarrita over `@zarrita/storage`'s ReferenceStore still reads them right.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import ReferenceStore from "@zarrita/storage/ref";
import * as zarr from "zarrita";
import { get, getDecoded, getStored, open, referenceStore, registerCodecs, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesIn, serveFiles } from "../shared/files.mjs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/archives/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const binary = (name, Type) => {
  const b = readFileSync(join(dir, name));
  return new Type(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};
const [T, Y, X] = [2, 180, 360];

const files = filesIn(dir);
const site = await serveFiles(files);
after(() => site.server.close());
const ncRequests = (from = 0) => site.requests.slice(from).filter((r) => r.path.endsWith(".nc"));

/** `values` (C order over [T, Y, X]) cut to `[t0, t1, y0, y1, x0, x1]`. */
function cut(values, [t0, t1, y0, y1, x0, x1]) {
  const out = new values.constructor((t1 - t0) * (y1 - y0) * (x1 - x0));
  let at = 0;
  for (let t = t0; t < t1; t++) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) out[at++] = values[(t * Y + y) * X + x];
  return out;
}
const sel = ([t0, t1, y0, y1, x0, x1]) => [zarr.slice(t0, t1), zarr.slice(y0, y1), zarr.slice(x0, x1)];
const WHOLE = [0, T, 0, Y, 0, X];
// (Takes in anom's never-written chunk (0, 2, 6): rows 90-134, columns 270-314 of file 1.)
const WINDOW = [0, 1, 80, 140, 250, 330];
const SECOND = [1, 2, 0, 45, 0, 90];

const PATHS = {
  get: (s, v, q) => open(zarr.root(s).resolve(v)).then((a) => get(a, sel(q))),
  "get pooled": (s, v, q) => open(zarr.root(s).resolve(v)).then((a) => get(a, sel(q), { pool })),
  "get pooled, workerFetch": (s, v, q) => open(zarr.root(s).resolve(v)).then((a) => get(a, sel(q), { pool, workerFetch: true })),
  getStored: (s, v, q) => open(zarr.root(s).resolve(v)).then((a) => getStored(a, sel(q))),
  "zarr.get over withWasmCodecs": (s, v, q) => zarr.open.v2(zarr.root(withWasmCodecs(s)).resolve(v), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
  "zarr.get over withWasmCodecs, pooled": (s, v, q) => zarr.open.v2(zarr.root(withWasmCodecs(s, { pool })).resolve(v), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
  "zarr.get over withWasmCodecs, workerFetch": (s, v, q) =>
    zarr.open.v2(zarr.root(withWasmCodecs(s, { pool, workerFetch: true })).resolve(v), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
  "zarr.get over the package's store": (s, v, q) => zarr.open.v2(zarr.root(s).resolve(v), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
};

test("every path reads netCDF4-python's stored values through kerchunk's and VirtualiZarr's references (an absent chunk as the fill value)", async () => {
  for (const set of ["kerchunk.json", "virtualizarr.json"]) {
    const store = await referenceStore(`${site.url}/${set}`);
    for (const variable of ["anom", "sst"]) {
      const raw = binary(`oisst.${variable}.raw.bin`, Int16Array);
      for (const [how, read] of Object.entries(PATHS)) {
        for (const q of [WHOLE, WINDOW, SECOND]) {
          const got = await read(store, variable, q);
          assert.deepEqual(Int16Array.from(got.data), cut(raw, q), `${set}, ${variable}, ${how}, ${JSON.stringify(q)}`);
        }
      }
    }
  }
  // One file's references (SingleHdf5ToZarr).
  const single = await referenceStore(`${site.url}/kerchunk-single.json`);
  const first = [0, 1, 0, Y, 0, X];
  assert.deepEqual(Int16Array.from((await get(await open(zarr.root(single).resolve("anom")))).data), cut(binary("oisst.anom.raw.bin", Int16Array), first));
});

test("getDecoded equals xarray's decode of the same references, bit for bit; rounded to float32, xarray's over the .nc files", async () => {
  for (const set of ["kerchunk.json", "virtualizarr.json"]) {
    const store = await referenceStore(`${site.url}/${set}`);
    for (const variable of ["anom", "sst"]) {
      const want = binary(`oisst.${variable}.kerchunk-xarray.f8.bin`, Float64Array);
      const nc = binary(`oisst.${variable}.nc-xarray.f4.bin`, Float32Array);
      for (const options of [{}, { pool }, { pool, workerFetch: true }]) {
        const a = await open(zarr.root(store).resolve(variable));
        const got = await getDecoded(a, null, options);
        const label = `${set}, ${variable}, ${JSON.stringify(Object.keys(options))}`;
        assert.ok(Buffer.from(got.data.buffer).equals(Buffer.from(want.buffer)), `${label}: xarray over the references`);
        // (The references hold the float32 scale_factor as a JSON double: xarray over the .nc
        // files decodes to float32, over the references to float64.)
        assert.deepEqual(Float32Array.from(got.data), nc, `${label}: xarray over the .nc files, as float32`);
      }
    }
  }
});

test("requests on a recording server: a whole variable is one request per file, a window one per file it touches, on every path", async () => {
  const store = await referenceStore(`${site.url}/kerchunk.json`);
  for (const [how, read] of Object.entries(PATHS)) {
    for (const [q, perFile] of [[WHOLE, { "/oisst-1.nc": 1, "/oisst-2.nc": 1 }], [WINDOW, { "/oisst-1.nc": 1 }], [SECOND, { "/oisst-2.nc": 1 }]]) {
      const from = site.requests.length;
      await read(store, "anom", q);
      const asked = {};
      for (const r of ncRequests(from)) asked[r.path] = (asked[r.path] ?? 0) + 1;
      assert.deepEqual(asked, perFile, `${how}, ${JSON.stringify(q)}: ${JSON.stringify(ncRequests(from).map((r) => r.range))}`);
    }
  }
  // getDecoded too.
  const from = site.requests.length;
  await getDecoded(await open(zarr.root(store).resolve("anom")));
  assert.equal(ncRequests(from).length, 2, "getDecoded: one request per file");
});

test("zarrita over @zarrita/storage's ReferenceStore still reads them right (a request per chunk)", async () => {
  const spec = JSON.parse(new TextDecoder().decode(files.get("/kerchunk.json")));
  // (Its references are relative to the reference file, which zarrita's store resolves only
  // against a template: the files' folder given as one.)
  for (const [k, v] of Object.entries(spec.refs)) if (Array.isArray(v) && !v[0].includes("://")) spec.refs[k] = [`${site.url}/${v[0]}`, v[1], v[2]];
  const store = ReferenceStore.fromSpec(spec);
  const from = site.requests.length;
  const got = await zarr.get(await zarr.open.v2(zarr.root(store).resolve("anom"), { kind: "array" }));
  assert.deepEqual(Int16Array.from(got.data), binary("oisst.anom.raw.bin", Int16Array));
  assert.ok(ncRequests(from).length > 50, `${ncRequests(from).length} requests`);
});

test("the filters VirtualiZarr maps (h5py and hdf5plugin): each read as h5py reads it, or refused as Python refuses it", async () => {
  const store = await referenceStore(`${site.url}/filters-virtualizarr.json`);
  const typeOf = (name) => (JSON.parse(new TextDecoder().decode(files.get("/filters-virtualizarr.json"))).refs[`${name}/.zarray`].includes('"<f4"') ? Float32Array : Int16Array);
  const reads = {
    get: async (name) => get(await open(zarr.root(store).resolve(name))),
    "get pooled": async (name) => get(await open(zarr.root(store).resolve(name)), null, { pool }),
    "zarr.get over withWasmCodecs": async (name) => zarr.get(await zarr.open.v2(zarr.root(withWasmCodecs(store)).resolve(name), { kind: "array" })),
  };
  for (const name of ["blosc_lz4", "zstd", "zlib_shuffle", "lz4", "bzip2"]) {
    const Type = typeOf(name);
    const want = binary(`filters.${name}.bin`, Type);
    for (const [how, read] of Object.entries(reads)) {
      const got = await read(name);
      assert.deepEqual(new Type(got.data.buffer.slice(got.data.byteOffset, got.data.byteOffset + got.data.byteLength)), want, `${name}, ${how}`);
    }
  }
  // VirtualiZarr 2.8.0 names h5py's LZF chunks `imagecodecs_lzf` with `header: true`, but HDF5's
  // LZF filter writes no header: xarray fails on them (LzfError), and so does the package, coded.
  for (const [how, read] of Object.entries(reads)) {
    await assert.rejects(read("lzf"), (e) => {
      assert.ok(["CORRUPT_CHUNK", "CHUNK_LENGTH"].includes(e.code), `${how}: ${e.code} ${e.message}`);
      return true;
    });
  }
});

test("coordinates whose attributes hold Python's bare NaN (VirtualiZarr's _FillValue) open and read, through the package and zarrita", async () => {
  const virtual = await referenceStore(`${site.url}/virtualizarr.json`);
  const kerchunk = await referenceStore(`${site.url}/kerchunk.json`);
  for (const v of ["lat", "lon", "time"]) {
    const want = (await get(await open(zarr.root(kerchunk).resolve(v)))).data;
    assert.ok(want.length > 0);
    assert.deepEqual((await get(await open(zarr.root(virtual).resolve(v)))).data, want, `${v}: open + get`);
    const a = await zarr.open.v2(zarr.root(virtual).resolve(v), { kind: "array" });
    assert.deepEqual((await zarr.get(a)).data, want, `${v}: zarr.open + zarr.get`);
    assert.equal(a.attrs._FillValue, "NaN", `${v}: the attribute as zarr's JSON gives NaN`);
  }
});
