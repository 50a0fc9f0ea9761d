// The GPU decode (gpuDecoder): in Node, its table against get on every stored-values fixture
// and its refusals; in headless Chromium (WebGL2 and WebGPU, on SwiftShader), every stored
// value of int8, uint8, int16, uint16 and float16 under several chains each, decoded by the
// generated GLSL and WGSL from getStored's values, equal to the CPU's get rounded to float32
// (tests/browser/gpu-check.js), with a control that the comparison sees a wrong table.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { errorCode, get, getStored, gpuDecoder, registerCodecs, webgl2Textures, webgpuResources } from "zarr-wasm-codecs";

import { serve } from "../../../scripts/serve.mjs";
import { launchChromium } from "../shared/chromium.mjs";
import { memoryStore, rejection } from "../shared/files.mjs";

registerCodecs();

const root = fileURLToPath(new URL("../../../", import.meta.url));
const { cases } = JSON.parse(readFileSync(join(root, "tests/fixtures/stored/manifest.json"), "utf8"));

/** An array of the repository's stores, read from memory. */
const open = (path) => zarr.open(zarr.root(memoryStore(join(root, path))), { kind: "array" });

/** An in-memory array of this metadata, no chunk stored. */
function metadataOnly(meta) {
  const doc = {
    zarr_format: 3, node_type: "array", shape: [4, 4], chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 2] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } }, attributes: {}, ...meta,
  };
  const files = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(doc))]]);
  return zarr.open(zarr.root({ get: async (k) => files.get(k) }), { kind: "array" });
}

const same = (a, b) => Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));

// This store's fill value, -9999, is stored (clamped) as -32768, the NaN sentinel: its missing
// chunks read -9999 and a chunk of -9999s written reads NaN, which no shader of stored values
// can tell apart.
const FILL_LOST = "written__stores__v3_packed_int16_gzip";

for (const c of cases) {
  test(`${c.case}: the table maps getStored's values to get's, rounded to float32`, async () => {
    const arr = await open(c.store);
    if (c.case === FILL_LOST) {
      const e = await rejection(() => gpuDecoder(arr));
      assert.equal(errorCode(e), "NOT_ON_GPU");
      assert.match(e.message, /fill value \(-9999\) is stored as -32768, which decodes to NaN/);
      return;
    }
    const d = await gpuDecoder(arr);
    assert.equal(d.storedDataType, c.data_type);
    assert.equal(d.table.length, c.data_type.endsWith("8") ? 256 : 65536);
    assert.deepEqual(d.tableShape, [256, d.table.length / 256]);
    assert.equal(d.storedFill, Number(c.fill_value));
    const [stored, values] = [await getStored(arr), await get(arr)];
    for (let i = 0; i < stored.data.length; i++) {
      const got = d.table[stored.data[i] + d.tableOffset];
      if (!same(got, Math.fround(values.data[i]))) assert.fail(`value ${i}: table gives ${got}, get ${values.data[i]}`);
    }
    assert.match(d.glsl, /float zarrDecode\(highp u?int stored\)/);
    assert.match(d.wgsl, /fn zarr_decode\(stored: [iu]32\) -> f32/);
  });
}

test("the names and bindings of the generated code follow the options", async () => {
  const arr = await open(cases[0].store);
  const d = await gpuDecoder(arr, { prefix: "sst", group: 1, binding: 3 });
  assert.match(d.glsl, /uniform highp usampler2D sstStored;/);
  assert.match(d.glsl, /float sstDecodeAt\(ivec2 texel\)/);
  assert.match(d.wgsl, /@group\(1\) @binding\(3\) var sst_stored: texture_2d<u32>;/);
  assert.match(d.wgsl, /@group\(1\) @binding\(4\) var<storage, read> sst_table: array<f32, 256>;/);
  assert.deepEqual(d.storedFormat.webgl2, { internalFormat: "R8UI", format: "RED_INTEGER", type: "UNSIGNED_BYTE" });
  assert.equal(d.storedFormat.webgpu, "r8uint");
  for (const bad of [{ prefix: "9x" }, { prefix: "gl_x" }, { prefix: "a b" }, { group: -1 }, { binding: 1.5 }]) {
    assert.equal(errorCode(await rejection(() => gpuDecoder(arr, bad))), "INVALID_ARGUMENT", JSON.stringify(bad));
  }
});

