// A wrapped store read by a zarrita without store extensions (issue: the zarrita apps on npm):
// ome-zarr.js bundles zarrita 0.5, which reads chunks straight from the store it is given, so
// withWasmCodecs does nothing there. Said once (console.warn, naming the key and the fix) when a
// chunk of the wrapped store is read other than through the package; never for the package's
// own reads or zarrita 0.7's through the wrap. zarrita 0.6.1 (zarrita-0.6, a development
// dependency) stands for such a zarrita; zarr-python's store, values against its expected.bin.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import * as old from "zarrita-0.6";
import { get, open, withWasmCodecs } from "zarr-wasm-codecs";

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
// v3_default: float64 with zstd, which zarrita 0.6 reads with its own codecs.
const fixture = join(dir, "v3_default.zarr");
const expected = readFileSync(join(dir, "v3_default.expected.bin"));
const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

async function warningsOf(work) {
  const said = [];
  const warn = console.warn;
  console.warn = (...args) => said.push(args.join(" "));
  try {
    await work();
  } finally {
    console.warn = warn;
  }
  return said;
}

test("a zarrita without store extensions reading through the wrap is told once; the package's and zarrita 0.7's reads are not", async () => {
  const wrapped = withWasmCodecs(new FileSystemStore(fixture));
  const said = await warningsOf(async () => {
    const arr = await old.open.v3(old.root(wrapped), { kind: "array" });
    for (let i = 0; i < 3; i++) assert.deepEqual(bits((await old.get(arr)).data), expected, "zarrita 0.6's own read");
  });
  assert.equal(said.length, 1, said.join("\n"));
  assert.match(said[0], /read straight from a store wrapped by withWasmCodecs/);
  assert.match(said[0], /\/c\/\d+\/\d+/);
  assert.match(said[0], /"overrides": \{ "zarrita": "\$zarrita" \}/);
  assert.match(said[0], /registerCodecs\(/);

  const quiet = await warningsOf(async () => {
    const store = withWasmCodecs(new FileSystemStore(fixture));
    assert.deepEqual(bits((await zarr.get(await zarr.open.v3(zarr.root(store), { kind: "array" }))).data), expected, "zarr.get over the wrap");
    assert.deepEqual(bits((await get(await open(store))).data), expected, "the package's get over the wrap");
    const sharded = withWasmCodecs(new FileSystemStore(join(dir, "v3_sharded_end.zarr")));
    await zarr.get(await zarr.open.v3(zarr.root(sharded), { kind: "array" }));
    await get(await open(sharded), [zarr.slice(0, 5), zarr.slice(0, 5)]);
  });
  assert.deepEqual(quiet, []);
});
