// Strings and bytes of any length (zarr v3 `string` / `variable_length_bytes` with vlen-utf8 /
// vlen-bytes; zarr v2 `|O` with that filter) on the package's own path: `get` reads what
// zarr-python 3.4.2 reads from its stores (tests/fixtures/vlen, make.py), whole, strided and
// by integer, missing chunks as the fill value; a damaged chunk is refused with a code naming
// the array and the chunk; `set` writes them (zarr-python reads back what was written:
// tests/fixtures/written's v3_string_*, v3_vlen_bytes, v2_string_zlib, v2_vlen_bytes_partial,
// checked by check.py and held to its hashes by writes.test.mjs) all or nothing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";

import { get, open, set, WorkerPool } from "zarr-wasm-codecs";
import { everyOther, memoryStore } from "../shared/files.mjs";

const dir = fileURLToPath(new URL("../../fixtures/vlen/", import.meta.url));
const cases = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const hex = (b) => Buffer.from(b).toString("hex");
const asListed = (c, items) => items.map((x) => (c.kind === "string" ? x : hex(x)));

test("the vlen stores: strings and bytes, zarr v3 and v2", () => {
  assert.equal(cases.length, 8);
  assert.deepEqual(new Set(cases.map((c) => `${c.kind} v${c.zarr_format}`)), new Set(["string v3", "bytes v3", "string v2", "bytes v2"]));
});

for (const c of cases) {
  test(`${c.case}: get reads zarr-python's items, whole, strided and one at a time${c.fallback ? " (through zarr.get)" : ", without zarrita's codecs"}`, async () => {
    // zarrita's own vlen-utf8 is taken out of its registry for the read: the package's path
    // reads these arrays itself (and zarrita has no vlen-bytes at all).
    // (A sharded one is handed to zarr.get, with zarrita's codecs: make.py marks it.)
    const saved = c.fallback ? [] : ["vlen-utf8", "numcodecs.vlen-utf8"].map((n) => [n, zarr.registry.get(n)]);
    for (const [n] of saved) zarr.registry.delete(n);
    const pool = new WorkerPool(1);
    try {
      const arr = await open(zarr.root(memoryStore(join(dir, c.store))));
      for (const options of [{}, { pool }]) {
        const got = await get(arr, null, options);
        assert.deepEqual(got.shape, c.shape);
        assert.deepEqual(asListed(c, got.data), c.items, `${c.case}: the items`);
      }
      const selection = c.shape.map((d) => zarr.slice(1, d, 2));
      const box = await get(arr, selection);
      assert.deepEqual(asListed(c, box.data), everyOther(c.items, c.shape), "a strided box");
      // The missing chunk's first item, by integer: the fill value.
      const at = c.missing_chunk.map((k, i) => k * c.chunks[i]);
      const one = await get(arr, at);
      const flat = at.reduce((n, x, i) => n * c.shape[i] + x, 0);
      assert.deepEqual(asListed(c, [one])[0], c.items[flat], "one item");
      const fill = c.kind === "string" ? c.fill_value : hex(Uint8Array.from(atob(c.fill_value ?? ""), (ch) => ch.charCodeAt(0)));
      assert.equal(asListed(c, [one])[0], fill, "the missing chunk reads as the fill value");
    } finally {
      for (const [n, entry] of saved) if (entry) zarr.registry.set(n, entry);
      await pool.terminate();
    }
  });
}

test("a damaged or cut chunk is CORRUPT_CHUNK naming the array and the chunk; the array reads again once mended", async () => {
  const c = cases.find((m) => m.case === "v3_string_3d_none");
  const store = memoryStore(join(dir, c.store));
  const good = store.files.get("/c/0/0/0");
  const arr = await open(zarr.root(store));
  for (const bad of [good.slice(0, good.length - 1), Uint8Array.from([...good, 0]), Uint8Array.from(good, (b, i) => (i === 0 ? b + 1 : b))]) {
    store.files.set("/c/0/0/0", bad);
    await assert.rejects(get(arr), (e) => e.code === "CORRUPT_CHUNK" && /^array "\/": chunk c\/0\/0\/0: /.test(e.message), "refused");
  }
  // Not UTF-8: the first item's first byte made 0xff.
  const notUtf8 = good.slice();
  const firstLength = new DataView(notUtf8.buffer).getUint32(4, true);
  if (firstLength > 0) {
    notUtf8[8] = 0xff;
    store.files.set("/c/0/0/0", notUtf8);
    await assert.rejects(get(arr), (e) => e.code === "CORRUPT_CHUNK" && /not UTF-8/.test(e.message));
  }
  store.files.set("/c/0/0/0", good);
  assert.deepEqual((await get(arr)).data, c.items);
});

test("set writes strings and bytes: read back as written, a partial chunk keeping its other items; a wrong value changes nothing", async () => {
  for (const c of cases.filter((m) => !m.fallback)) {
    const store = memoryStore(join(dir, c.store));
    store.set = async (k, v) => void store.files.set(k, v);
    const arr = await open(zarr.root(store));
    // A box across chunk edges and the missing chunk.
    const selection = c.shape.map((d) => zarr.slice(Math.floor(d / 3), d));
    const shape = c.shape.map((d) => d - Math.floor(d / 3));
    const n = shape.reduce((a, b) => a * b, 1);
    const items = Array.from({ length: n }, (_, i) => (c.kind === "string" ? `s${i}·🌍`.repeat(i % 3) : Uint8Array.from({ length: i % 4 }, (_, k) => (i * 7 + k) & 255)));
    const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
    await set(arr, selection, { data: items, shape, stride });
    const back = await get(arr, selection);
    assert.deepEqual(asListed(c, back.data), asListed(c, items), `${c.case}: the box`);
    const whole = asListed(c, (await get(arr)).data);
    const inBox = (flat) => {
      let rest = flat;
      return c.shape
        .map((d) => d)
        .reverse()
        .map((d) => {
          const x = rest % d;
          rest = Math.floor(rest / d);
          return x;
        })
        .reverse()
        .every((x, i) => x >= Math.floor(c.shape[i] / 3));
    };
    whole.forEach((x, i) => inBox(i) || assert.equal(x, c.items[i], `${c.case}: item ${i} outside the box kept`));
    // One item for the whole selection; then values of the wrong kind, refused.
    const one = c.kind === "string" ? "same" : Uint8Array.of(1, 2);
    await set(arr, [zarr.slice(0, 1)], one);
    const row = await get(arr, [0]);
    const rowItems = c.shape.length === 1 ? [row] : row.data;
    assert.equal(rowItems.length, c.shape.slice(1).reduce((a, b) => a * b, 1));
    assert.deepEqual(asListed(c, rowItems), asListed(c, rowItems.map(() => one)), `${c.case}: one item for the selection`);
    const before = new Map(store.files);
    for (const [value, code] of [
      [c.kind === "string" ? 7 : "text", "WRONG_ARRAY_TYPE"],
      [{ data: items.slice(1), shape, stride }, "WRONG_ARRAY_TYPE"],
      [{ data: items, shape: [n], stride: [1] }, "SHAPE_MISMATCH"],
    ]) {
      if (shape.length === 1 && code === "SHAPE_MISMATCH") continue;
      await assert.rejects(set(arr, selection, value), (e) => e.code === code, `${c.case}: ${code}`);
    }
    assert.deepEqual(store.files, before, `${c.case}: a refused write changes nothing`);
  }
});
