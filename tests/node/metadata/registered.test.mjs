// An application's own data type (registerDataType): a 24-bit signed integer, "int24", which no
// library ships, written by zarr-python 3.4.2 through its own data-type extension mechanism
// (the Int24 class in tests/fixtures/dtypes/generate.py). Read by open/get on one thread and in
// a pool, written back by set (also sharded), refused where it must be.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { dataTypeOf, get, getDecoded, open, registerCodecs, registerDataType, set, WorkerPool } from "zarr-wasm-codecs";

import { memoryStore } from "../../fixtures/written/cases.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/dtypes/", import.meta.url));
const want = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")).find((c) => c.case === "int24.v3");
const pool = new WorkerPool(2);
after(() => pool.terminate());

/** Three bytes, little-endian two's complement, as Int24 in generate.py lays it out. */
const int24 = {
  name: "int24",
  lanes: 3,
  defaultFill: 0,
  fillToBytes(fill) {
    if (!Number.isInteger(fill) || fill < -(2 ** 23) || fill >= 2 ** 23) throw new RangeError(`${fill} is not a 24-bit integer`);
    return Uint8Array.of(fill & 255, (fill >> 8) & 255, (fill >> 16) & 255);
  },
  fillToJson: (b) => ((b[0] | (b[1] << 8) | (b[2] << 16)) << 8) >> 8,
  toItems: (lanes, count) =>
    Int32Array.from({ length: count }, (_, i) => ((lanes[3 * i] | (lanes[3 * i + 1] << 8) | (lanes[3 * i + 2] << 16)) << 8) >> 8),
  fromItems(items, count) {
    const out = new Uint8Array(3 * count);
    for (let i = 0; i < count; i++) out.set(int24.fillToBytes(items[i]), 3 * i);
    return out;
  },
};

test("registerDataType refuses malformed definitions and names the package has", async () => {
  for (const bad of [null, { ...int24, name: "" }, { ...int24, lanes: 0 }, { ...int24, lane: "int3" }, { ...int24, fillToJson: 1 }, { ...int24, name: "complex64" }]) {
    await assert.rejects(registerDataType(bad), { code: "INVALID_ARGUMENT" });
  }
});

test("an unregistered type is refused at open (UNKNOWN_DATA_TYPE), before any chunk is read", async () => {
  await assert.rejects(open(zarr.root(new FileSystemStore(join(dir, want.store)))), { code: "UNKNOWN_DATA_TYPE" });
});

test("int24 written by zarr-python reads exactly once registered: get, pooled get, one item", async () => {
  await registerDataType(int24);
  const arr = await open(zarr.root(new FileSystemStore(join(dir, want.store))));
  assert.equal(arr.dtype, "int24");
  for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
    const got = await get(arr, null, options);
    assert.ok(got.data instanceof Int32Array);
    assert.deepEqual(Array.from(got.data), want.values);
  }
  assert.equal(await get(arr, [4]), 8388607);
  assert.deepEqual(Array.from((await get(arr, [zarr.slice(5, 9)])).data), want.values.slice(5, 9));
  const t = await dataTypeOf(arr);
  assert.equal(t.name, "int24");
  assert.equal(t.item_size, 3);
  assert.deepEqual(t.fillToBytes(-5), Uint8Array.of(0xfb, 0xff, 0xff));
  assert.equal(t.fillToJson(Uint8Array.of(0xfb, 0xff, 0xff)), -5);
  // zarrita has no int24: its own read is refused, not handed bytes of another type.
  await assert.rejects(zarr.get(arr), { code: "UNSUPPORTED_DATA_TYPE" });
  await assert.rejects(getDecoded(arr), { code: "UNSUPPORTED_DATA_TYPE" });
});

for (const sharded of [false, true]) {
  test(`set writes int24 (${sharded ? "sharded" : "chunks"}), read back; out-of-range items refused and nothing written`, async () => {
    await registerDataType(int24).catch(() => {});
    const meta = JSON.parse(readFileSync(join(dir, want.store, "zarr.json"), "utf8"));
    if (sharded) {
      meta.chunk_grid.configuration.chunk_shape = [6];
      meta.codecs = [{ name: "sharding_indexed", configuration: { chunk_shape: [3], codecs: meta.codecs, index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }] } }];
    }
    for (const options of [{}, { pool }]) {
      const store = memoryStore();
      await store.set("/zarr.json", new TextEncoder().encode(JSON.stringify(meta)));
      const arr = await open(zarr.root(store));
      const values = Int32Array.from(want.values);
      await set(arr, null, { data: values, shape: [11], stride: [1] }, options);
      assert.deepEqual(Array.from((await get(arr, null, options)).data), want.values);
      await set(arr, [zarr.slice(2, 4)], { data: Int32Array.of(7, -7), shape: [2], stride: [1] }, options);
      await set(arr, [10], -8388608, options);
      const back = Array.from((await get(arr)).data);
      assert.deepEqual(back, [...want.values.slice(0, 2), 7, -7, ...want.values.slice(4, 10), -8388608]);
      const before = new Map(store.files);
      await assert.rejects(set(arr, [0], 2 ** 23, options), { code: "WRONG_ARRAY_TYPE" });
      await assert.rejects(set(arr, null, { data: new Float64Array(11).fill(0.5), shape: [11], stride: [1] }, options), { code: "WRONG_ARRAY_TYPE" });
      assert.deepEqual(store.files, before);
    }
  });
}

test("a fill value the registered type cannot hold is refused at open (INVALID_SCALAR), naming the array", async () => {
  await registerDataType(int24).catch(() => {});
  const meta = JSON.parse(readFileSync(join(dir, want.store, "zarr.json"), "utf8"));
  const store = memoryStore();
  await store.set("/a/zarr.json", new TextEncoder().encode(JSON.stringify({ ...meta, fill_value: 2 ** 24 })));
  await assert.rejects(open(zarr.root(store).resolve("a")), (e) => e.code === "INVALID_SCALAR" && e.message.includes('"/a"'));
});
