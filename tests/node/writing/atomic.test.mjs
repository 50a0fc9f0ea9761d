// setAtomic: a write whose later chunk fails to encode leaves every stored chunk as it was
// (zarr.set itself writes the chunks before the failing one); a write that succeeds stores the
// same bytes as zarr.set.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as zarr from "zarrita";
import { registerCodecs, setAtomic } from "zarr-wasm-codecs";

registerCodecs();

// int16 stored without clamp: values beyond +-32767 cannot be encoded.
const META = {
  shape: [4, 6], chunkShape: [2, 3], dtype: "float64", fillValue: 0,
  codecs: [
    { name: "cast_value", configuration: { data_type: "int16" } },
    { name: "bytes", configuration: { endian: "little" } },
  ],
};
const stride = [6, 1];

async function fresh() {
  const store = new Map();
  const arr = await zarr.create(zarr.root(store), META);
  const first = Float64Array.from({ length: 24 }, (_, i) => i);
  await zarr.set(arr, null, { data: first, shape: [4, 6], stride });
  return { store, arr };
}
const snapshot = (store) => new Map([...store].map(([k, v]) => [k, Buffer.from(v).toString("hex")]));

test("a failing write changes no chunk; zarr.set alone leaves earlier chunks written", async () => {
  const bad = Float64Array.from({ length: 24 }, (_, i) => 100 + i);
  bad[23] = 1e9; // in the last chunk

  const plain = await fresh();
  const before = snapshot(plain.store);
  await assert.rejects(zarr.set(plain.arr, null, { data: bad, shape: [4, 6], stride }));
  const changed = [...snapshot(plain.store)].filter(([k, v]) => before.get(k) !== v).length;
  assert.ok(changed > 0, "zarr.set wrote chunks before the failing one");

  const atomic = await fresh();
  const kept = snapshot(atomic.store);
  await assert.rejects(setAtomic(atomic.arr, null, { data: bad, shape: [4, 6], stride }), (e) => {
    let c = e;
    while (c && !c.code && c.cause) c = c.cause;
    assert.equal(c.code, "CAST", String(e));
    return true;
  });
  assert.deepEqual(snapshot(atomic.store), kept);
});

test("a write that succeeds stores what zarr.set stores, partial selections included", async () => {
  const a = await fresh();
  const b = await fresh();
  const part = { data: Float64Array.from([7, 8, 9, 10, 11, 12]), shape: [2, 3], stride: [3, 1] };
  const sel = [zarr.slice(1, 3), zarr.slice(2, 5)];
  await zarr.set(a.arr, sel, part);
  await setAtomic(b.arr, sel, part);
  assert.deepEqual(snapshot(b.store), snapshot(a.store));
  const back = await zarr.get(b.arr, sel);
  assert.deepEqual([...back.data], [7, 8, 9, 10, 11, 12]);
});
