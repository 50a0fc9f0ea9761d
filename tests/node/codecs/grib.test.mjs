// GRIB2 messages read in place (issue 70): files ecCodes 2.50 (and NCEP's g2c) wrote in every
// packing, kerchunk 0.2.10's scan_grib and MultiZarrToZarr references, gribberish 1.9.0's
// VirtualiZarr references, and the values kerchunk's grib codec decodes over ecCodes
// (tests/fixtures/grib, make.py). Every message through every path equals the codec's values bit
// for bit (NaN where it gives NaN), float32 where no dtype is given, coordinates too; a multi-step
// variable is one request; damaged and unsupported messages are refused with a code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

import * as zarr from "zarrita";
import { get, getDecoded, open, referenceStore, registerCodecs, set, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesIn, rejection, serveFiles } from "../shared/files.mjs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/grib/", import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const expected = (name, Type = Float64Array) => {
  const b = gunzipSync(readFileSync(join(dir, name)));
  return new Type(b.buffer, b.byteOffset, b.byteLength / Type.BYTES_PER_ELEMENT);
};
const site = await serveFiles(filesIn(dir));
after(() => site.server.close());
const gribRequests = (from = 0) => site.requests.slice(from).filter((r) => r.path.endsWith(".grib2"));
const sets = (name) => JSON.parse(readFileSync(join(dir, name), "utf8"));
const message = (file, index) => manifest.messages.find((m) => m.file === file && m.index === index);

/** How many float64 steps apart two finite numbers of the same sign are. */
const ulps = (a, b) => {
  const bits = new BigInt64Array(new Float64Array([a, b]).buffer);
  const d = bits[0] - bits[1];
  return Number(d < 0n ? -d : d);
};

/**
 * Bit-for-bit equality of two float arrays (NaN equal to NaN, -0 not 0), naming the first
 * difference; with `within`, finite values may be up to that many float64 steps apart (see
 * PROJECTED). Returns the largest distance seen.
 */
function sameValues(got, want, what, within = 0) {
  assert.equal(got.length, want.length, `${what}: length`);
  assert.equal(got.constructor, want.constructor, `${what}: type`);
  let most = 0;
  for (let i = 0; i < want.length; i++) {
    if (Object.is(got[i], want[i])) continue;
    const d = within && Number.isFinite(want[i]) && Math.sign(got[i]) === Math.sign(want[i]) ? ulps(got[i], want[i]) : Infinity;
    if (d > within) assert.fail(`${what}: value ${i} is ${got[i]}, kerchunk's codec gives ${want[i]}`);
    most = Math.max(most, d);
  }
  return most;
}

// A projected grid's coordinates (Lambert conformal: the HRRR-like grid) go through sin, cos,
// tan, atan2, log and pow. ecCodes calls glibc's; in wasm the package has Rust's own (musl's
// and fdlibm's algorithms), which differ from glibc's in the last bit for some arguments, and a
// projection carries that through a few more operations. Natively (tests/grib.rs, where Rust
// calls glibc) they are ecCodes' bit for bit; here they may be this many float64 steps apart
// (measured on the fixture: up to 11 for latitudes, 2 for longitudes; up to 28 on other
// Lambert grids). A regular grid's coordinates are exact.
const PROJECTED = 32;
const projected = (expectedFile) => /grid\.hrrr\.(latitude|longitude)/.test(expectedFile);

const PATHS = {
  get: (s, v) => open(zarr.root(s).resolve(v)).then((a) => get(a)),
  "get pooled": (s, v) => open(zarr.root(s).resolve(v)).then((a) => get(a, null, { pool })),
  "get pooled, workerFetch": (s, v) => open(zarr.root(s).resolve(v)).then((a) => get(a, null, { pool, workerFetch: true })),
  getDecoded: (s, v) => open(zarr.root(s).resolve(v)).then((a) => getDecoded(a)),
  "zarr.get (registerCodecs)": (s, v) => zarr.open(zarr.root(s).resolve(v), { kind: "array" }).then((a) => zarr.get(a)),
  "zarr.get over withWasmCodecs": (s, v) => zarr.open(zarr.root(withWasmCodecs(s)).resolve(v), { kind: "array" }).then((a) => zarr.get(a)),
  "zarr.get over withWasmCodecs, pooled": (s, v) => zarr.open(zarr.root(withWasmCodecs(s, { pool })).resolve(v), { kind: "array" }).then((a) => zarr.get(a)),
};

