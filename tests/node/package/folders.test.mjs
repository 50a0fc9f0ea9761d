// The house: js/ is a folder a job, each with a README saying what it owns and, on its
// `Imports:` line, which folders its files may import (besides their own; "modules" is
// js/modules.ts, the table of wasm modules kept at the top for its URLs). Every relative import
// of every js/**/*.ts file (static, type-only, re-exports, dynamic and `typeof import(...)`)
// is held to its folder's line, the entry points at js/ to js/README.md's, and the graph of
// files to no circle. (tests/node/package/imports.test.mjs holds the built dist/ the same way.)
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { filesUnder } from "../shared/files.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const js = join(root, "js");
// The sources: every .ts file but the generated glue (js/wasm/).
const sources = filesUnder(js)
  .filter((f) => f.endsWith(".ts") && !relative(js, f).startsWith(`wasm${sep}`))
  .map((f) => relative(js, f).split(sep).join("/"));
/**
 * The folder a js-relative path is in: "." for the entry points, "modules" for the table of wasm
 * modules (js/modules.ts, at the top for its URLs' sake), "wasm" for the glue.
 */
const folderOf = (path) => (path.includes("/") ? path.split("/")[0] : path === "modules.ts" ? "modules" : ".");

/** What a folder's README allows: its `Imports:` line, as a set (js/modules.ts's: js/README.md's `modules.ts imports:` line). */
function allowed(folder) {
  const top = folder === "." || folder === "modules";
  const readme = join(js, top ? "" : folder, "README.md");
  assert.ok(existsSync(readme), `js/${top ? "" : `${folder}/`}README.md: each folder says what it owns`);
  const line = (folder === "modules" ? /^modules\.ts imports: (.*)$/m : /^Imports: (.*)$/m).exec(readFileSync(readme, "utf8"));
  assert.ok(line, `${readme}: an Imports: line`);
  return new Set(line[1] === "none" ? [] : line[1].split(/,\s*/));
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;
/** The js-relative paths a source file imports (relative specifiers only). */
function importsOf(path) {
  const text = readFileSync(join(js, path), "utf8");
  return [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(path), m[1])).split(sep).join("/").replace(/\.js$/, ".ts"));
}

test("every file is in a folder with a README, or is an entry point at js/", () => {
  const top = sources.filter((p) => !p.includes("/")).sort();
  assert.deepEqual(top, ["fizarrita-worker.ts", "index.ts", "inline.ts", "modules.ts"]);
  for (const folder of new Set(sources.map(folderOf))) allowed(folder);
  assert.ok(new Set(sources.map(folderOf)).size >= 10, "folders by job");
});

test("each folder imports only the folders its README allows", () => {
  const wrong = [];
  let checked = 0;
  for (const path of sources) {
    const from = folderOf(path);
    const may = allowed(from);
    for (const target of importsOf(path)) {
      checked++;
      const to = folderOf(target);
      if (to !== from && !may.has(to)) wrong.push(`js/${path} imports js/${target} (${to}/), which js/${from === "." ? "" : `${from}/`}README.md does not allow`);
      if (to !== "wasm") assert.ok(sources.includes(target), `js/${path}: js/${target} exists`);
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked > 150, `${checked} imports checked`);
});

test("no circle among the files (type imports included)", () => {
  const graph = new Map(sources.map((p) => [p, importsOf(p).filter((t) => sources.includes(t))]));
  const state = new Map();
  const circles = [];
  const visit = (node, trail) => {
    if (state.get(node) === "done") return;
    if (state.get(node) === "open") return void circles.push([...trail.slice(trail.indexOf(node)), node].join(" -> "));
    state.set(node, "open");
    for (const next of graph.get(node)) visit(next, [...trail, node]);
    state.set(node, "done");
  };
  for (const node of graph.keys()) visit(node, []);
  assert.deepEqual(circles, []);
});

test("the folders' READMEs allow no circle among the folders either", () => {
  const folders = [...new Set(sources.map(folderOf))].filter((f) => f !== "." && f !== "modules");
  const reach = (from, to, seen = new Set()) =>
    [...allowed(from)].some((next) => next === to || (next !== "wasm" && next !== "." && !seen.has(next) && (seen.add(next), reach(next, to, seen))));
  assert.deepEqual(folders.filter((f) => reach(f, f)), []);
});
