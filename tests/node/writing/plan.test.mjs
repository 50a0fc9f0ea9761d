// The packing planner from JavaScript: planPacking for data and for ranges, writePacked, and the
// round trip through zarr-python 3.4.2: the stores this package writes (fixtures/plan, made by
// make.mjs) read back in zarr-python (read.py recorded it) within each plan's stated bound, with
// NaN and the infinities through their sentinels.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { planPacking, registerCodecs, writePacked } from "zarr-wasm-codecs";

import { CASES } from "../fixtures/plan/cases.mjs";
import { makeStores } from "../fixtures/plan/make.mjs";
import { filesUnder } from "../shared/files.mjs";

registerCodecs();

const fixtures = fileURLToPath(new URL("../fixtures/plan/", import.meta.url));
const expected = JSON.parse(readFileSync(join(fixtures, "expected.json"), "utf8"));

/** Checks `back` against `data` as a plan promises: within the bound, sentinels kept. */
function assertWithinPlan(data, back, plan, label) {
  const unsigned = plan.target.startsWith("u");
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    const y = back[i];
    if (Number.isNaN(x) || (x === -Infinity && unsigned)) {
      assert.ok(Number.isNaN(y), `${label}[${i}]: ${x} read back as ${y}, want NaN`);
    } else if (!Number.isFinite(x)) {
      assert.equal(y, x, `${label}[${i}]`);
    } else {
      assert.ok(Math.abs(x - y) <= plan.max_abs_error, `${label}[${i}]: ${x} -> ${y}, bound ${plan.max_abs_error}`);
    }
  }
}

test("zarr-python reads the planned stores within each plan's bound, sentinels included", async () => {
  assert.deepEqual(Object.keys(expected).sort(), CASES.map((c) => c.name).sort());
  for (const c of CASES) {
    const data = c.data();
    const plan = await planPacking(data, c.options);
    const want = expected[c.name];
    assert.deepEqual(want.shape, c.shape);
    const bytes = Buffer.from(want.read_hex, "hex");
    const Ctor = data.constructor;
    const back = new Ctor(bytes.buffer, bytes.byteOffset, bytes.length / Ctor.BYTES_PER_ELEMENT);
    assertWithinPlan(data, back, plan, c.name);
  }
});

test("the package still writes those stores byte for byte", async () => {
  const dir = mkdtempSync(join(tmpdir(), "planned-"));
  await makeStores(dir);
  const committed = join(fixtures, "stores");
  const theirs = filesUnder(committed).map((p) => relative(committed, p)).sort();
  const ours = filesUnder(dir).map((p) => relative(dir, p)).sort();
  assert.deepEqual(ours, theirs);
  for (const f of theirs) {
    assert.equal(readFileSync(join(dir, f)).toString("hex"), readFileSync(join(committed, f)).toString("hex"), f);
  }
});

test("writePacked then zarr.get reads back within the bound; a range plans as the data do", async () => {
  const data = new Float64Array([3.5, -2.25, NaN, 7.125, Infinity, -Infinity, 0, 1e-3]);
  const store = new Map();
  const { array, plan } = await writePacked(zarr.root(store), data, { shape: [2, 4], chunkShape: [2, 2], target: "int16" });
  assert.equal(plan.target, "int16");
  assert.deepEqual(plan.sentinels, { missing: -32768, Infinity: 32767, "-Infinity": -32767 });
  assert.equal(plan.attributes.missing_value, "NaN");
  assert.equal(plan.attributes.zarr_conventions[0].name, "missing_value");
  const back = await zarr.get(array);
  assertWithinPlan(data, back.data, plan, "writePacked");
  const fromRange = await planPacking({ min: -2.25, max: 7.125 }, { target: "int16" });
  assert.deepEqual(fromRange, plan);
});

test("64-bit sentinels beyond 2^53 come as decimal strings; integer data narrow by the note", async () => {
  const plan = await planPacking({ min: 0, max: 1 }, { target: "int64" });
  assert.deepEqual(plan.sentinels, {
    missing: "-9223372036854775808",
    Infinity: "9223372036854775807",
    "-Infinity": "-9223372036854775807",
  });
  const narrow = await planPacking(new Int32Array([-32767, 0, 32767]), { target: "uint16" });
  assert.deepEqual(narrow.codecs[0], { name: "scale_offset", configuration: { offset: -32767 } });
  const bigRange = await planPacking({ min: -(2n ** 40n), max: 2n ** 40n, data_type: "int64" }, { target: "int32" });
  assert.equal(bigRange.codecs[0].name, "cast_value");
});

test("bad requests throw Errors with a code", async () => {
  const bad = [
    [new Float64Array([1, 2]), { target: "float32" }],
    [new Float64Array([1, 2]), { span: "half", target: "uint8" }],
    [new Float64Array([1, 2]), {}],
    [{ min: 2, max: 1 }, { target: "uint8" }],
    [{ min: 0, max: 1 }, { max_abs_error: 1e-30 }],
  ];
  for (const [data, options] of bad) {
    await assert.rejects(planPacking(data, options), (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.code, "INVALID_CONFIG", e.message);
      return true;
    });
  }
  await assert.rejects(planPacking([1, 2, 3], { target: "uint8" }), (e) => e.code === "INVALID_ARGUMENT");
});
