// The README's worker-pool example, run as written: its code block is taken out of README.md,
// saved as a module inside the package (so that "zarr-wasm-codecs" resolves to this package)
// and run in a child process, which must print what the block's comment says and exit.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The README's ```js blocks, their indentation removed. */
function codeBlocks() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  return [...readme.matchAll(/^( *)```js\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body.split("\n").map((line) => line.slice(indent.length)).join("\n"),
  );
}

test("the README's worker-pool example runs as written and prints what it says", () => {
  const blocks = codeBlocks().filter((b) => b.includes("new WorkerPool("));
  assert.equal(blocks.length, 1);
  const [code] = blocks;
  const said = /console\.log\(.*\); \/\/ (\S+ \S+):/.exec(code);
  assert.ok(said, "the example says what it prints");
  const dir = join(root, "target/readme");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "pool-example.mjs");
  writeFileSync(file, code);
  const printed = execFileSync(process.execPath, [file], { cwd: root, encoding: "utf8", timeout: 60000 });
  assert.equal(printed.trim(), said[1]);
});
