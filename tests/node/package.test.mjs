// What npm would publish: the licenses, the third-party notices (current with Cargo.lock), the
// changelog and the built package, including the zfp module's .wasm file; a build before
// packing; the peer range that is tested.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

test("the packed tarball holds the licenses, notices, changelog and every module", () => {
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
  );
  const files = new Set(packed.files.map((f) => f.path));
  for (const f of ["LICENSE-MIT", "LICENSE-APACHE", "THIRD-PARTY-NOTICES.md", "CHANGELOG.md", "README.md", "package.json",
    "dist/index.js", "dist/index.d.ts", "dist/wasm/zarr_wasm_codecs_zfp.wasm", "dist/wasm/zarr_wasm_codecs_inline.js",
    "dist/wasm/zarr_wasm_codecs_zfp_inline.js", "dist/wasm/zarr_wasm_codecs_packing_inline.js", "dist/wasm/worker_source.js"]) {
    assert.ok(files.has(f), `${f} is packed`);
  }
  assert.ok(![...files].some((f) => f.startsWith("src/") || f.startsWith("tests/")), "no sources or tests");
});

test("the notices name every crate compiled into the wasm, as Cargo.lock has them", () => {
  execFileSync(process.execPath, [join(root, "scripts/notices.mjs"), "--check"], { cwd: root, stdio: "pipe" });
});

test("package.json: a build before packing, the license files, the tested zarrita as the peer range", () => {
  assert.equal(pkg.scripts.prepack, "npm run build");
  assert.equal(pkg.license, "MIT OR Apache-2.0");
  const tested = JSON.parse(readFileSync(join(root, "node_modules/zarrita/package.json"), "utf8")).version;
  assert.equal(pkg.peerDependencies.zarrita, ">=0.7.5 <0.8");
  const [major, minor, patch] = tested.split(".").map(Number);
  assert.ok(major === 0 && minor === 7 && patch >= 5, `the tested zarrita ${tested} is in the range`);
});

test('"zarr-wasm-codecs/inline": the same package, with the wasm from its base64 copies', () => {
  const code = `
    import * as inline from "zarr-wasm-codecs/inline";
    import * as plain from "zarr-wasm-codecs";
    const chain = await inline.createChain({ data_type: "float64", fill_value: 0, chunk_shape: [2], codecs: [{ name: "cast_value", configuration: { data_type: "int8" } }, { name: "bytes" }] });
    console.log(JSON.stringify({ same: inline.get === plain.get && Object.keys(inline).length === Object.keys(plain).length, bytes: Array.from(chain.encode(Float64Array.of(3, -4))) }));`;
  const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" }));
  assert.deepEqual(out, { same: true, bytes: [3, 252] });
});
