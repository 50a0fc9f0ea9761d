// registerCodecs() called after an array was opened, and after a read failed for want of it:
// get and getDecoded look codecs up as they read, so the same array object reads once it is
// called. Arrays the package's own path reads need no registration at all. (Its own process:
// nothing is registered when it starts.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import * as zarr from "zarrita";
import { errorCode, get, getDecoded, registerCodecs } from "zarr-wasm-codecs";

import { zfpArrayMeta, zfpChunkKey, zfpStore } from "../../browser/zfp-store.js";

const cases = JSON.parse(readFileSync(new URL("../../fixtures/zfp/cases.json", import.meta.url), "utf8"));
const fromHex = (s) => new Uint8Array(Buffer.from(s, "hex"));
const hex = (view) => Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString("hex");

/**
 * The case's store with an identity transpose before zfp: a chain the package's own path
 * leaves to zarr.get, which needs zfp in zarrita's registry.
 */
function viaZarrita(c) {
  const meta = zfpArrayMeta(c);
  meta.codecs.unshift({ name: "transpose", configuration: { order: c.shape.map((_, i) => i) } });
  return new Map([
    ["/zarr.json", new TextEncoder().encode(JSON.stringify(meta))],
    [zfpChunkKey(c), fromHex(c.stream)],
  ]);
}

test("get of a zfp array opened before registerCodecs() says to call it, and reads once it is called, from the same array", async () => {
  const c = cases.find((x) => x.data_type === "float64" && x.shape.length === 2 && x.configuration.mode === "reversible");
  // zfp on the package's own path needs no registration.
  const plain = await zarr.open.v3(zarr.root(zfpStore(c, fromHex(c.stream))), { kind: "array" });
  assert.equal(hex((await get(plain)).data), c.decoded);
  const arr = await zarr.open.v3(zarr.root(viaZarrita(c)), { kind: "array" });
  const before = await get(arr).then(() => assert.fail("read zfp without its codec"), (x) => x);
  assert.equal(before.code, "UNKNOWN_CODEC");
  assert.match(before.message, /^array "\/": zfp is this package's codec.*registerCodecs\(\)/);
  assert.equal(errorCode(await getDecoded(arr).catch((x) => x)), "UNKNOWN_CODEC");
  // zarrita, asked directly, keeps the failed lookup for the life of the array object.
  await assert.rejects(zarr.get(arr), /Unknown codec: zfp/);
  const other = await zarr.open.v3(zarr.root(viaZarrita(c)), { kind: "array" });
  registerCodecs();
  await assert.rejects(zarr.get(arr), /Unknown codec: zfp/);
  // The package's get looks the codec up as it reads: both arrays read zfpy's values.
  assert.equal(hex((await get(arr)).data), c.decoded);
  assert.equal(hex((await get(other)).data), c.decoded);
  const decoded = await getDecoded(arr);
  assert.deepEqual(decoded.data, new Float64Array(new Uint8Array(Buffer.from(c.decoded, "hex")).buffer));
});
