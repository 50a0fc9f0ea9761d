// Data types beyond the numeric core, against zarr-python 3.4.2 and xarray 2026.9.0
// (tests/fixtures/dtypes: generate.py, expected.json, scalars.json): every store read by
// `open` + `get`, on one thread and in a pool (shared and transferred), item for item
// (complex, bool, datetime64 and timedelta64, fixed_length_utf32, null-terminated and raw
// bytes, v2 and v3, big-endian, order F, sharded, compressed or not); selections of items;
// `set` writing each back; the registry's names and JSON scalars against zarr-python's own
// round trips in both formats; and the refusals (zarrita's reads of types it lacks, float16
// with no Float16Array, malformed types).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { dataType, dataTypeOf, get, getDecoded, loadWasm, open, registerCodecs, set, WorkerPool } from "zarr-wasm-codecs";

import { exactParse } from "../../../dist/common/json.js";
import { hex, itemCases, itemsGot, itemsWanted, millis } from "../../fixtures/dtypes/items.mjs";
import { memoryStore } from "../../fixtures/written/cases.mjs";

registerCodecs();

const dir = fileURLToPath(new URL("../../fixtures/dtypes/", import.meta.url));
const expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8"));
const scalars = JSON.parse(readFileSync(join(dir, "scalars.json"), "utf8"));
const pool = new WorkerPool(2);
after(() => pool.terminate());

const hasFloat16 = "Float16Array" in globalThis;
const cases = itemCases(expected);

async function openCase(c) {
  const store = new FileSystemStore(join(dir, c.store));
  return open(zarr.root(store).resolve(c.path));
}

for (const options of [{}, { pool, useSharedArrayBuffer: true }, { pool, useSharedArrayBuffer: false }]) {
  const via = options.pool ? `pool, ${options.useSharedArrayBuffer ? "shared" : "transferred"}` : "one thread";
  test(`get (${via}): every data type store zarr-python wrote, item for item`, async (t) => {
    assert.ok(cases.length >= 40, `${cases.length} cases`);
    for (const c of cases) {
      await t.test(`${c.case} ${c.path}`, async () => {
        const arr = await openCase(c);
        const got = await get(arr, null, options);
        assert.deepEqual(got.shape, c.shape);
        assert.deepEqual(itemsGot(c, got.data), itemsWanted(c));
        // The array says its own type, not the stand-in zarrita holds.
        const info = await dataTypeOf(arr);
        assert.deepEqual(info.v3, c.zarr_format === 3 ? c.metadata_data_type : info.v3);
        if (c.zarr_format === 2) assert.equal(info.v2.slice(1), c.metadata_data_type.slice(1));
      });
    }
  });
}

test("get: a selection of items, and one item, in each lane layout", async () => {
  const byCase = Object.fromEntries(expected.map((c) => [`${c.case}/${c.path}`, c]));
  // complex64 [3, 4]: row 1, columns 1..3; one item.
  const c64 = byCase["complex64.v3/"];
  const arr = await openCase(c64);
  const part = await get(arr, [1, zarr.slice(1, 3)]);
  assert.deepEqual(part.shape, [2]);
  const all = Buffer.from(c64.values_hex, "hex");
  assert.equal(hex(part.data), all.subarray((4 + 1) * 8, (4 + 3) * 8).toString("hex"));
  const one = await get(arr, [2, 1]);
  assert.deepEqual(one.map((v) => hex(Float32Array.of(v))), [all.subarray(9 * 8, 9 * 8 + 4).toString("hex"), all.subarray(9 * 8 + 4, 10 * 8).toString("hex")]);
  // fixed_length_utf32 [3, 4] with a step; one string.
  const u = byCase["utf32.v3/"];
  const strings = await get(await openCase(u), [zarr.slice(null, null, 2), zarr.slice(0, 4, 3)]);
  assert.deepEqual(strings.shape, [2, 2]);
  assert.deepEqual(Array.from({ length: 4 }, (_, i) => strings.data.get(i)), [u.values[0], u.values[3], u.values[8], u.values[11]]);
  assert.equal(await get(await openCase(u), [0, 2]), u.values[2]);
  // order F complex128, a column.
  const f = byCase["complex128_order_f.v2/"];
  const col = await get(await openCase(f), [null, 2], { pool });
  const fAll = Buffer.from(f.values_hex, "hex");
  assert.equal(hex(col.data), [2, 6, 10].map((i) => fAll.subarray(i * 16, i * 16 + 16).toString("hex")).join(""));
  // options.out: the lanes' typed array, which the result is built over.
  const out = new Float32Array(24);
  const into = await get(arr, null, { out, pool });
  assert.equal(into.data, out);
  assert.equal(hex(out), c64.values_hex);
  await assert.rejects(get(arr, null, { out: new Float32Array(12) }), { code: "SHAPE_MISMATCH" });
  // bool, one item; datetime64, one item (a bigint).
  assert.equal(await get(await openCase(byCase["bool.v3/"]), [0]), true);
  assert.equal(await get(await openCase(byCase["datetime64_ns.v3/"]), [1]), -(2n ** 63n));
});

