// Builds the npm package into dist/: the wasm modules, one per crate under crates/ (the core
// codecs, and each other module on its own so that readers that do not need it never load
// it), wasm-bindgen's glue for each, the pool worker's script (bundled by esbuild), then the
// TypeScript adapter; and into packages/inline/ its companion zarr-wasm-codecs-inline, each
// module as base64 in an ES module (which works in Node, browsers and bundlers with no path to
// configure), for the "zarr-wasm-codecs/inline" entry.
import { execFileSync } from "node:child_process";
import { buildSync } from "esbuild";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { withoutExports } from "./wasm-exports.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (cmd, args, env = {}) => execFileSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
const glue = join(root, "js/wasm");
rmSync(glue, { recursive: true, force: true });
mkdirSync(glue, { recursive: true });
// The companion package zarr-wasm-codecs-inline (packages/inline): the modules' base64 copies,
// which "zarr-wasm-codecs/inline" imports, published apart so that the package itself does not
// carry them (they were half its tarball).
const inlinePackage = join(root, "packages/inline");
rmSync(join(inlinePackage, "wasm"), { recursive: true, force: true });
mkdirSync(join(inlinePackage, "wasm"), { recursive: true });

// One wasm module per crate under crates/, each built as its Cargo.toml's
// [package.metadata.module] says (its file name, cargo profile, target directory and flags).
// Each ships as a .wasm file, which js/loading/load.ts loads beside the glue where it can, and as a
// base64 copy in an ES module.
const metadata = JSON.parse(execFileSync("cargo", ["metadata", "--no-deps", "--format-version", "1"], { cwd: root, encoding: "utf8" }));
const modules = metadata.packages
  .filter((p) => p.metadata?.module)
  // `key`: the crate's folder under crates/, the module's name in js/modules.ts.
  .map((p) => ({ crate: p.name, key: basename(dirname(p.manifest_path)), ...p.metadata.module, targetDir: p.metadata.module["target-dir"] }))
  // By name: the core module (zarr_wasm_codecs) first.
  .sort((a, b) => a.name.localeCompare(b.name));
if (modules.length !== readdirSync(join(root, "crates"), { withFileTypes: true }).filter((d) => d.isDirectory()).length) {
  throw new Error("every crate under crates/ needs [package.metadata.module] in its Cargo.toml");
}
// dist/ afresh: no file of an earlier build (a module since removed, or moved) is packed.
rmSync(join(root, "dist"), { recursive: true, force: true });
const report = {};
// The paths in panic messages name crates, not where this machine keeps them.
const cargoHome = process.env.CARGO_HOME ?? join(homedir(), ".cargo");
const remap = [`--remap-path-prefix=${cargoHome}=cargo`, `--remap-path-prefix=${root}=zarr-wasm-codecs`];
// Every module builds into one target directory (each profile has its own folder there), in an
// order that keeps builds with the same C flags together: the C zstd library, whose build
// reruns when CFLAGS change, is then compiled once for each flag set. Sharing the directory
// compiles the dependencies once per profile rather than once per module.
const buildOrder = [...modules].sort((a, b) => `${a.profile} ${a.cflags ?? ""} ${a.name}`.localeCompare(`${b.profile} ${b.cflags ?? ""} ${b.name}`));
for (const m of buildOrder) {
  run("cargo", ["build", "--lib", "-p", m.crate, "--profile", m.profile, "--target", "wasm32-unknown-unknown", "--target-dir", m.targetDir],
    { CARGO_ENCODED_RUSTFLAGS: [...remap, ...(m.rustflags?.split(/\s+/) ?? [])].join("\x1f"), ...(m.cflags ? { CFLAGS_wasm32_unknown_unknown: m.cflags } : {}) });
  const linked = join(root, m.targetDir, `wasm32-unknown-unknown/${m.profile}/${m.crate.replaceAll("-", "_")}.wasm`);
  // Without zstd-sys's shim exports and openjp2's C API (`opj_*`, which the crate exports as C
  // functions; scripts/wasm-exports.mjs): what only they reach goes.
  const built = linked.replace(/\.wasm$/, ".bindgen-input.wasm");
  writeFileSync(built, withoutExports(withoutExports(readFileSync(linked), "rust_zstd_wasm_shim_").wasm, "opj_").wasm);
  run("wasm-bindgen", [
    "--target", "web", "--weak-refs", "--omit-default-module-path",
    "--remove-name-section", "--remove-producers-section",
    "--out-name", m.name, "--out-dir", glue, built,
  ]);
  // wasm-bindgen declares `[Symbol.dispose]()` on its classes, which type-checks only with
  // lib esnext.disposable: the declarations keep `free()` alone, so that an app's types check
  // with the ES2022 lib (the method is still there at run time, for `using`).
  const dts = join(glue, `${m.name}.d.ts`);
  writeFileSync(dts, readFileSync(dts, "utf8").replace(/^ *\[Symbol\.dispose\]\(\): void;\n/gm, ""));
  const wasm = readFileSync(join(glue, `${m.name}_bg.wasm`));
  const copy = join(inlinePackage, "wasm", `${m.name}_inline.js`);
  writeFileSync(
    copy,
    `// Generated by zarr-wasm-codecs' scripts/build.mjs: its ${m.name} wasm module, base64-encoded.\nexport default ${JSON.stringify(wasm.toString("base64"))};\n`,
  );
  writeFileSync(copy.replace(/\.js$/, ".d.ts"), "declare const wasm: string;\nexport default wasm;\n");
  const inlined = readFileSync(copy);
  // What a browser downloads: the .wasm file, or the ES module that holds it as base64.
  report[m.name] = {
    wasm_bytes: wasm.length, wasm_gzip_bytes: gzipSync(wasm, { level: 9 }).length,
    inline_js_bytes: inlined.length, inline_js_gzip_bytes: gzipSync(inlined, { level: 9 }).length,
  };
}

