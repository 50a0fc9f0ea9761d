// The package's reference store (`referenceStore`, js/stores/reference.ts) over a kerchunk
// reference set, its mechanics on a file made here: zarr-python 3.4.2's v2 zlib store
// (tests/fixtures/stores/v2_zlib.zarr, values in its expected.bin) with its chunk files laid back
// to back in one file, as HDF5 lays a variable's chunks, one of them inline (base64), its missing
// chunk absent from the set. Every read path gives zarr-python's values; a whole read is one
// request for the file, a window one; bad sets and bad servers are refused with a code.
// (tests/node/stores/archives.test.mjs reads real netCDF4 archives through kerchunk's and
// VirtualiZarr's references.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import * as zarr from "zarrita";
import { get, getDecoded, open, referenceStore, registerCodecs, withWasmCodecs, WorkerPool } from "zarr-wasm-codecs";
import { filesIn, serveFiles } from "../shared/files.mjs";

registerCodecs();
const pool = new WorkerPool(2);
after(() => pool.terminate());

const dir = fileURLToPath(new URL("../../fixtures/stores/", import.meta.url));
const store = filesIn(join(dir, "v2_zlib.zarr"));
const expected = new Float64Array(readFileSync(join(dir, "v2_zlib.expected.bin")).buffer.slice(0));
const [ROWS, COLS] = [37, 45];

// The archive: every chunk file back to back (a gap of 7 bytes of junk between two of them, as a
// file's other objects lie between), the references into it.
const chunkKeys = [...store.keys()].filter((k) => /^\/\d+\.\d+$/.test(k)).sort();
const parts = [];
const refs = { ".zarray": new TextDecoder().decode(store.get("/.zarray")) };
let at = 0;
for (const [i, key] of chunkKeys.entries()) {
  if (i === 3) {
    parts.push(new Uint8Array(7).fill(0xee));
    at += 7;
  }
  const bytes = store.get(key);
  // One chunk inline, as kerchunk inlines small ones.
  if (i === 1) refs[key.slice(1)] = `base64:${Buffer.from(bytes).toString("base64")}`;
  else refs[key.slice(1)] = ["{{u}}", at, bytes.length];
  parts.push(bytes);
  at += bytes.length;
}
const archive = Buffer.concat(parts);
const referenced = chunkKeys.length - 1;

/** A server of the archive (as /data/archive.nc) and of the reference set (as /refs.json). */
async function site(answer) {
  const files = new Map([["/data/archive.nc", new Uint8Array(archive)]]);
  const s = await serveFiles(files, answer);
  const set = { version: 1, templates: { u: `${s.url}/data/archive.nc` }, refs };
  files.set("/refs.json", new TextEncoder().encode(JSON.stringify(set)));
  after(() => s.server.close());
  return { ...s, set, archiveRequests: () => s.requests.filter((r) => r.path === "/data/archive.nc") };
}

function window([r0, r1, c0, c1]) {
  const want = [];
  for (let i = r0; i < r1; i++) for (let j = c0; j < c1; j++) want.push(expected[i * COLS + j]);
  return Float64Array.from(want);
}
const sel = ([r0, r1, c0, c1]) => [zarr.slice(r0, r1), zarr.slice(c0, c1)];
const WHOLE = [0, ROWS, 0, COLS];
const WINDOW = [16, 32, 20, 40]; // chunk (1, 1): missing, the fill value