test("a datetime64 fill value of \"NaT\" (zarr-python reads it) opens, and missing chunks read as NaT", async () => {
  const base = JSON.parse(readFileSync(join(dir, "stores/datetime64_s.v3/zarr.json"), "utf8"));
  const store = memoryStore();
  await store.set("/zarr.json", new TextEncoder().encode(JSON.stringify({ ...base, fill_value: "NaT" })));
  const arr = await open(zarr.root(store));
  const got = await get(arr);
  assert.ok(got.data.every((v) => v === -(2n ** 63n)));
  assert.ok((await zarr.get(arr)).data.every((v) => v === -(2n ** 63n)));
  assert.ok((await getDecoded(arr)).data.every(Number.isNaN));
});

test("zarr.get and zarr.set on a type zarrita lacks are refused with a code, not read as other bytes", async () => {
  for (const name of ["complex64.v3", "void_v4.v3"]) {
    const arr = await openCase(expected.find((c) => c.case === name));
    await assert.rejects(zarr.get(arr), { code: "UNSUPPORTED_DATA_TYPE" });
  }
  // Where zarrita has a type of the same bytes, it reads them exactly (datetime64: int64 counts).
  const c = expected.find((x) => x.case === "datetime64_s.v3");
  const counts = await zarr.get(await openCase(c));
  assert.deepEqual(Array.from(counts.data, String), c.values);
});

test("float16: get is refused where there is no Float16Array, naming what reads it; getDecoded reads it", async (t) => {
  for (const c of expected.filter((x) => x.encoding === "float" && x.case.startsWith("float16"))) {
    const arr = await openCase(c);
    if (!hasFloat16) {
      await assert.rejects(get(arr), (e) => e.code === "UNSUPPORTED_DATA_TYPE" && /Float16Array/.test(e.message) && /getDecoded/.test(e.message));
    } else {
      const got = await get(arr);
      assert.equal(hex(got.data), c.values_hex);
    }
    const decoded = await getDecoded(arr);
    const want = new Uint16Array(Uint8Array.from(Buffer.from(c.values_hex, "hex")).buffer);
    const exact = Array.from(want, (bits) => {
      const sign = bits >> 15 ? -1 : 1;
      const exp = (bits >> 10) & 31;
      const frac = bits & 1023;
      if (exp === 31) return frac ? NaN : sign * Infinity;
      return sign * (exp ? 2 ** (exp - 15) * (1 + frac / 1024) : 2 ** -14 * (frac / 1024));
    });
    assert.deepEqual(Array.from(decoded.data), exact, c.case);
  }
  t.diagnostic(hasFloat16 ? "this engine has Float16Array" : "no Float16Array here");
});

test("set writes each type back: read again, item for item (one thread and pooled)", async (t) => {
  for (const c of cases.filter((x) => x.zarr_format === 3 && !x.shards)) {
    for (const options of [{}, { pool }]) {
      await t.test(`${c.case} ${options.pool ? "pool" : "one thread"}`, async () => {
        const source = await openCase(c);
        const values = await get(source);
        // The same metadata in memory, then every item written at once.
        const store = memoryStore();
        const zarrJson = readFileSync(join(dir, c.store, c.path, "zarr.json"));
        await store.set(`/${c.path ? `${c.path}/` : ""}zarr.json`, new Uint8Array(zarrJson));
        const target = await open(zarr.root(store).resolve(c.path));
        await set(target, null, values, options);
        const back = await get(target);
        assert.deepEqual(itemsGot(c, back.data), itemsWanted(c));
        // Partial writes of one item over the fill value keep the rest.
        const fresh = memoryStore();
        await fresh.set(`/${c.path ? `${c.path}/` : ""}zarr.json`, new Uint8Array(zarrJson));
        const one = await open(zarr.root(fresh).resolve(c.path));
        const first = c.shape.map(() => 0);
        await set(one, first, await get(source, first), options);
        const item = await get(one, first);
        assert.deepEqual(item, await get(source, first));
      });
    }
  }
});

