// Stores the package's `set` writes, held to what zarr-python 3.4.2 (numcodecs 0.17.1) read
// exactly: tests/fixtures/written (cases.mjs, write.mjs, check.py, verified.json). Each case's
// writes are re-run here into an in-memory store, on one thread and in a pool, and every
// stored file must be the one check.py hashed after zarr-python read the store value for
// value: the same keys, and the same sha256 for each. A change to an encoder fails here until
// the fixtures are rewritten (write.mjs) and verified again (check.py).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";

import { registerCodecs, WorkerPool } from "zarr-wasm-codecs";
import { coreAccess } from "../../../dist/reading/access.js";
import { vlenAccess } from "../../../dist/reading/vlen.js";

import { CASES, memoryStore, runCase } from "../../fixtures/written/cases.mjs";

registerCodecs();

const dir = new URL("../../fixtures/written/", import.meta.url);
const verified = JSON.parse(readFileSync(new URL("verified.json", dir), "utf8"));

const pool = new WorkerPool(2);
after(() => pool.terminate());


const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

test("verified.json: zarr-python read every case exactly, and the cases are the ones it checked", () => {
  assert.deepEqual(verified.versions, { zarr: "3.4.2", numcodecs: "0.17.1", pcodec: "1.1.0", "cast-value-rs": "0.5.1" });
  assert.deepEqual(Object.keys(verified.cases).sort(), CASES.map((c) => c.name).sort());
  for (const c of CASES) {
    const v = verified.cases[c.name];
    assert.equal(v.reads_exactly, true, `${c.name}: ${v.difference}`);
    assert.equal(v.lossy, c.lossy ?? false, c.name);
    // The recipe check.py rebuilt the values from is this case's.
    const input = JSON.parse(readFileSync(new URL(`stores/${c.name}.input.json`, dir), "utf8"));
    assert.deepEqual(input, JSON.parse(JSON.stringify({ name: c.name, lossy: c.lossy ?? false, meta: c.meta, writes: c.writes })), c.name);
  }
});

for (const via of ["one thread", "pool"]) {
  test(`every case written again (${via}) is the store zarr-python verified, file for file`, async (t) => {
    for (const c of CASES) {
      await t.test(c.name, async () => {
        const store = memoryStore();
        const arr = await runCase(c, store, via === "pool" ? { pool } : {});
        // Written on the package's own path (its wasm encoders), not left to zarr.set: the
        // chunk reader's, or for strings and bytes of any length js/reading/vlen.ts's.
        const a = await coreAccess(arr);
        const v = typeof a === "string" ? await vlenAccess(arr) : undefined;
        const own = v ? v.layout.codecs_fallback === null : typeof a !== "string" && a.layout.writes_here && a.layout.codecs_fallback === null;
        assert.ok(own, `${c.name} is not written by the package's own path`);
        const got = Object.fromEntries([...store.files].map(([key, bytes]) => [key.replace(/^\//, ""), sha256(bytes)]));
        const want = verified.cases[c.name].files;
        assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), "the stored keys");
        for (const key of Object.keys(want)) assert.equal(got[key], want[key], key);
      });
    }
  });
}
