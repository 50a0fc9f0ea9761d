// What npm would publish: the licenses, the third-party notices (current with Cargo.lock), the
// changelog and the built package, including the zfp module's .wasm file; a build before
// packing; the peer range that is tested, an optional peer.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

import { filesUnder } from "../shared/files.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

test("the packed tarballs hold the licenses, notices, changelog and every module: the package's files, the companion's copies", () => {
  const packedIn = (dir) => {
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }),
    );
    return new Set(packed.files.map((f) => f.path));
  };
  const modules = ["", "_zfp", "_packing", "_compress", "_zstd", "_encode", "_archive", "_archive_encode", "_pcodec", "_grib"].map((m) => `zarr_wasm_codecs${m}`);
  const files = packedIn(root);
  for (const f of ["LICENSE-MIT", "LICENSE-APACHE", "THIRD-PARTY-NOTICES.md", "CHANGELOG.md", "README.md", "package.json",
    // The pages the README links to, so that its links resolve in the installed package.
    ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`),
    "dist/index.js", "dist/index.d.ts", "dist/inline.js", "dist/wasm/worker_source.js", ...modules.flatMap((m) => [`dist/wasm/${m}.wasm`, `dist/wasm/${m}.js`])]) {
    assert.ok(files.has(f), `${f} is packed`);
  }
  assert.ok(![...files].some((f) => f.startsWith("src/") || f.startsWith("tests/") || f.startsWith("packages/")), "no sources, tests or companion");
  const companion = packedIn(join(root, "packages/inline"));
  for (const f of ["LICENSE-MIT", "LICENSE-APACHE", "THIRD-PARTY-NOTICES.md", "README.md", "package.json", "index.js", "index.d.ts",
    ...modules.map((m) => `wasm/${m}_inline.js`)]) {
    assert.ok(companion.has(f), `${f} is in the companion`);
  }
});

test("the notices name every crate compiled into the wasm, as Cargo.lock has them", () => {
  execFileSync(process.execPath, [join(root, "scripts/notices.mjs"), "--check"], { cwd: root, stdio: "pipe" });
});

test("package.json: a build before packing, the license files, the tested zarritas as the peer range, an optional peer", () => {
  assert.equal(pkg.scripts.prepack, "npm run build");
  assert.equal(pkg.license, "MIT OR Apache-2.0");
  // The range's floor is the zarrita tests/node/zarrita/zarrita-06.test.mjs runs (zarrita-0.6), its top
  // the one every other test runs.
  const version = (dir) => JSON.parse(readFileSync(join(root, "node_modules", dir, "package.json"), "utf8")).version;
  assert.equal(pkg.peerDependencies.zarrita, `>=${version("zarrita-0.6")} <0.8`);
  const [major, minor, patch] = version("zarrita").split(".").map(Number);
  assert.ok(major === 0 && minor === 7 && patch >= 5, `the tested zarrita ${version("zarrita")} is in the range`);
  // An optional peer: npm never installs a zarrita for the package, so the app's (an ngff-zarr
  // app's 0.6) stays the one its other packages get (tests/node/package/npm-resolve.test.mjs).
  assert.equal(pkg.peerDependenciesMeta.zarrita?.optional, true);
  // fizarrita, for the worker entry only: an optional peer.
  assert.equal(pkg.peerDependenciesMeta["@fideus-labs/fizarrita"]?.optional, true);
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

/** Every module `file` reaches through its imports, static and dynamic (relative specifiers only). */
function reachable(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const [, spec] of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g)) {
    reachable(join(dirname(file), spec), seen);
  }
  return seen;
}

test("the base64 copies are the companion's, reached from \"zarr-wasm-codecs/inline\" alone, so a build without it emits none", () => {
  const plain = [...reachable(join(root, "dist/index.js"))].map((f) => relative(root, f));
  assert.ok(plain.includes("dist/wasm/zarr_wasm_codecs_zfp.js") && plain.includes("dist/loading/load.js"), `${plain}`);
  assert.deepEqual(plain.filter((f) => f.includes("_inline")), []);
  // The package carries no copy; its inline entry imports the companion, whose entry reaches
  // every module's.
  assert.deepEqual(readdirSync(join(root, "dist/wasm")).filter((f) => f.includes("inline")), []);
  const importers = filesUnder(join(root, "dist")).filter((f) => f.endsWith(".js") && readFileSync(f, "utf8").includes('"zarr-wasm-codecs-inline"')).map((f) => relative(join(root, "dist"), f));
  assert.deepEqual(importers, ["inline.js"]);
  const inline = [...reachable(join(root, "packages/inline/index.js"))].map((f) => relative(root, f)).filter((f) => f.includes("_inline"));
  assert.deepEqual(inline.sort(), ["core", "zfp", "packing", "compress", "zstd", "encode", "archive", "archive_encode", "pcodec", "grib"]
    .map((m) => `packages/inline/wasm/zarr_wasm_codecs${m === "core" ? "" : `_${m}`}_inline.js`).sort());
  // The two are published together: the same version, the package naming the companion's.
  const main = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const companion = JSON.parse(readFileSync(join(root, "packages/inline/package.json"), "utf8"));
  assert.equal(companion.version, main.version);
  assert.equal(main.peerDependencies["zarr-wasm-codecs-inline"], main.version);
  assert.equal(main.peerDependenciesMeta["zarr-wasm-codecs-inline"].optional, true);
});

test("without its .wasm files the package refuses with WASM_UNAVAILABLE naming the file and /inline; the inline entry needs none", () => {
  // The built package with its .wasm files taken away (as an esbuild bundle has it).
  const copy = join(root, "target/package-no-wasm");
  rmSync(copy, { recursive: true, force: true });
  cpSync(join(root, "dist"), copy, { recursive: true });
  for (const f of readdirSync(join(copy, "wasm"))) if (f.endsWith(".wasm")) rmSync(join(copy, "wasm", f));
  const chain = { data_type: "float64", fill_value: 0, chunk_shape: [2], codecs: [{ name: "cast_value", configuration: { data_type: "int8" } }, { name: "bytes" }] };
  // The core module through a chain, the zfp module (on its own) through its loader.
  const code = (entry) => `
    import * as pkg from ${JSON.stringify(pathToFileURL(join(copy, entry)).href)};
    const refusal = (e) => ({ code: e.code, message: e.message });
    const result = {};
    try {
      const c = await pkg.createChain(${JSON.stringify(chain)});
      result.core = Array.from(c.decode(c.encode(Float64Array.of(3, -4))));
    } catch (e) { result.core = refusal(e); }
    result.zfp = await pkg.loadZfp().then((m) => typeof m.default, refusal);
    console.log(JSON.stringify(result));`;
  const run = (entry) => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", code(entry)], { cwd: root, encoding: "utf8" }));
  const plain = run("index.js");
  for (const name of ["core", "zfp"]) {
    assert.equal(plain[name].code, "WASM_UNAVAILABLE", JSON.stringify(plain));
    assert.match(plain[name].message, /zarr_wasm_codecs(_zfp)?\.wasm/);
    assert.match(plain[name].message, /zarr-wasm-codecs\/inline/);
  }
  assert.deepEqual(run("inline.js"), { core: [3, -4], zfp: "function" });
});
