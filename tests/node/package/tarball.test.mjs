// The package as npm would publish it: `npm pack`, then the tarball installed (with the tested
// zarrita from the registry) into a fresh app that uses it as Node ESM, as CommonJS, and from
// TypeScript with strict settings (moduleResolution bundler and node16); publint and
// arethetypeswrong on the package. The apps are in tests/tarball/.
import assert from "node:assert/strict";
import { copyFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";

import { inlineTarball, installApp, pack, root, run as runIn } from "../shared/pack.mjs";

const app = join(root, "target/tarball-app");
let tarball;

const run = (cmd, args, cwd = app) => runIn(cmd, args, cwd);

before(() => {
  tarball = pack(join(root, "target/pack"));
  installApp(app, tarball, readdirSync(join(root, "tests/tarball")).map((f) => join(root, "tests/tarball", f)));
  copyFileSync(join(app, "app.ts"), join(app, "app.mts"));
});

test("a Node ESM app: writes, reads, a chain, and the error code inside zarrita's error", () => {
  const out = JSON.parse(run(process.execPath, ["app.mjs"]));
  assert.deepEqual(out, { data: [0.25, 0.5, 1, -2], bytes: [3, 252], code: "CAST" });
});

test("a Node CommonJS app: through import(), and require() where Node has it", () => {
  const out = JSON.parse(run(process.execPath, ["app.cjs"]));
  // cast_value rounding nearest-even: 1.5 -> 2, 2.5 -> 2.
  assert.deepEqual(out.data, [2, 2, 7]);
  assert.equal(out.required, process.features.require_module ? "function" : "unsupported");
});

test("TypeScript strict: the installed types check with moduleResolution bundler and node16", () => {
  const tsc = join(root, "node_modules/typescript/bin/tsc");
  for (const config of ["tsconfig.bundler.json", "tsconfig.node16.json"]) {
    let output = "";
    try {
      run(process.execPath, [tsc, "-p", config]);
    } catch (e) {
      output = `${e.stdout}${e.stderr}`;
    }
    // Every declaration file is checked (skipLibCheck off). Under node16, zarrita's own
    // dependencies' declarations (numcodecs, unzipit) have extensionless relative imports:
    // theirs to fix; the app's and this package's must have no error.
    const errors = output.split("\n").filter((line) => /error TS\d+/.test(line));
    const ours = errors.filter((line) => !/^node_modules\/(numcodecs|unzipit)\//.test(line));
    assert.deepEqual(ours, [], `${config}:\n${output}`);
    if (config === "tsconfig.bundler.json") assert.deepEqual(errors, [], output);
  }
});

test("publint (strict) and arethetypeswrong (an ES-module-only package) find nothing", () => {
  run(process.execPath, [join(root, "node_modules/publint/src/cli.js"), "--strict"], root);
  const attw = join(root, "node_modules/@arethetypeswrong/cli/dist/index.js");
  run(process.execPath, [attw, tarball, "--profile", "esm-only", "--format", "ascii"], root);
});

test("the tarball is at most 2.0 MB packed; the base64 copies are the companion's, which the inline entry loads", (t) => {
  const size = statSync(tarball).size;
  const companion = statSync(inlineTarball(tarball)).size;
  t.diagnostic(`zarr-wasm-codecs ${size} bytes packed, zarr-wasm-codecs-inline ${companion}`);
  assert.ok(size <= 2_000_000, `${size} bytes`);
  const files = JSON.parse(run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], root))[0].files.map((f) => f.path);
  assert.deepEqual(files.filter((f) => /inline/.test(f)), ["dist/inline.d.ts", "dist/inline.js"]);
  // The installed app (both packages): the inline entry reads with the copies.
  const code = `
    import * as inline from "zarr-wasm-codecs/inline";
    const chain = await inline.createChain({ data_type: "float64", fill_value: 0, chunk_shape: [2], codecs: [{ name: "cast_value", configuration: { data_type: "int8" } }, { name: "bytes" }] });
    console.log(JSON.stringify(Array.from(chain.encode(Float64Array.of(3, -4)))));`;
  assert.deepEqual(JSON.parse(run(process.execPath, ["--input-type=module", "-e", code])), [3, 252]);
});