test("chains a shader cannot reproduce are refused with NOT_ON_GPU", async () => {
  const refused = [
    // float64 stored as it is; zfp of floats; numcodecs' fixedscaleoffset (a v2 filter) to float32.
    await open("tests/fixtures/stores/v3_default.zarr"),
    await open("tests/fixtures/stores/v2_fixedscaleoffset_f4_u1.zarr"),
    await open("tests/fixtures/pcodec/v2_f8_2d_pcodec_default.zarr"),
    // 64-bit integers stored; a 64-bit array decoded from int16; a 32-bit stored type.
    await open("tests/fixtures/stores/v3_int64_bigfill.zarr"),
    await metadataOnly({ data_type: "int64", fill_value: 0, codecs: [{ name: "cast_value", configuration: { data_type: "int16" } }, { name: "bytes" }] }),
    await metadataOnly({ data_type: "float64", fill_value: 0, codecs: [{ name: "scale_offset", configuration: { scale: 10 } }, { name: "cast_value", configuration: { data_type: "int32" } }, { name: "bytes" }] }),
    // A fill value the codecs store as 1 (0.123 * 10, rounded), which decodes to 0.1.
    await metadataOnly({ data_type: "float64", fill_value: 0.123, codecs: [{ name: "scale_offset", configuration: { scale: 10 } }, { name: "cast_value", configuration: { data_type: "uint8" } }, { name: "bytes" }] }),
    // Integer decode that division cannot give exactly for every stored value.
    await metadataOnly({ data_type: "int32", fill_value: 0, codecs: [{ name: "scale_offset", configuration: { scale: 3 } }, { name: "cast_value", configuration: { data_type: "int8" } }, { name: "bytes" }] }),
  ];
  for (const arr of refused) {
    const e = await rejection(() => gpuDecoder(arr));
    assert.equal(errorCode(e), "NOT_ON_GPU", e.message);
    assert.match(e.message, /use get/);
  }
});

test("the texture helpers refuse a chunk that is not getStored's 2-D result", async () => {
  const arr = await open(cases[0].store);
  const d = await gpuDecoder(arr);
  const gl = {};
  const device = {};
  const checks = [
    [{ data: new Uint8Array(8), shape: [2, 2, 2] }, "INVALID_ARGUMENT"],
    [{ data: new Uint8Array(8), shape: [2, 3] }, "SHAPE_MISMATCH"],
    [{ data: new Int8Array(4), shape: [2, 2] }, "WRONG_ARRAY_TYPE"],
    [new Uint8Array(4), "INVALID_ARGUMENT"],
  ];
  for (const [chunk, code] of checks) {
    assert.throws(() => webgl2Textures(gl, d, chunk), (e) => errorCode(e) === code);
    assert.throws(() => webgpuResources(device, d, chunk), (e) => errorCode(e) === code);
  }
});

let server;
let browser;
let run;
before(async () => {
  server = await serve(root);
  browser = await launchChromium({ webgpu: true });
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/browser/gpu.html`);
  await page.waitForFunction(() => window.gpuCheck);
  run = await page.evaluate(() => window.gpuCheck());
  assert.deepEqual(problems, []);
});
after(async () => {
  await browser?.close();
  server?.close();
});

test("Chromium offers WebGL2 and a WebGPU adapter (SwiftShader)", () => {
  assert.match(run.webgl2, /WebGL 2\.0/);
  assert.ok(run.webgpu, "no WebGPU adapter");
});

test("every stored value of every 8- and 16-bit type, through the generated GLSL and WGSL, is get's float32", () => {
  const decoded = run.results.filter((r) => r.api === "webgl2" || r.api === "webgpu");
  // 5 stored types x 3-5 chains x 2 APIs.
  assert.equal(decoded.length, 2 * (4 * 5 + 3));
  for (const r of decoded) {
    assert.equal(r.wrong, 0, `${r.api} ${r.name}: ${JSON.stringify(r.examples)}`);
    assert.equal(r.equal + r.nan, r.values, `${r.api} ${r.name}`);
  }
  const counted = (type) => decoded.filter((r) => r.name.startsWith(`${type}:`) && r.api === "webgl2").map((r) => r.values);
  // Each array holds every stored value once, and as many values of the missing chunk's fill.
  for (const type of ["int16", "uint16", "float16"]) assert.ok(counted(type).every((n) => n === 2 * 65536));
  for (const type of ["int8", "uint8"]) assert.ok(counted(type).every((n) => n === 2 * 256));
});

test("the comparison sees a wrong decode: a table one entry off fails on every case", () => {
  const controls = run.results.filter((r) => r.api.includes("control"));
  assert.equal(controls.length, 4 * 5 + 3);
  for (const r of controls) assert.ok(r.wrong > 0, r.name);
});

test("float32 arithmetic in the shader (scale and offset as uniforms) is not get's: measured, for the README", (t) => {
  const naive = run.results.filter((r) => r.api.includes("arithmetic"));
  assert.equal(naive.length, 4);
  for (const r of naive) t.diagnostic(`${r.name}: ${r.wrong} of ${r.values} values differ, by up to ${r.ulps} ulps`);
  assert.ok(naive.some((r) => r.wrong > 0));
});
