// The README's JavaScript examples, run as written: each ```js block is taken out of
// README.md, saved as a module inside the package (so that "zarr-wasm-codecs" resolves to this
// package) and run in a child process, which must exit and print what the block's last
// `console.log(...); // ...` comment says (up to a colon). Also: the API section names every
// export, and the declarations document every one.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import ts from "typescript";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** The README's ```js blocks, their indentation removed. */
function codeBlocks() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  return [...readme.matchAll(/^( *)```js\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body.split("\n").map((line) => line.slice(indent.length)).join("\n"),
  );
}

const blocks = codeBlocks();

test("the README has its examples", () => {
  assert.ok(blocks.length >= 3, `${blocks.length} js blocks`);
});

for (const [i, code] of blocks.entries()) {
  const imports = /from "zarr-wasm-codecs";/.test(code) ? code.match(/import \{([^}]*)\} from "zarr-wasm-codecs"/)[1].trim() : "";
  test(`README example ${i + 1} (${imports}) runs as written and prints what it says`, () => {
    const said = [...code.matchAll(/^\s*console\.log\(.*\); \/\/ ([^:\n]+)/gm)].at(-1);
    assert.ok(said, "the example says what it prints");
    const dir = join(root, "target/readme");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `example-${i + 1}.mjs`);
    writeFileSync(file, code);
    const printed = execFileSync(process.execPath, [file], { cwd: root, encoding: "utf8", timeout: 60000 });
    assert.equal(printed.trim(), said[1].trim());
  });
}

test("every README example and a strict app using every export type-check (tsc --strict, bundler resolution)", () => {
  const dir = join(root, "target/readme-ts");
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((code, i) => {
    const file = join(dir, `example-${i + 1}.ts`);
    // Each block is a module of its own (top-level await).
    writeFileSync(file, `${code}\nexport {};\n`);
    return file;
  });
  const app = join(root, "tests/types/app.ts");
  const program = ts.createProgram([...files, app], {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, types: ["node"], lib: ["lib.es2022.d.ts", "lib.dom.d.ts"], noEmit: true,
  });
  const problems = ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file ? `${d.file.fileName.slice(root.length)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : "";
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
  });
  assert.deepEqual(problems, []);
  // The app imports every export, values and types.
  const imported = new Set(readFileSync(app, "utf8").match(/import \{([^}]*)\} from "zarr-wasm-codecs"/)[1]
    .split(",").map((s) => s.trim().replace(/^type /, "")).filter(Boolean));
  const checker = program.getTypeChecker();
  const dts = program.getSourceFile(join(root, "dist/index.d.ts"));
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(dts)).map((s) => s.name);
  assert.ok(exported.length >= 30, `${exported.length} exports`);
  assert.deepEqual(exported.filter((name) => !imported.has(name)), [], "exports the app does not use");
});

test("the README's API section names every export of the package", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## API"), readme.indexOf("\n## ", readme.indexOf("## API") + 1));
  const exports = Object.keys(await import("zarr-wasm-codecs"));
  assert.ok(exports.length >= 18, `${exports.length} exports`);
  for (const name of exports) assert.match(section, new RegExp(`\`${name}[(\`]`), `${name} in the API section`);
  const dts = readFileSync(join(root, "dist/index.d.ts"), "utf8");
  for (const type of ["CodecRegistry", "GetOptions", "Selection", "ChunkValue", "DecodedChunk", "DataRange", "PackingPlan",
    "PlanOptions", "WritePackedOptions", "ErrorCode", "CodecError"]) {
    assert.match(dts, new RegExp(`\\b${type}\\b`), `${type} is exported`);
    assert.match(section, new RegExp(`\`${type}\``), `${type} in the API section`);
  }
});

test("every export and every public member of an exported class has TSDoc in the declarations", () => {
  const program = ts.createProgram([join(root, "dist/index.d.ts")], {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, types: [], noEmit: true,
  });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(join(root, "dist/index.d.ts"))));
  const undocumented = [];
  const documented = (s) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim() !== "";
  for (const alias of exported) {
    const symbol = alias.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(alias) : alias;
    if (!documented(symbol)) undocumented.push(alias.name);
    if (!(symbol.flags & ts.SymbolFlags.Class)) continue;
    for (const [name, member] of [...symbol.members, ...symbol.exports]) {
      if (name === "__constructor" || name === "prototype" || !member.declarations?.length) continue;
      if (ts.getCombinedModifierFlags(member.declarations[0]) & ts.ModifierFlags.Private) continue;
      if (!documented(member)) undocumented.push(`${alias.name}.${name}`);
    }
  }
  assert.ok(exported.length >= 25, `${exported.length} exports`);
  assert.deepEqual(undocumented, []);
});
