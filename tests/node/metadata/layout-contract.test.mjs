// The layout the core hands JavaScript (crate::layout::ArrayLayout::to_json) against the
// `Layout` type the read and write paths take it as (js/reading/access.ts, in the built declarations):
// the same keys at every level, for layouts with every optional part (a shard, a whole-chunk
// serializer, codecs left to zarrita's registry, zarr v2). A key renamed on one side fails here.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import ts from "typescript";

import { loadWasm } from "zarr-wasm-codecs";
import { loadModule } from "../../../dist/loading/load.js";
import { CODECS } from "../../../dist/wasm/tables.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The property names of `interface Layout` in dist/reading/access.d.ts, nested object types as objects. */
function declaredLayout() {
  const file = join(root, "dist/reading/access.d.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  let found;
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === "Layout") found = node;
  });
  assert.ok(found, "dist/reading/access.d.ts declares interface Layout");
  const shape = (members) => {
    const out = {};
    for (const m of members) {
      if (!ts.isPropertySignature(m)) continue;
      // A property whose type is (or includes) an object literal type: its keys too.
      const literal = (t) => {
        if (!t) return undefined;
        if (ts.isTypeLiteralNode(t)) return t;
        if (ts.isUnionTypeNode(t)) return t.types.map(literal).find(Boolean);
        return undefined;
      };
      const inner = literal(m.type);
      out[m.name.text] = inner ? shape(inner.members) : true;
    }
    return out;
  };
  return shape(found.members);
}

/** The keys of a layout JSON, nested objects as objects (codec metadata is data, not layout). */
function keysOf(value, declared) {
  const out = {};
  for (const [k, v] of Object.entries(value)) {
    const nested = declared?.[k];
    out[k] = v !== null && typeof v === "object" && !Array.isArray(v) && typeof nested === "object" ? keysOf(v, nested) : true;
  }
  return out;
}

/** The metadata text `get` builds for an array directory (zarr.json, or v2's two files). */
function metadataText(dir) {
  try {
    return readFileSync(join(dir, "zarr.json"), "utf8");
  } catch {
    const zattrs = (() => {
      try {
        return readFileSync(join(dir, ".zattrs"), "utf8");
      } catch {
        return "{}";
      }
    })();
    return `{"zarr_format": 2, "zarray": ${readFileSync(join(dir, ".zarray"), "utf8")}, "zattrs": ${zattrs}}`;
  }
}

const stores = join(root, "tests/fixtures/stores");
const CASES = [
  ["plain v3", join(stores, "v3_default.zarr")],
  ["sharded, crc32c index", join(stores, "v3_sharded_end.zarr")],
  ["numcodecs.shuffle (resolved element size)", join(stores, "v3_shuffle_packed_u2.zarr")],
  ["zarr v2", join(stores, "v2_shuffle_filter.zarr")],
  ["pcodec serializer", join(root, "tests/fixtures/pcodec/v2_f8_2d_pcodec_default.zarr")],
];

test("every layout the core writes has exactly the keys of the Layout type", async () => {
  const wasm = await loadWasm();
  const declared = declaredLayout();
  const seen = new Set();
  for (const [name, dir] of CASES) {
    const reader = new wasm.ArrayReader(metadataText(dir));
    assert.equal(reader.fallback, undefined, `${name}: read on the package's own path`);
    const layout = JSON.parse(reader.layoutJson);
    const got = keysOf(layout, declared);
    const want = Object.fromEntries(
      Object.entries(declared).map(([k, v]) => [k, typeof v === "object" && (layout[k] === null || typeof layout[k] !== "object") ? true : v]),
    );
    assert.deepEqual(got, want, name);
    for (const k of ["shard", "serializer"]) if (layout[k] !== null) seen.add(k);
    if (layout.key_v2) seen.add("v2");
    reader.free();
  }
  // The cases above reach every optional part.
  assert.deepEqual([...seen].sort(), ["serializer", "shard", "v2"]);
});

