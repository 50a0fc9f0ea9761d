// The zarr-extensions numeric types zarr-python 3.4.2 cannot write (bfloat16, float8/6/4,
// int2/int4/uint2/uint4), on stores written by zarrs 0.23.14 (tests/fixtures/exttypes: make/,
// expected.json, values cross-checked with ml_dtypes): `get` gives the stored bits, bit for bit,
// and `getDecoded` the values they stand for, on one thread and pooled; the registry reads and
// writes their fill values; `set` refuses values outside a type's bits. (Their packbits cases
// are the packbits codec's, not read yet: refused with a code.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { dataType, get, getDecoded, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

import { memoryStore } from "../../fixtures/written/cases.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/exttypes/", import.meta.url));
const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const pool = new WorkerPool(2);
after(() => pool.terminate());

const packbits = (c) => c.codecs.some((x) => x.name === "packbits");
const value = (v) => (v === "NaN" ? NaN : v === "Infinity" ? Infinity : v === "-Infinity" ? -Infinity : v === "-0.0" ? -0 : v);
const openCase = (c) => open(zarr.root(new FileSystemStore(join(dir, c.store))));

test("get: the stored bits of every zarrs case, one thread and pooled", async () => {
  const cases = expected.filter((c) => !packbits(c));
  assert.equal(cases.length, 30);
  for (const c of cases) {
    const arr = await openCase(c);
    assert.equal(arr.dtype, c.data_type);
    for (const options of [{}, { pool }, { pool, useSharedArrayBuffer: false }]) {
      const got = await get(arr, null, options);
      assert.deepEqual(got.shape, c.shape);
      const want = c.bits_hex.map((h) => Number(h));
      // int2 and int4 come as an Int8Array of the sign-extended values (their bytes as stored).
      const bits = Array.from(got.data, (v) => (v < 0 ? v + 256 : v));
      assert.deepEqual(bits, want, `${c.case} ${JSON.stringify(options.useSharedArrayBuffer ?? "")}`);
    }
  }
});

test("getDecoded: the values the bits stand for (ml_dtypes' too), NaN, infinities and -0 included", async () => {
  for (const c of expected.filter((x) => !packbits(x))) {
    const arr = await openCase(c);
    for (const options of [{}, { pool }]) {
      const got = await getDecoded(arr, null, options);
      assert.deepEqual(Array.from(got.data), c.values.map(value), c.case);
    }
  }
});

test("the registry: names, bits, and fill values as zarrs writes them", async () => {
  for (const c of expected.filter((x) => x.case.endsWith("-bytes"))) {
    const t = await dataType(c.data_type);
    assert.equal(t.v2, null);
    assert.equal(t.item_size, c.element_bytes);
    const bytes = t.fillToBytes(JSON.parse(c.fill_value_text));
    const bits = bytes.length === 2 ? bytes[0] | (bytes[1] << 8) : bytes[0];
    assert.equal(bits, Number(c.fill_value_bits_hex), c.case);
    assert.deepEqual(t.fillToJson(bytes), c.fill_value, c.case);
  }
  // What a type cannot hold is refused: a NaN where there is none, a value between patterns.
  const f4 = await dataType("float4_e2m1fn");
  assert.throws(() => f4.fillToBytes("NaN"), { code: "INVALID_SCALAR" });
  assert.throws(() => f4.fillToBytes(1.25), { code: "INVALID_SCALAR" });
  const i4 = await dataType("int4");
  assert.throws(() => i4.fillToBytes(8), { code: "INVALID_SCALAR" });
  assert.deepEqual(i4.fillToBytes(-8), Uint8Array.of(0xf8));
  const bf = await dataType("bfloat16");
  assert.deepEqual(bf.fillToBytes("0x7fc1"), Uint8Array.of(0xc1, 0x7f));
  assert.equal(bf.fillToJson(Uint8Array.of(0xc1, 0x7f)), "0x7fc1");
  assert.equal(bf.fillToJson(Uint8Array.of(0xc0, 0x7f)), "NaN");
});

test("set writes the bits back; values outside a type's bits are refused and nothing is written", async () => {
  for (const name of ["int4-bytes", "uint2-gzip-crc32c", "float4_e2m1fn-bytes", "bfloat16-bytes", "float8_e5m2-gzip-crc32c"]) {
    const c = expected.find((x) => x.case === name);
    const store = memoryStore();
    await store.set("/zarr.json", new Uint8Array(readFileSync(join(dir, c.store, "zarr.json"))));
    const arr = await open(zarr.root(store));
    const source = await get(await openCase(c));
    await set(arr, null, source, { pool });
    assert.deepEqual(Array.from((await get(arr)).data), Array.from(source.data), name);
    const before = new Map(store.files);
    const Lane = source.data.constructor;
    const tooWide = { "int4-bytes": 8, "uint2-gzip-crc32c": 4, "float4_e2m1fn-bytes": 16 }[name];
    if (tooWide !== undefined) {
      await assert.rejects(set(arr, [0, 0], tooWide), { code: "WRONG_ARRAY_TYPE" }, name);
      await assert.rejects(set(arr, [zarr.slice(0, 1), zarr.slice(0, 1)], { data: Lane.of(tooWide), shape: [1, 1], stride: [1, 1] }), { code: "WRONG_ARRAY_TYPE" });
      assert.deepEqual(store.files, before);
    }
  }
});

test("packbits (the codec, not read yet) is refused with a code", async () => {
  const c = expected.find((x) => x.case === "int4-packbits");
  await assert.rejects(get(await openCase(c)), { code: "UNKNOWN_CODEC" });
});
