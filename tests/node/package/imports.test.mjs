// No import cycle among the package's modules: the relative imports of the built dist/**/*.js files
// (static, re-exports and dynamic) form a graph without cycles, so that no module ever runs
// against another one only half initialised, and each can be read on its own.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { filesUnder } from "../shared/files.mjs";

const dist = fileURLToPath(new URL("../../../dist/", import.meta.url));

/** The files a built module imports by a relative specifier. */
function importsOf(file) {
  const text = readFileSync(file, "utf8");
  const specs = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g);
  return [...specs].map(([, spec]) => join(dirname(file), spec));
}

/** A cycle of `graph` (file -> the files it imports) as a list of files, or undefined. */
function findCycle(graph) {
  const done = new Set();
  const path = [];
  const visit = (file) => {
    const at = path.indexOf(file);
    if (at >= 0) return [...path.slice(at), file];
    if (done.has(file)) return undefined;
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(file);
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return undefined;
}

test("the cycle finder finds a cycle, and none where there is none", () => {
  const graph = (edges) => new Map(Object.entries(edges));
  assert.deepEqual(findCycle(graph({ a: ["b"], b: ["c"], c: ["a"] })), ["a", "b", "c", "a"]);
  assert.deepEqual(findCycle(graph({ open: ["read"], read: ["open"], decoded: ["read", "open"] })), ["open", "read", "open"]);
  assert.equal(findCycle(graph({ a: ["b", "c"], b: ["c"], c: [] })), undefined);
});

test("no import cycle among the package's modules (dist/**/*.js, the wasm glue and the worker)", () => {
  const graph = new Map();
  // (Every built module, in dist/'s folders; the glue is reached through them.)
  const pending = filesUnder(dist).filter((f) => f.endsWith(".js") && !f.startsWith(join(dist, "wasm")));
  assert.ok(pending.some((f) => f.endsWith("read.js")) && pending.some((f) => f.endsWith("open.js")), "the package is built");
  while (pending.length) {
    const file = pending.pop();
    if (graph.has(file)) continue;
    const imports = importsOf(file);
    for (const f of imports) assert.ok(existsSync(f), `${relative(dist, file)} imports ${relative(dist, f)}, which is not built`);
    graph.set(file, imports);
    pending.push(...imports);
  }
  const cycle = findCycle(graph);
  assert.equal(cycle?.map((f) => relative(dist, f)).join(" -> "), undefined);
});
