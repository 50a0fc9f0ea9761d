// The lowest zarrita the package supports: 0.6.1 (the peer range's floor; zarrita-0.6, a
// development dependency). An app with zarrita 0.6 (as fizarrita and ngff-zarr have it) that
// installs the package keeps working: in an app of its own (the package's dist/ beside zarrita
// 0.6.1), the package loads; `registerCodecs()` then zarrita's zarr.get, and the package's open
// and get, read zarr-python's stores (packed, sharded, zstd, zfpy, pcodec) bit for bit;
// getDecoded reads xarray's CF store as xarray does; set writes what get reads back; and
// withWasmCodecs, which needs zarrita 0.7's store extensions, is refused (UNSUPPORTED), and so is
// validatingFetch, which needs 0.7's FetchStore `fetch` option.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const app = mkdtempSync(join(tmpdir(), "zwc-zarrita06-"));
after(() => rmSync(app, { recursive: true, force: true }));

const hexOf = (path) => readFileSync(join(root, path)).toString("hex");
const nodeExpected = JSON.parse(readFileSync(join(root, "tests/node/fixtures/expected.json"), "utf8"));

// Each store: its path and zarr-python's (or xarray's) values.
const STORES = {
  design_2d_zstd: ["tests/node/fixtures/stores/design_2d_zstd.zarr", nodeExpected.design_2d_zstd.read_hex],
  design_2d_sharded: ["tests/node/fixtures/stores/design_2d_sharded.zarr", nodeExpected.design_2d_sharded.read_hex],
  int16_clamp: ["tests/node/fixtures/stores/int16_clamp.zarr", nodeExpected.int16_clamp.read_hex],
  v3_packed_int16_blosc: ["tests/fixtures/stores/v3_packed_int16_blosc.zarr", hexOf("tests/fixtures/stores/v3_packed_int16_blosc.expected.bin")],
  v3_zfpy_rate_f4: ["tests/fixtures/stores/v3_zfpy_rate_f4.zarr", hexOf("tests/fixtures/stores/v3_zfpy_rate_f4.expected.bin")],
  v3_i4_2d_mode_classic: ["tests/fixtures/pcodec/v3_i4_2d_mode_classic.zarr", hexOf("tests/fixtures/pcodec/v3_i4_2d_mode_classic.expected.bin")],
};

test("with zarrita 0.6.1 the package loads, registerCodecs + zarr.get and open + get read exactly, getDecoded and set work, withWasmCodecs and validatingFetch are refused", () => {
  // The app: zarrita 0.6.1 as its zarrita, the package as npm installs it (dist/ and package.json).
  const modules = join(app, "node_modules");
  mkdirSync(join(modules, "@zarrita"), { recursive: true });
  symlinkSync(join(root, "node_modules/zarrita-0.6"), join(modules, "zarrita"));
  symlinkSync(join(root, "node_modules/zarrita-0.6/node_modules/@zarrita/storage"), join(modules, "@zarrita/storage"));
  symlinkSync(join(root, "node_modules/numcodecs"), join(modules, "numcodecs"));
  const pkg = join(modules, "zarr-wasm-codecs");
  mkdirSync(pkg);
  cpSync(join(root, "dist"), join(pkg, "dist"), { recursive: true });
  cpSync(join(root, "package.json"), join(pkg, "package.json"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(app, "run.mjs"), `
import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { get, getDecoded, open, registerCodecs, set, validatingFetch, withWasmCodecs } from "zarr-wasm-codecs";
const hex = (d) => Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString("hex");
const stores = ${JSON.stringify(Object.fromEntries(Object.entries(STORES).map(([k, [p]]) => [k, join(root, p)])))};
const out = { zarrita: JSON.parse((await import("node:fs")).readFileSync("node_modules/zarrita/package.json", "utf8")).version, zarrGet: {}, openGet: {} };
registerCodecs();
for (const [name, path] of Object.entries(stores)) {
  const s = new FileSystemStore(path);
  try { out.zarrGet[name] = hex((await zarr.get(await zarr.open.v3(s, { kind: "array" }))).data); } catch (e) { out.zarrGet[name] = "error: " + e.message; }
  try { out.openGet[name] = hex((await get(await open(s))).data); } catch (e) { out.openGet[name] = "error: " + e.message; }
}
const cf = zarr.root(new FileSystemStore(${JSON.stringify(join(root, "tests/fixtures/stores/xr_cf_v3.zarr"))})).resolve("t");
out.decoded = hex((await getDecoded(await open(cf))).data);
// A packed array written by set and read back by get and by zarr.get.
const files = new Map();
const written = await zarr.create(zarr.root(files), {
  shape: [4, 3], chunk_shape: [2, 2], data_type: "float64", fill_value: 0,
  codecs: [
    { name: "scale_offset", configuration: { offset: 0, scale: 10 } },
    { name: "cast_value", configuration: { data_type: "int16" } },
    { name: "bytes", configuration: { endian: "little" } },
  ],
});
// (Values scale_offset and cast_value give back as they are: k / 10 for integers k.)
const values = Float64Array.from({ length: 12 }, (_, i) => (i - 5) / 10);
await set(written, null, { data: values, shape: [4, 3], stride: [3, 1] });
out.written = { get: Array.from((await get(await open(files))).data), zarrGet: Array.from((await zarr.get(await zarr.open.v3(files, { kind: "array" }))).data), values: Array.from(values) };
try { withWasmCodecs(files); out.wrapped = "made"; } catch (e) { out.wrapped = e.code; }
// zarrita 0.6's FetchStore takes no fetch option: validatingFetch() would be dropped unseen.
try { validatingFetch(); out.validating = "made"; } catch (e) { out.validating = e.code; }
console.log(JSON.stringify(out));
`);
  const out = JSON.parse(execFileSync(process.execPath, ["run.mjs"], { cwd: app, encoding: "utf8" }));
  assert.equal(out.zarrita, "0.6.1");
  for (const [name, [, hex]] of Object.entries(STORES)) {
    assert.equal(out.zarrGet[name], hex, `${name}: registerCodecs and zarr.get`);
    assert.equal(out.openGet[name], hex, `${name}: open and get`);
  }
  assert.equal(out.decoded, hexOf("tests/fixtures/stores/xr_cf_v3.expected.bin"), "getDecoded of xarray's CF store");
  assert.deepEqual(out.written.get, out.written.values, "set then get");
  assert.deepEqual(out.written.zarrGet, out.written.values, "set then zarr.get");
  assert.equal(out.wrapped, "UNSUPPORTED");
  assert.equal(out.validating, "UNSUPPORTED", "validatingFetch() refused where zarrita's FetchStore has no fetch option");
});
