// zarr-extensions' `reshape` codec and `rectilinear` chunk grid, in the stores zarrs 0.23.14
// writes (tests/fixtures/extensions, with make/: zarr-python 3.4.2 has no reshape codec; it
// reads the rectilinear stores exactly as zarrs does, make/crosscheck.py). Each store is read
// with `get` and `getDecoded` on one thread and pooled (shared and transferred) and must
// equal what zarrs read back, bit for bit, a strided box too; `set` writes each back chunk
// for chunk as zarrs wrote it. What the package does not read with a rectilinear grid is
// refused with a code.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { get, getDecoded, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";
import { coreAccess } from "../../../dist/reading/access.js";
import { memoryStore } from "../../fixtures/written/cases.mjs";
import { everyOther, filesUnder } from "../shared/files.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/extensions/", import.meta.url));
const { cases } = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const CTORS = { int16: Int16Array, uint16: Uint16Array, int32: Int32Array, float32: Float32Array, float64: Float64Array };

const pool = new WorkerPool(2);
after(() => pool.terminate());

/** A case's store, in memory: metadata and chunk files by key (with the range reads shards need). */
function storeOf(c) {
  const store = memoryStore();
  const root = join(dir, "stores", c.store);
  for (const p of filesUnder(root)) store.files.set("/" + relative(root, p).split(sep).join("/"), new Uint8Array(readFileSync(p)));
  return store;
}

function expectedOf(c) {
  const bytes = readFileSync(join(dir, "stores", c.expected));
  const Ctor = CTORS[c.dtype];
  return new Ctor(bytes.buffer, bytes.byteOffset, bytes.byteLength / Ctor.BYTES_PER_ELEMENT);
}

const bits = (v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);

test("the fixtures are every case make/ writes: four reshape stores, two rectilinear ones", () => {
  assert.deepEqual(cases.map((c) => c.case).sort(), [
    "rectilinear_2d", "rectilinear_overflow_3d", "reshape_4d", "reshape_flat_big_endian", "reshape_merge_3d", "reshape_pcodec",
  ]);
});

for (const c of cases) {
  test(`${c.case}: get equals zarrs' read, one thread and pooled; set writes zarrs' chunks`, async () => {
    const arr = await zarr.open(zarr.root(storeOf(c)), { kind: "array" });
    assert.notEqual(typeof (await coreAccess(arr)), "string", "read on the package's own path");
    const want = expectedOf(c);
    for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
      const got = await get(arr, null, options);
      assert.deepEqual(got.shape, c.shape);
      assert.ok(bits(got.data).equals(bits(want)), `${c.case} ${JSON.stringify(Object.keys(options))}: values differ`);
    }
    const box = await get(arr, c.shape.map((d) => zarr.slice(1, d, 2)));
    assert.ok(bits(box.data).equals(bits(everyOther(want, c.shape))), "a strided box");
    // getDecoded: the same values as numbers (no attributes to mask or scale).
    for (const options of [{}, { pool }]) {
      const decoded = await getDecoded(arr, null, options);
      assert.deepEqual(Array.from(decoded.data), Array.from(want, Number), `getDecoded ${JSON.stringify(Object.keys(options))}`);
    }

    // Written back from the values, on one thread and pooled: every chunk zarrs stored, byte
    // for byte (the chunks zarrs left out hold the fill value only).
    for (const options of [{}, { pool }]) {
      const theirs = storeOf(c);
      const ours = memoryStore();
      ours.files.set("/zarr.json", theirs.files.get("/zarr.json"));
      const target = await zarr.open(zarr.root(ours), { kind: "array" });
      await set(target, null, { data: want, shape: c.shape, stride: c.shape.map((_, i) => c.shape.slice(i + 1).reduce((a, b) => a * b, 1)) }, options);
      for (const [key, bytes] of theirs.files) {
        if (key === "/zarr.json") continue;
        assert.ok(ours.files.has(key), `${key} written`);
        assert.ok(Buffer.from(ours.files.get(key)).equals(Buffer.from(bytes)), `${key}: other bytes than zarrs'`);
      }
      assert.ok(bits((await get(target)).data).equals(bits(want)), "read back");
    }
  });
}

test("a reshape the spec forbids is refused at open (INVALID_CONFIG), naming the codec", async () => {
  const c = cases.find((k) => k.case === "reshape_merge_3d");
  const store = storeOf(c);
  const meta = JSON.parse(new TextDecoder().decode(store.files.get("/zarr.json")));
  meta.codecs[0].configuration.shape = [[1], [0, 2]];
  store.files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
  await assert.rejects(open(zarr.root(store)), (e) => e.code === "INVALID_CONFIG" && /reshape/.test(e.message) && /increasing/.test(e.message));
});

test("a rectilinear grid with sharding, with a codec that codes a chunk whole, or of another kind is refused (UNSUPPORTED)", async () => {
  const c = cases.find((k) => k.case === "rectilinear_2d");
  const edit = async (change) => {
    const store = storeOf(c);
    const meta = JSON.parse(new TextDecoder().decode(store.files.get("/zarr.json")));
    change(meta);
    store.files.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
    return open(zarr.root(store));
  };
  const sharded = (m) => {
    m.codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [1, 1], codecs: m.codecs, index_codecs: [{ name: "bytes", configuration: { endian: "little" } }] } }];
  };
  const pcodec = (m) => {
    m.codecs = [{ name: "numcodecs.pcodec", configuration: { level: 8, mode_spec: "auto", delta_spec: "auto", paging_spec: "equal_pages_up_to", delta_encoding_order: null, equal_pages_up_to: 262144 } }];
  };
  for (const [what, change, pattern] of [
    ["sharding", sharded, /sharding_indexed with a rectilinear chunk grid/],
    ["pcodec", pcodec, /codes a chunk whole with a rectilinear chunk grid/],
    ["another kind", (m) => void (m.chunk_grid.configuration.kind = "file"), /kind "file" is not read/],
  ]) {
    await assert.rejects(edit(change), (e) => e.code === "UNSUPPORTED" && pattern.test(e.message), what);
  }
  // Edges that stop before the array's end are not a grid of it.
  await assert.rejects(edit((m) => void (m.chunk_grid.configuration.chunk_shapes[0] = [7, 7])), (e) => e.code === "INVALID_METADATA" && /end at 14, before the array's 30/.test(e.message));
});
