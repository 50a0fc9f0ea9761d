// Writes THIRD-PARTY-NOTICES.md: the Rust crates compiled into the package's wasm modules
// (cargo tree of each module crate, runtime dependencies only, no proc macros), each with
// its version, license, authors and repository from `cargo metadata`, and the license texts
// the crate ships (LICENSE-MIT, LICENSE, ...). `--check` compares instead of writing, and
// fails when the file is not what the crates now say.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cargo = (args) => execFileSync("cargo", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
// One cargo tree per wasm module crate (every crate under crates/).
const BUILDS = readdirSync(join(root, "crates"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => ["--manifest-path", join(root, "crates", d.name, "Cargo.toml")]);

const crates = new Set();
for (const features of BUILDS) {
  const tree = cargo(["tree", "--target", "wasm32-unknown-unknown", "-e", "normal,no-proc-macro", "--prefix", "none", ...features]);
  for (const line of tree.split("\n")) {
    const [name, version] = line.split(" ");
    if (name && version && !name.startsWith("zarr-wasm-codecs")) crates.add(`${name} ${version.slice(1)}`);
  }
}
const metadata = JSON.parse(cargo(["metadata", "--format-version", "1", "--filter-platform", "wasm32-unknown-unknown"]));
const packages = metadata.packages
  .filter((p) => crates.has(`${p.name} ${p.version}`))
  .sort((a, b) => a.name.localeCompare(b.name));

// The texts a crate ships with its permissive license: MIT's (with its copyright lines) where
// the crate offers MIT, else whatever license files it has. Apache-2.0's text is LICENSE-APACHE.
function licenseTexts(p) {
  const dir = dirname(p.manifest_path);
  const files = readdirSync(dir).filter((f) => /^(licen[cs]e|copying)/i.test(f) && !/apache/i.test(f));
  // (A license joined by AND, e.g. unicode-ident's Unicode-3.0 data license, applies as well.)
  const mit = files.filter((f) => /mit|unicode/i.test(f));
  return (mit.some((f) => /mit/i.test(f)) ? mit : files).map((f) => ({ file: f, text: readFileSync(join(dir, f), "utf8").trim() }));
}

const lines = [
  "# Third-party notices",
  "",
  "The package's WebAssembly modules are compiled from this crate and the Rust crates below",
  "(the Rust standard library besides: MIT OR Apache-2.0, the Rust Project Developers). Each is",
  "used under the license named; where a crate offers a choice, under MIT (the text as the crate",
  "ships it below) or Apache-2.0 (the text is [LICENSE-APACHE](LICENSE-APACHE)).",
  "Written by `node scripts/notices.mjs` from Cargo.lock.",
  "",
];
for (const p of packages) {
  lines.push(`## ${p.name} ${p.version}`, "");
  lines.push(`- License: ${p.license}`);
  if (p.authors?.length) lines.push(`- Authors: ${p.authors.join(", ")}`);
  if (p.repository) lines.push(`- Repository: ${p.repository}`);
  lines.push("");
  for (const { file, text } of licenseTexts(p)) lines.push(`${file}:`, "", "```text", text, "```", "");
}
const notices = lines.join("\n");
const path = join(root, "THIRD-PARTY-NOTICES.md");
if (process.argv.includes("--check")) {
  if (!existsSync(path) || readFileSync(path, "utf8") !== notices) {
    throw new Error("THIRD-PARTY-NOTICES.md is not what the crates say: run node scripts/notices.mjs");
  }
  console.log(`THIRD-PARTY-NOTICES.md names the ${packages.length} crates the wasm modules are built from`);
} else {
  writeFileSync(path, notices);
  console.log(`THIRD-PARTY-NOTICES.md: ${packages.length} crates`);
}