test("every message of every packing, through scan_grib's references and every path, is kerchunk's codec's values bit for bit", async () => {
  let checked = 0;
  for (const [file, keys] of Object.entries(manifest.reference_keys)) {
    const list = sets(file);
    // (MultiZarrToZarr's combined set, one object, is the steps test's.)
    for (const { set, key, message: [grib, index], expected: values } of keys.filter((k) => Number.isInteger(k.set))) {
      const store = await referenceStore(list[set], { target: `${site.url}/` });
      const variable = key.split("/")[0];
      // kerchunk inlines a message under the inline threshold at "t2m/0" where zarr reads the
      // 2-D array's chunk "t2m/0.0" (tiny.grib2, 3 x 4): zarr-python then finds no chunk and
      // reads the fill value (null: zeros), as make.py checked; so does the package.
      const inlinedAstray = key.split("/")[1].split(".").length < message(grib, index).scan_grib.zarray.shape.length;
      const want = inlinedAstray ? new Float64Array(expected(values).length) : expected(values);
      for (const [how, read] of Object.entries(PATHS)) {
        const got = await read(store, variable);
        sameValues(got.data, want, `${grib} message ${index} (${message(grib, index).keys.packingType}) ${key}, ${how}`, projected(values) ? PROJECTED : 0);
      }
      checked++;
    }
  }
  // (Every message of the manifest that has references and values: simple, complex, spatial
  // differencing, NCEP's missing-value management, IEEE, JPEG 2000, PNG, CCSDS, a global field,
  // the Lambert grid and values equal to the missing value.)
  assert.ok(checked >= 55, `${checked} messages`);
});

/** An in-memory zarr v2 array of one message as its one chunk, kerchunk's filter configured by `filter`. */
function oneMessage(m, filter, dtype = "<f8") {
  const bytes = readFileSync(join(dir, m.file)).subarray(m.offset, m.offset + m.length);
  const shape = m.scan_grib?.zarray?.shape ?? [m.keys.numberOfDataPoints];
  const zarray = { shape, chunks: shape, dtype, fill_value: null, order: "C", filters: [{ id: "grib", ...filter }], compressor: null, zarr_format: 2 };
  const store = new Map([["/a/.zarray", new TextEncoder().encode(JSON.stringify(zarray))], [`/a/${shape.map(() => 0).join(".")}`, bytes]]);
  return { store, bytes, shape };
}

test("with no dtype, values are float32 as kerchunk's codec casts them; latitude and longitude are ecCodes' float64", async () => {
  const grids = new Set();
  for (const m of manifest.messages.filter((m) => m.expected?.float32)) {
    const { store } = oneMessage(m, { var: m.var }, "<f4");
    for (const how of ["get", "zarr.get (registerCodecs)", "get pooled"]) {
      sameValues((await PATHS[how](store, "a")).data, expected(m.expected.float32, Float32Array), `${m.file} ${m.index} float32, ${how}`);
    }
    if (grids.has(m.grid) || !m.expected.latitude) continue;
    grids.add(m.grid);
    for (const v of ["latitude", "longitude"]) {
      const { store } = oneMessage(m, { var: v, dtype: "float64" });
      sameValues((await get(await open(zarr.root(store).resolve("a")))).data, expected(m.expected[v]), `${m.grid} ${v}`, projected(m.expected[v]) ? PROJECTED : 0);
    }
  }
  assert.deepEqual([...grids].sort(), ["g1", "g4", "hrrr", "tiny"]);
});

test("the Lambert grid's coordinates read through scan_grib's references, decoded from the message as ecCodes computes them", async () => {
  const list = sets("lambert.scan_grib.json");
  const m = message("lambert.grib2", 0);
  const store = await referenceStore(list[0], { target: `${site.url}/` });
  const most = {};
  for (const v of ["latitude", "longitude"]) {
    for (const how of ["get", "zarr.get (registerCodecs)", "zarr.get over withWasmCodecs"]) {
      most[v] = sameValues((await PATHS[how](store, v)).data, expected(m.expected[v]), `lambert ${v}, ${how}`, PROJECTED);
    }
  }
  // (What was measured when this was written: the tolerance is not there to be used up.)
  assert.ok(most.latitude <= 11 && most.longitude <= 2, JSON.stringify(most));
});

