// numcodecs.pcodec on zarrita's path: every store zarr-python 3.4.2 wrote with numcodecs 0.17.1
// + pcodec 1.1.0 (tests/fixtures/pcodec, with the script that wrote them; v3 and v2, each data
// type, mode, delta spec, level and paging, NaN and infinities, packed int16, sharded) reads
// through zarr.get with registerCodecs(), and through the package's get and open, to the
// values zarr-python read, bit for bit; the same values written back by zarr.set are read the
// same; damaged chunks and configurations numcodecs refuses are coded errors naming the array.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { errorCode, get, open, registerCodecs } from "zarr-wasm-codecs";

registerCodecs();

const dir = new URL("../fixtures/pcodec/", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("manifest.json", dir), "utf8"));
const bytesOf = (view) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);

/** A zarr.get result's values in C order (zarrita gives an order F array's in F order, stride [1, ...]). */
function cBytes({ data, shape, stride }) {
  if (shape.length !== 2 || stride[1] === 1) return bytesOf(data);
  const out = new data.constructor(data.length);
  for (let i = 0; i < shape[0]; i++) for (let j = 0; j < shape[1]; j++) out[i * shape[1] + j] = data[i * stride[0] + j * stride[1]];
  return bytesOf(out);
}
const storeOf = (c) => new FileSystemStore(new URL(c.store, dir).pathname);
const expectedOf = (c) => readFileSync(new URL(c.expected, dir));

// float16 arrays need Float16Array, which Node 20 lacks (zarrita refuses to open them there).
const readable = (c) => c.dtype !== "float16" || typeof Float16Array !== "undefined";
// A 64-bit fill value beyond 2^53, which zarr.open's JSON.parse rounds (open() keeps it exact).
const bigFill = (c) => /^-?\d{16,}$/.test(String(c.fill_value));

test("every pcodec store zarr-python wrote reads to zarr-python's values, by zarr.get, get and open", async () => {
  assert.equal(manifest.cases.length, 44);
  let read = 0;
  for (const c of manifest.cases) {
    if (!readable(c)) {
      const e = await open(storeOf(c)).catch((e) => e);
      assert.equal(e.code, "INVALID_METADATA", `${c.case}: ${e}`);
      continue;
    }
    const expected = expectedOf(c);
    const exact = await open(storeOf(c));
    if (c.zarr_format === 2 && bigFill(c)) {
      // Read by zarr.get for now, which has .zarray's fill value rounded: refused, not wrong.
      const e = await get(exact).catch((e) => e);
      assert.equal(e.code, "INEXACT_NUMBER", `${c.case}: ${e}`);
      continue;
    }
    const own = await get(exact);
    assert.deepEqual(own.shape, c.shape, c.case);
    assert.ok(cBytes(own).equals(expected), `${c.case}: get`);
    // (open() hands a zarr v2 array to zarrita as zarrita reads .zarray: a big fill value
    // rounded, which get, set and getDecoded read exactly; README.)
    if (c.zarr_format === 3 || !bigFill(c)) assert.ok(cBytes(await zarr.get(exact)).equals(expected), `${c.case}: zarr.get`);
    if (!bigFill(c)) {
      const arr = await zarr.open(storeOf(c), { kind: "array" });
      assert.ok(cBytes(await zarr.get(arr)).equals(expected), `${c.case}: zarr.open + zarr.get`);
    }
    read++;
  }
  assert.ok(read >= 40, `${read} stores read`);
});

test("values written back by zarr.set with pcodec are read back the same, with zarr-python's configuration", async () => {
  for (const c of manifest.cases.filter((c) => c.zarr_format === 3 && !c.shards && readable(c))) {
    const text = readFileSync(new URL(`${c.store}/zarr.json`, dir));
    const store = new Map([["/zarr.json", new Uint8Array(text)]]);
    const arr = await open(store);
    const original = await get(await open(storeOf(c)));
    await zarr.set(arr, null, original);
    const back = await get(arr);
    assert.ok(bytesOf(back.data).equals(bytesOf(original.data)), c.case);
  }
});

test("damaged or truncated pcodec chunks are CORRUPT_CHUNK naming the array; the module goes on", async () => {
  const c = manifest.cases.find((c) => c.case === "v3_f8_2d_noise");
  const files = storeOf(c);
  const damaged = {
    async get(key, opts) {
      const bytes = await files.get(key, opts);
      if (!key.endsWith("c/0/0") || !bytes) return bytes;
      return bytes.subarray(0, bytes.length >> 1);
    },
  };
  const arr = await zarr.open(damaged, { kind: "array" });
  const e = await zarr.get(arr).catch((e) => e);
  assert.equal(errorCode(e), "CORRUPT_CHUNK", String(e));
  const own = await open(damaged);
  const e2 = await get(own).catch((e) => e);
  assert.equal(e2.code, "CORRUPT_CHUNK", String(e2));
  // The module keeps working.
  assert.ok(bytesOf((await get(await open(storeOf(c)))).data).equals(expectedOf(c)));
});

test("a pcodec configuration numcodecs refuses is INVALID_CONFIG when a chunk is written", async () => {
  const c = manifest.cases.find((c) => c.case === "v3_f8_2d_empty_config");
  const meta = JSON.parse(readFileSync(new URL(`${c.store}/zarr.json`, dir), "utf8"));
  for (const bad of [{ level: 13 }, { delta_spec: "try_consecutive" }, { mode_spec: "try_dict" }, { unknown: 1 }]) {
    meta.codecs = meta.codecs.map((codec) => (codec.name === "numcodecs.pcodec" ? { ...codec, configuration: bad } : codec));
    const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))]]);
    const arr = await open(store);
    const data = new Float64Array(c.shape[0] * c.shape[1]).fill(1.5);
    const e = await zarr.set(arr, null, { data, shape: c.shape, stride: [c.shape[1], 1] }).catch((e) => e);
    assert.equal(errorCode(e), "INVALID_CONFIG", `${JSON.stringify(bad)}: ${e}`);
  }
});