// The companion's entry: each module's base64 copy by its name, for "zarr-wasm-codecs/inline"
// (js/inline.ts) alone: each a dynamic import of its own, so that a page downloads only the
// copies of the modules it uses. The licences go with it.
writeFileSync(
  join(inlinePackage, "index.js"),
  "// Generated by zarr-wasm-codecs' scripts/build.mjs: each module's base64 copy, by its name in its js/modules.ts.\nexport default {\n" +
    modules.map((m) => `  ${m.key}: () => import("./wasm/${m.name}_inline.js"),\n`).join("") +
    "};\n",
);
for (const f of ["LICENSE-MIT", "LICENSE-APACHE", "THIRD-PARTY-NOTICES.md"]) copyFileSync(join(root, f), join(inlinePackage, f));
writeFileSync(
  join(inlinePackage, "index.d.ts"),
  "declare const copies: {\n" + modules.map((m) => `  ${m.key}: () => Promise<{ default: string }>;\n`).join("") +
    "};\nexport default copies;\n",
);

// The tables the JavaScript side takes from the library, as js/wasm/tables.js: the codec table
// (src/codec/table.rs), from which registerCodecs and the zarr.get wrappers take their codec
// names, and each data type's typed array. They are committed as js/tables.json (written by
// `cargo run --example tables > js/tables.json`), so that no native build of the library is
// needed here; tests/tables.rs fails when the library's tables and that file differ.
const { codecs, data_types: dataTypes, data_type_sizes: sizes } = JSON.parse(readFileSync(join(root, "js/tables.json"), "utf8"));
writeFileSync(
  join(glue, "tables.js"),
  "// Generated by scripts/build.mjs from js/tables.json (the library's tables, examples/tables.rs).\n" +
    `export const CODECS = ${JSON.stringify(codecs)};\nexport const DATA_TYPES = ${JSON.stringify(dataTypes)};\n` +
    `export const DATA_TYPE_SIZES = ${JSON.stringify(sizes)};\n`,
);
writeFileSync(
  join(glue, "tables.d.ts"),
  "/** One codec: its names, kind, the wasm module that runs it (null: zarrita's registry, or the layout) and how\n" +
    " * registerCodecs puts it into zarrita's registry (null: not at all). */\n" +
    "export interface CodecRow {\n  name: string;\n  v3_names: string[];\n  v2_id: string | null;\n" +
    '  kind: "array_to_array" | "array_to_bytes" | "bytes_to_bytes";\n  module: string | null;\n' +
    '  zarrita: "array_to_array" | "whole_chunk" | "compress" | null;\n}\n' +
    "/** The codec table (src/codec/table.rs). */\nexport declare const CODECS: readonly CodecRow[];\n" +
    "/** Each zarr data type's typed array (the one a read returns), by its name. */\n" +
    "export declare const DATA_TYPES: Readonly<Record<string, string>>;\n" +
    "/** Each zarr data type's item size in bytes, by its name (whether or not the engine has its typed array). */\n" +
    "export declare const DATA_TYPE_SIZES: Readonly<Record<string, number>>;\n",
);