test("MultiZarrToZarr along steps: four messages, one request on the package's paths, each step the codec's values", async () => {
  const store = await referenceStore(`${site.url}/steps.kerchunk.json`);
  const want = [0, 1, 2, 3].map((i) => expected(message("steps.grib2", i).expected.float64));
  const whole = new Float64Array(want.reduce((n, w) => n + w.length, 0));
  want.forEach((w, i) => whole.set(w, i * w.length));
  for (const how of ["get", "get pooled, workerFetch", "zarr.get over withWasmCodecs"]) {
    const from = site.requests.length;
    const got = await PATHS[how](store, "t2m");
    sameValues(got.data, whole, `steps, ${how}`);
    assert.equal(gribRequests(from).length, 1, `${how}: ${JSON.stringify(gribRequests(from).map((r) => r.range))}`);
  }
  // One step alone: its message's range only.
  const from = site.requests.length;
  const arr = await open(zarr.root(store).resolve("t2m"));
  sameValues((await get(arr, [2, null, null])).data, want[2], "step 2");
  const m = message("steps.grib2", 2);
  assert.deepEqual(gribRequests(from).map((r) => r.range), [`bytes=${m.offset}-${m.offset + m.length - 1}`]);
});

test("gribberish's references: its zarr v3 codec reads gribberish's values, with adjust_longitude_range and north_up too", async () => {
  for (const name of ["steps.gribberish.json", "lambert.gribberish.json", "steps.gribberish-adjusted.json", "lambert.gribberish-adjusted.json"]) {
    const store = await referenceStore(`${site.url}/${name}`);
    const g = manifest.gribberish[name];
    const want = g.gribberish_values.map((v) => expected(v.same_as ?? v.values));
    const whole = new Float64Array(want.reduce((n, w) => n + w.length, 0));
    want.slice(0, g.arrays.tmp.shape[0]).forEach((w, i) => whole.set(w, i * w.length));
    for (const how of ["get", "zarr.get (registerCodecs)", "zarr.get over withWasmCodecs"]) {
      const got = await PATHS[how](store, "tmp");
      sameValues(got.data, whole.subarray(0, got.data.length), `${name}, ${how}`);
    }
  }
});

test("gribberish's references decode a Lambert grid's coordinates from the message: ecCodes' latitudes, longitudes in [-180, 180) as gribberish gives them", async () => {
  const store = await referenceStore(`${site.url}/lambert.gribberish.json`);
  const m = message("lambert.grib2", 0);
  const lon = expected(m.expected.longitude).map((x) => (x >= 180 ? x - 360 : x));
  for (const how of ["get", "zarr.get (registerCodecs)"]) {
    sameValues((await PATHS[how](store, "latitude")).data, expected(m.expected.latitude), `gribberish latitude, ${how}`, PROJECTED);
    const got = (await PATHS[how](store, "longitude")).data;
    sameValues(got, lon, `gribberish longitude, ${how}`, PROJECTED);
    assert.ok(got.every((x) => x < 0), "HRRR's longitudes west of Greenwich, as gribberish gives them");
  }
});

test("refusals: damaged messages are CORRUPT_CHUNK naming the chunk, a write is UNSUPPORTED, and the module keeps working", async () => {
  const m = message("ccsds.grib2", 0);
  const { bytes, shape } = oneMessage(m, { var: m.var, dtype: "float64" });
  const cuts = [0, 4, 15, 16, 40, Math.floor(bytes.length / 2), bytes.length - 5, bytes.length - 1];
  for (const n of cuts) {
    const { store } = oneMessage(m, { var: m.var, dtype: "float64" });
    store.set(`/a/${shape.map(() => 0).join(".")}`, bytes.subarray(0, n));
    for (const how of ["get", "zarr.get over withWasmCodecs"]) {
      const e = await rejection(() => PATHS[how](store, "a"));
      assert.equal(e.code ?? e.cause?.code, "CORRUPT_CHUNK", `cut at ${n}, ${how}: ${e.message}`);
      if (how === "get") assert.match(e.message, /chunk 0\.0/);
    }
  }
  // ecCodes' own unreadable message (a constant field in grid_png with an empty data section).
  const invalid = readFileSync(join(dir, "invalid-png-constant.grib2"));
  const { store } = oneMessage({ ...m, file: "invalid-png-constant.grib2", offset: 0, length: invalid.length, scan_grib: { zarray: { shape: [46, 90] } } }, { var: "x" });
  assert.equal((await rejection(() => PATHS.get(store, "a"))).code, "CORRUPT_CHUNK");
  // A write.
  const ok = oneMessage(m, { var: m.var, dtype: "float64" });
  const arr = await open(zarr.root(ok.store).resolve("a"));
  assert.equal((await rejection(() => set(arr, null, 0))).code, "UNSUPPORTED");
  // And the module reads the next message.
  sameValues((await get(arr)).data, expected(m.expected.float64), "after the refusals");
});