test("set refuses values of the wrong kind, naming the array", async () => {
  const c = expected.find((x) => x.case === "complex64.v3");
  const store = memoryStore();
  await store.set("/zarr.json", new Uint8Array(readFileSync(join(dir, c.store, "zarr.json"))));
  const arr = await open(zarr.root(store));
  await assert.rejects(set(arr, null, { data: new Float64Array(24), shape: [3, 4], stride: [4, 1] }), { code: "WRONG_ARRAY_TYPE" });
  await assert.rejects(set(arr, null, { data: new Float32Array(12), shape: [3, 4], stride: [4, 1] }), { code: "CHUNK_LENGTH" });
  await assert.rejects(set(arr, [0, 0], 1.5), { code: "WRONG_ARRAY_TYPE" });
  await set(arr, [0, 0], [1.5, -2]);
  assert.deepEqual(await get(arr, [0, 0]), [1.5, -2]);
  assert.equal(store.files.size, 2);
});

/** The data types zarr-python wrote, as the registry reads them. */
const byLabel = scalars.data_types.filter((d) => d.label !== "int24");
/** A data type of scalars.json in the format a scalar is for (`|O` with its object codec). */
const typeOf = (d, format) => (format === 3 ? dataType(d.v3, 3) : dataType(d.v2.name, 2, d.v2.object_codec_id ?? undefined));

test("the registry's names in both formats are zarr-python's", async () => {
  for (const d of byLabel) {
    const t3 = await dataType(d.v3, 3);
    assert.deepEqual(t3.v3, d.v3, d.label);
    assert.equal(t3.item_size, d.item_size ?? null, d.label);
    if (d.v2 && !d.v2.error) {
      assert.equal(t3.v2.slice(1), d.v2.name.slice(1), d.label);
      const t2 = await typeOf(d, 2);
      assert.deepEqual(t2.v3, d.v3, d.label);
      assert.equal(t2.v2, d.v2.name, d.label);
    }
    for (const f of ["2", "3"]) {
      assert.deepEqual(t3.default_fill, JSON.parse(d.default_scalar_text[f]), `${d.label} default (zarr v${f})`);
    }
  }
  for (const n of scalars.v2_names) {
    const want = n.from_json?.[0];
    if (!want || want.error || n.name === "|O") continue;
    const t = await dataType(n.name, 2);
    assert.deepEqual(t.v3, want.v3, n.name);
    assert.equal(t.v2, want.v2.name, n.name);
  }
  const vlen = await dataType("|O", 2, "vlen-utf8");
  assert.equal(vlen.name, "string");
});

/** Whether two items' hex (little-endian) differ only where both lanes are NaNs. */
function sameButNaNPayloads(a, b, nativeDtype) {
  const lane = { "<f2": 2, "<f4": 4, "<f8": 8, "<c8": 4, "<c16": 8 }[nativeDtype];
  if (!lane || a.length !== b.length) return false;
  const isNaN = (h) => {
    const bits = BigInt(`0x${h.match(/../g).reverse().join("")}`);
    const e = { 2: [10n, 31n], 4: [23n, 255n], 8: [52n, 2047n] }[lane];
    return ((bits >> e[0]) & e[1]) === e[1] && (bits & ((1n << e[0]) - 1n)) !== 0n;
  };
  for (let i = 0; i < a.length; i += 2 * lane) {
    const [x, y] = [a.slice(i, i + 2 * lane), b.slice(i, i + 2 * lane)];
    if (x !== y && !(isNaN(x) && isNaN(y))) return false;
  }
  return true;
}

/**
 * zarr-python's JSON scalars that the registry refuses on purpose: forms zarr-python reads by
 * Python's leniency but never writes (a bool from any string, a number from a bool, base64
 * that is not base64, a string longer than its type, which numpy would cut).
 */