// The pool's worker: js/pool/worker/decode-worker.ts and what it imports (the shared placement
// code, the modules' glue) bundled into one classic script, shipped as a string so that it
// starts from a blob: URL or as a Node eval worker, with no file for a bundler to find. The
// glue is the same as the main thread's, so the workers instantiate the very modules the main
// thread compiled.
const workerScript = buildSync({
  entryPoints: [join(root, "js/pool/worker/decode-worker.ts")],
  bundle: true, format: "iife", platform: "neutral", target: "es2022", minify: true, write: false,
  logLevel: "warning",
}).outputFiles[0].text;
writeFileSync(
  join(glue, "worker_source.js"),
  `// Generated by scripts/build.mjs: the pool worker's script.\nexport default ${JSON.stringify(workerScript)};\n`,
);
writeFileSync(join(glue, "worker_source.d.ts"), "declare const source: string;\nexport default source;\n");
report.worker_source = { js_bytes: workerScript.length, js_gzip_bytes: gzipSync(workerScript, { level: 9 }).length };

run("npx", ["tsc", "-p", "js/tsconfig.json"]);
run("npx", ["tsc", "-p", "js/pool/worker/tsconfig.json"]);
mkdirSync(join(root, "dist/wasm"), { recursive: true });
for (const m of modules) {
  for (const f of [`${m.name}.js`, `${m.name}.d.ts`]) {
    copyFileSync(join(glue, f), join(root, "dist/wasm", f));
  }
  copyFileSync(join(glue, `${m.name}_bg.wasm`), join(root, "dist/wasm", `${m.name}.wasm`));
}
for (const f of ["worker_source.js", "worker_source.d.ts", "tables.js", "tables.d.ts"]) {
  copyFileSync(join(glue, f), join(root, "dist/wasm", f));
}
// The same script as a file of its own, for pages whose Content-Security-Policy forbids blob:
// workers: `new WorkerPool({ workerUrl })` with the URL it is served from.
writeFileSync(join(root, "dist/worker.js"), `// zarr-wasm-codecs: the worker pool's script (see WorkerPool's workerUrl).\n${workerScript}`);
writeFileSync(join(root, "dist/worker.d.ts"), "// The worker pool's script: a classic script with no exports, served for WorkerPool's workerUrl.\nexport {};\n");
writeFileSync(join(root, "dist/build-info.json"), JSON.stringify(report, null, 2) + "\n");
for (const [name, r] of Object.entries(report)) {
  if (r.wasm_bytes) {
    console.log(`${name}.wasm: ${r.wasm_bytes} bytes, ${r.wasm_gzip_bytes} gzipped; ` +
      `as base64 in ${name}_inline.js: ${r.inline_js_bytes} bytes, ${r.inline_js_gzip_bytes} gzipped`);
  }
  else console.log(`${name}.js: ${r.js_bytes} bytes, ${r.js_gzip_bytes} gzipped`);
}
if (!existsSync(join(root, "dist/index.js"))) throw new Error("tsc produced no dist/index.js");