test("the core decides which bytes -> bytes codecs run in wasm, and says why not", async () => {
  const wasm = await loadWasm();
  const layoutOf = (codecs) =>
    JSON.parse(new wasm.ArrayReader(JSON.stringify({
      zarr_format: 3, node_type: "array", shape: [4], data_type: "float64",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
      chunk_key_encoding: { name: "default" }, fill_value: 0, codecs,
    })).layoutJson);
  const bytes = { name: "bytes", configuration: { endian: "little" } };
  const inWasm = layoutOf([bytes, { name: "numcodecs.shuffle", configuration: {} }, { name: "zstd", configuration: { level: 0 } }]);
  assert.equal(inWasm.codecs_fallback, null);
  // What the codecs receive: a shuffle without elementsize takes its item size (float64: 8).
  assert.equal(inWasm.stored_item_size, 8);

  // A bytes -> bytes codec outside the table (numcodecs' jenkins_lookup3) is left to zarrita's
  // registry, with the reason.
  const registry = layoutOf([bytes, { name: "numcodecs.jenkins_lookup3", configuration: {} }]);
  assert.match(registry.codecs_fallback, /jenkins_lookup3.*not in the package's codec table/);
  const archive = layoutOf([bytes, { name: "numcodecs.bz2", configuration: { level: 1 } }]);
  assert.equal(archive.codecs_fallback, null);
  // bz2 and lzma are the archive module's (its row's module): the compress module, which the
  // read path does not give them, refuses them by name rather than decoding them wrong.
  assert.equal(CODECS.find((r) => r.name === "bz2").module, "archive");
  assert.equal(CODECS.find((r) => r.name === "lzma").module, "archive");
  const { bytesModuleOf, encodeModuleOf } = await import("../../../dist/modules.js");
  assert.equal(bytesModuleOf(archive.codecs), "archive");
  assert.equal(encodeModuleOf(archive.codecs), "archive_encode");
  assert.equal(bytesModuleOf([{ name: "numcodecs.shuffle" }, { name: "zstd" }]), "compress");
  const plainCompress = await loadModule("compress");
  // zstd alone decodes in the zstd module (its decoder and nothing else); it refuses any other
  // codec by name, and reads zstd's configuration as the compress module does.
  assert.equal(bytesModuleOf([{ name: "zstd" }]), "zstd");
  assert.equal(encodeModuleOf([{ name: "zstd" }]), "encode");
  const zstdModule = await loadModule("zstd");
  assert.throws(() => new zstdModule.Decompressor(JSON.stringify([{ name: "gzip", configuration: { level: 1 } }]), 1), (e) => e.code === "UNSUPPORTED" && /gzip runs in the compress module/.test(e.message));
  for (const configuration of [{ level: "high" }, { level: 0, checksum: 1 }, { level: 0, window: 3 }]) {
    const bad = JSON.stringify([{ name: "zstd", configuration }]);
    const codes = [];
    for (const m of [zstdModule, plainCompress]) {
      try {
        new m.Decompressor(bad, 1).decode(new Uint8Array(8));
      } catch (e) {
        codes.push(`${e.code} ${e.message}`);
      }
    }
    assert.equal(codes.length, 2, JSON.stringify(configuration));
    assert.equal(codes[0], codes[1]);
    assert.match(codes[0], /^INVALID_CONFIG/);
  }
  const bz2 = new plainCompress.Decompressor(JSON.stringify(archive.codecs), 1);
  assert.throws(() => bz2.decode(new Uint8Array(8)), (e) => e.code === "UNSUPPORTED" && /bz2 runs in the archive module/.test(e.message));

  // A configuration the compress module refuses is the read's error, not a reason to hand the
  // codec to zarrita (whose crc32c has no location at all): INVALID_CONFIG when its step is built.
  const refused = layoutOf([bytes, { name: "numcodecs.crc32c", configuration: { location: "middle" } }]);
  assert.equal(refused.codecs_fallback, null);
  const compress = await loadModule("compress");
  assert.throws(() => new compress.Decompressor(JSON.stringify(refused.codecs), refused.stored_item_size), (e) => e.code === "INVALID_CONFIG" && /location/.test(e.message));
});