function refusedOnPurpose(d, s) {
  const j = s.json;
  if (d.v3 === "bool") return typeof j !== "boolean" && j !== 0 && j !== 1;
  if (d.v3 === "string") return typeof j !== "string";
  if (d.v3 === "variable_length_bytes") return typeof j === "string";
  if (/\b(true|false)\b/.test(s.json_text)) return true;
  if (d.v3?.name === "fixed_length_utf32") return typeof j === "string" && [...j].length > d.v3.configuration.length_bytes / 4;
  if (["null_terminated_bytes", "raw_bytes"].includes(d.v3?.name)) return typeof j === "string";
  if (typeof j === "string" && /^\s*[-+]?\d+\s*$/.test(j)) return false;
  if (typeof j === "string" && !["NaN", "Infinity", "-Infinity", "NaT"].includes(j) && !j.startsWith("0x")) return true;
  return false;
}

test("JSON scalars: the registry reads and writes each as zarr-python does, in zarr v2 and v3", async (t) => {
  const wasm = await loadWasm();
  let same = 0;
  let refused = 0;
  let payloads = 0;
  for (const d of byLabel) {
    for (const s of d.scalars) {
      const t = await typeOf(d, s.zarr_format);
      let bytes;
      try {
        bytes = t.fillToBytes(exactParse(s.json_text));
      } catch (e) {
        assert.ok(e.code, `${d.label} ${s.json_text}: ${e.message}`);
        assert.ok(refusedOnPurpose(d, s), `${d.label} v${s.zarr_format}: ${s.json_text} refused (${e.message}); zarr-python reads it`);
        refused++;
        continue;
      }
      if (hex(bytes) !== s.native_hex && s.json_text.includes("0x")) {
        // A "0x" NaN of the type's own width keeps its payload here, bit for bit; zarr-python
        // goes through a float64 and keeps only a NaN (README).
        assert.ok(sameButNaNPayloads(hex(bytes), s.native_hex, d.native_dtype), `${d.label}: ${s.json_text}`);
        payloads++;
        continue;
      }
      assert.equal(hex(bytes), s.native_hex, `${d.label} v${s.zarr_format}: ${s.json_text}`);
      const back = t.fillToJson(bytes);
      // What an array of the type holds, where that differs from the scalar (numpy strips a
      // fixed-length type's trailing NULs).
      const stored = s.back_from_native_text ?? ("back_from_native" in s ? JSON.stringify(s.back_from_native) : s.back_text);
      const theirs = exactParse(stored);
      const text = (v) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x));
      if (text(back) !== text(theirs) && text(theirs).includes('"NaN"')) {
        // A NaN with a payload or sign other than the canonical NaN's: zarr-python writes
        // "NaN" and loses its bits; the package writes its bits in hex (README), which read back
        // as the same bytes.
        assert.match(text(back), /"0x[0-9a-f]+"/, `${d.label}: ${s.json_text}`);
        assert.equal(hex(t.fillToBytes(back)), s.native_hex);
        payloads++;
        continue;
      }
      assert.deepEqual(back, theirs, `${d.label} v${s.zarr_format}: ${s.json_text} written back`);
      same++;
    }
    for (const r of d.rejects) {
      // The text itself (1.0 and 1 are one number in JavaScript, not to zarr-python).
      // (The data type by its v3 form; the format's scalar rules apply.)
      const type = JSON.stringify(d.v3);
      assert.throws(() => wasm.fillValueBytes(type, r.zarr_format, r.json_text), (e) => Boolean(e.code), `${d.label} v${r.zarr_format}: ${r.json_text} (zarr-python: ${r.error})`);
    }
  }
  t.diagnostic(`${same} read and written alike, ${payloads} NaN payloads kept in hex, ${refused} refused on purpose`);
  assert.ok(same > 200, `${same} read alike, ${refused} refused`);
});