const PATHS = {
  get: (s, q) => open(s).then((a) => get(a, sel(q))),
  "get pooled": (s, q) => open(s).then((a) => get(a, sel(q), { pool })),
  "get pooled, workerFetch": (s, q) => open(s).then((a) => get(a, sel(q), { pool, workerFetch: true })),
  getDecoded: (s, q) => open(s).then((a) => getDecoded(a, sel(q))),
  "zarr.get over withWasmCodecs": (s, q) => zarr.open.v2(zarr.root(withWasmCodecs(s)), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
  "zarr.get over withWasmCodecs, pooled": (s, q) => zarr.open.v2(zarr.root(withWasmCodecs(s, { pool })), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
  "zarr.get over withWasmCodecs, workerFetch": (s, q) =>
    zarr.open.v2(zarr.root(withWasmCodecs(s, { pool, workerFetch: true })), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
  "zarr.get after registerCodecs()": (s, q) => zarr.open.v2(zarr.root(s), { kind: "array" }).then((a) => zarr.get(a, sel(q))),
};

test("every path reads the referenced chunks as zarr-python read the store: inline, absent and ranged chunks", async () => {
  const s = await site();
  for (const source of ["url", "object"]) {
    const refStore = await referenceStore(source === "url" ? `${s.url}/refs.json` : s.set);
    for (const [how, read] of Object.entries(PATHS)) {
      for (const q of [WHOLE, WINDOW, [3, 30, 7, 44]]) {
        const got = await read(refStore, q);
        // (getDecoded reads the fill value, -9999, as missing: NaN.)
        const want = how === "getDecoded" ? window(q).map((v) => (v === -9999 ? NaN : v)) : window(q);
        assert.deepEqual(Float64Array.from(got.data), want, `${source}, ${how}, ${JSON.stringify(q)}`);
      }
    }
  }
});

test("requests: a whole read is one request for the file, however many chunks; a window one", async () => {
  const s = await site();
  const refStore = await referenceStore(s.set);
  for (const [how, read] of Object.entries(PATHS)) {
    for (const [q, most] of [[WHOLE, 1], [[0, 16, 0, 40], 1]]) {
      const from = s.archiveRequests().length;
      await read(refStore, q);
      const asked = s.archiveRequests().slice(from);
      assert.ok(asked.length >= 1 && asked.length <= most, `${how}, ${JSON.stringify(q)}: ${asked.length} requests (${referenced} chunks referenced)`);
      assert.ok(asked.every((r) => /^bytes=\d+-\d+$/.test(r.range)), `${how}: range requests`);
    }
  }
  // { size: 0 } asks for each chunk alone.
  const each = await referenceStore(s.set, { mergeRanges: { size: 0 } });
  const from = s.archiveRequests().length;
  await zarr.get(await zarr.open.v2(zarr.root(each), { kind: "array" }));
  assert.equal(s.archiveRequests().length - from, referenced);
});

test("version 0, gen entries and templates; s3:// and gs:// URLs turned into HTTPS; refs relative to the reference file", async () => {
  const s = await site();
  // Version 0: the references at the top, no templates.
  const v0 = Object.fromEntries(Object.entries(refs).map(([k, v]) => [k, Array.isArray(v) ? [`${s.url}/data/archive.nc`, v[1], v[2]] : v]));
  assert.deepEqual(Float64Array.from((await get(await open(await referenceStore(v0)))).data), expected);
  // References relative to the reference file's URL.
  const relative = { version: 1, refs: Object.fromEntries(Object.entries(refs).map(([k, v]) => [k, Array.isArray(v) ? ["data/archive.nc", v[1], v[2]] : v])) };
  const relStore = await referenceStore(relative, { target: `${s.url}/refs.json` });
  assert.deepEqual(Float64Array.from((await get(await open(relStore))).data), expected);
  const asked = [];
  const recording = (request) => (asked.push(request.url), Promise.resolve(new Response(null, { status: 404 })));
  const cloud = { version: 1, refs: { ".zarray": refs[".zarray"], "0.0": ["s3://bucket/a.nc", 0, 10], "0.1": ["gs://bucket/b.nc", 0, 10] } };
  const c = await open(await referenceStore(cloud, { fetch: recording }));
  await assert.rejects(get(c, [zarr.slice(0, 16), zarr.slice(0, 20)]), { code: "STORE_FAILED" });
  await assert.rejects(get(c, [zarr.slice(0, 16), zarr.slice(20, 40)]), { code: "STORE_FAILED" });
  assert.deepEqual(asked.sort(), ["https://s3.amazonaws.com/bucket/a.nc", "https://storage.googleapis.com/bucket/b.nc"]);
  // A gen entry: keys, offsets and lengths from its dimensions, with arithmetic as kerchunk's
  // spec writes it (the first row's chunks, 0.0 and 0.2, placed as the offsets say).
  const [o0, n0] = [refs["0.0"][1], refs["0.0"][2]];
  const [o2, n2] = [refs["0.2"][1], refs["0.2"][2]];
  const genSet = {
    version: 1,
    templates: { u: `${s.url}/data/archive.nc`, a: o0, d: o2 - o0 },
    refs: { ".zarray": refs[".zarray"], "0.1": refs["0.1"] },
    gen: [{ key: "0.{{j}}", url: "{{u}}", offset: "{{a + (j // 2) * d}}", length: `{{${n0} + (j // 2) * ${n2 - n0}}}`, dimensions: { j: { start: 0, stop: 3, step: 2 } } }],
  };
  const g = await get(await open(await referenceStore(genSet)), [zarr.slice(0, 16), zarr.slice(0, COLS)]);
  assert.deepEqual(Float64Array.from(g.data), window([0, 16, 0, COLS]));
  await assert.rejects(referenceStore({ ...genSet, gen: [{ ...genSet.gen[0], offset: "{{a +}}" }] }), { code: "INVALID_METADATA" }, "an expression that does not parse");
  await assert.rejects(referenceStore({ ...genSet, gen: [{ ...genSet.gen[0], offset: "{{zz}}" }] }), { code: "INVALID_METADATA" }, "a name no template or dimension gives");
});

test("bad sets and bad servers: coded errors naming what is wrong", async () => {
  const s = await site();
  for (const bad of [[1, 2], 42, { version: 2, refs: {} }, { version: 1, refs: [] }, { version: 1, refs: { "0.0": [1, 2] } }, { "0.0": ["x", -1, 3] }, { version: 1, refs: { a: ["{{nope}}", 0, 1] } }]) {
    await assert.rejects(referenceStore(bad), { code: "INVALID_METADATA" }, JSON.stringify(bad));
  }
  await assert.rejects(referenceStore(`${s.url}/missing.json`), { code: "STORE_FAILED" });
  // A reference to a missing file; a range past the end of the file.
  const missing = { version: 1, refs: { ".zarray": refs[".zarray"], "0.0": [`${s.url}/data/nothing.nc`, 0, 100] } };
  const past = { version: 1, refs: { ".zarray": refs[".zarray"], "0.0": [`${s.url}/data/archive.nc`, archive.length - 10, 100] } };
  for (const [set, why] of [[missing, /nothing\.nc.*missing file/], [past, /archive\.nc \(bytes \d+-\d+\)/]]) {
    const a = await open(await referenceStore(set));
    for (const [how, options] of [["one thread", {}], ["pooled", { pool }], ["workerFetch", { pool, workerFetch: true }]]) {
      await assert.rejects(get(a, [zarr.slice(0, 16), zarr.slice(0, 20)], options), (e) => {
        assert.equal(e.code, "STORE_FAILED", `${how}: ${e.message}`);
        assert.match(e.message, why, how);
        assert.equal(e.key, "0.0", `${how}: the chunk named`);
        return true;
      });
    }
  }
  // A shifted 206 from the server.
  const shifted = await site((path, req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    if (!m || path !== "/data/archive.nc") return false;
    const [a, b] = [Number(m[1]) + 1, Number(m[2]) + 1];
    res.writeHead(206, { "content-range": `bytes ${a}-${b}/${archive.length}` }).end(archive.subarray(a, b + 1));
    return true;
  });
  await assert.rejects(get(await open(await referenceStore(shifted.set))), { code: "STORE_FAILED" });
});

test("workerFetch over a reference store with a fetch of the app's own is refused (UNSUPPORTED); without workerFetch it reads through that fetch", async () => {
  const s = await site();
  let calls = 0;
  const mine = (request) => (calls++, fetch(request));
  const a = await open(await referenceStore(s.set, { fetch: mine }));
  await assert.rejects(get(a, null, { pool, workerFetch: true }), { code: "UNSUPPORTED" });
  const before = calls;
  assert.deepEqual(Float64Array.from((await get(a, null, { pool })).data), expected);
  assert.equal(calls - before, 1, "one request, through the app's fetch");
});

test("zarr v3 metadata inside a reference set (zarr.json), and a filter the package cannot decode refused naming it", async () => {
  const v3 = filesIn(join(dir, "v3_default.zarr"));
  const want = new Float64Array(readFileSync(join(dir, "v3_default.expected.bin")).buffer.slice(0));
  const keys = [...v3.keys()].filter((k) => k.startsWith("/c/")).sort();
  const body = Buffer.concat(keys.map((k) => v3.get(k)));
  const files = new Map([["/v3.bin", new Uint8Array(body)]]);
  const s = await serveFiles(files);
  after(() => s.server.close());
  let at = 0;
  const set = { version: 1, refs: { "zarr.json": new TextDecoder().decode(v3.get("/zarr.json")) } };
  for (const k of keys) {
    set.refs[k.slice(1)] = [`${s.url}/v3.bin`, at, v3.get(k).length];
    at += v3.get(k).length;
  }
  const store = await referenceStore(set);
  assert.deepEqual(Float64Array.from((await get(await open(store))).data), want);
  assert.deepEqual(Float64Array.from((await zarr.get(await zarr.open.v3(zarr.root(withWasmCodecs(store)), { kind: "array" }))).data), want);
  assert.equal(s.requests.filter((r) => r.path === "/v3.bin").length, 2, "one request a read");
  // A v2 array whose filter no codec table row has.
  const zarray = JSON.parse(refs[".zarray"]);
  const unknown = { ...refs, ".zarray": JSON.stringify({ ...zarray, filters: [{ id: "imagecodecs_jpeg2k", level: 0 }] }) };
  const site2 = await site();
  const bad = await referenceStore({ version: 1, templates: site2.set.templates, refs: unknown });
  for (const read of [async () => get(await open(bad)), async () => zarr.get(await zarr.open.v2(zarr.root(withWasmCodecs(bad)), { kind: "array" }))]) {
    await assert.rejects(read(), (e) => {
      assert.equal(e.code, "UNKNOWN_CODEC", e.message);
      assert.match(e.message, /imagecodecs_jpeg2k/);
      return true;
    });
  }
});