test("malformed data types are refused at open with a code naming the field, before any chunk is read", async () => {
  const base = JSON.parse(readFileSync(join(dir, "stores/datetime64_s.v3/zarr.json"), "utf8"));
  for (const [dataTypeJson, code, field] of [
    [{ name: "numpy.datetime64", configuration: { unit: "fortnight", scale_factor: 1 } }, "INVALID_METADATA", "unit"],
    [{ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 0 } }, "INVALID_METADATA", "scale_factor"],
    [{ name: "fixed_length_utf32", configuration: { length_bytes: 3 } }, "INVALID_METADATA", "length_bytes"],
    ["complex32", "UNKNOWN_DATA_TYPE", "complex32"],
    [{ name: "bfloat16", configuration: { x: 1 } }, "INVALID_METADATA", "configuration"],
  ]) {
    const store = memoryStore();
    await store.set("/x/zarr.json", new TextEncoder().encode(JSON.stringify({ ...base, data_type: dataTypeJson, fill_value: 0 })));
    let reads = 0;
    const counted = { ...store, get: async (k) => (k.endsWith("zarr.json") ? store.get(k) : (reads++, store.get(k))) };
    await assert.rejects(open(zarr.root(counted).resolve("x")), (e) => e.code === code && e.message.includes(field) && e.message.includes("x"), JSON.stringify(dataTypeJson));
    assert.equal(reads, 0);
  }
  // A fill value the type cannot hold.
  for (const [dt, fill] of [
    [{ name: "fixed_length_utf32", configuration: { length_bytes: 8 } }, "abc"],
    ["complex64", [1]],
    [{ name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } }, 1.5],
  ]) {
    const store = memoryStore();
    await store.set("/zarr.json", new TextEncoder().encode(JSON.stringify({ ...base, data_type: dt, fill_value: fill })));
    await assert.rejects(open(zarr.root(store)), { code: "INVALID_SCALAR" }, JSON.stringify(fill));
  }
});

test("the fixtures are the generator's (every store listed, nothing else)", () => {
  const listed = new Set(expected.map((c) => c.store));
  const stores = readdirSync(join(dir, "stores")).map((s) => `stores/${s}`);
  assert.deepEqual([...listed].sort(), stores.filter((s) => statSync(join(dir, s)).isDirectory()).sort());
});

test("getDecoded: datetime64 and timedelta64 as milliseconds (NaT: NaN), bool as 0 and 1, exactly", async (t) => {
  let n = 0;
  for (const c of expected) {
    if (!["datetime64", "timedelta64", "bool"].includes(c.encoding) || c.metadata_data_type === "int64") continue;
    for (const options of [{}, { pool }]) {
      const got = await getDecoded(await openCase(c), null, options);
      const want = c.encoding === "bool" ? c.values.map(Number) : millis(c.ms_since_epoch);
      assert.deepEqual(Array.from(got.data), want, c.case);
      assert.deepEqual(got.shape, c.shape);
      n++;
    }
  }
  t.diagnostic(`${n} reads`);
  // An item that is not one number is refused, saying what reads it (strings of any length,
  // which zarrita reads, too).
  for (const name of ["complex64.v3", "utf32.v2", "vlen_utf8.v3", "vlen_utf8.v2"]) {
    await assert.rejects(getDecoded(await openCase(expected.find((c) => c.case === name))), (e) => e.code === "UNSUPPORTED_DATA_TYPE" && /with get/.test(e.message), name);
  }
  // get reads vlen strings through zarrita.
  const vlen = expected.find((c) => c.case === "vlen_utf8.v3");
  assert.deepEqual(Array.from((await get(await openCase(vlen))).data), vlen.values);
});

test("getDecoded: CF time (units since a date; standard, gregorian, proleptic_gregorian) as xarray decodes it", async () => {
  const cf = expected.filter((c) => c.xarray_decoded_encoding === "ms_since_epoch");
  assert.ok(cf.length >= 10, `${cf.length}`);
  for (const c of cf) {
    for (const options of [{}, { pool, useSharedArrayBuffer: false }]) {
      const got = await getDecoded(await openCase(c), null, options);
      assert.deepEqual(Array.from(got.data), millis(c.xarray_decoded), `${c.case} ${c.path} (${c.attrs.units})`);
    }
  }
  // Another calendar is refused, naming it, before any value is read.
  const noleap = expected.find((c) => c.refuse === "noleap");
  await assert.rejects(getDecoded(await openCase(noleap)), (e) => e.code === "UNSUPPORTED_CALENDAR" && e.message.includes("noleap"));
  // The numbers themselves still read with get.
  const raw = await get(await openCase(noleap));
  assert.deepEqual(Array.from(raw.data, String), noleap.values);
});

test("getDecoded reads xarray's bool and float variables beside its time and string coordinates", async () => {
  for (const c of expected.filter((x) => x.case.startsWith("xr_dataset") && ["bool", "float64_hex"].includes(x.xarray_decoded_encoding))) {
    const got = await getDecoded(await openCase(c));
    if (c.xarray_decoded_encoding === "bool") assert.deepEqual(Array.from(got.data), c.xarray_decoded.map(Number));
    else assert.equal(hex(got.data), c.xarray_decoded.join(""), c.case);
  }
});
