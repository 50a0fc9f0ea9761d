// The README's and docs/'s JavaScript examples, run as written: each ```js block is taken out of
// README.md or a page of docs/, saved as a module inside the package (so that "zarr-wasm-codecs"
// resolves to this package) and run in a child process, which must exit and print what the
// block's last `console.log(...); // ...` comment says (up to a colon). Also: every relative
// link of those pages leads to a file (and heading) that exists, the README stays a front page,
// the API section names every export, and the declarations document every one.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import ts from "typescript";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The pages a reader is sent to: the README and docs/, by path from the repository's root. */
const pages = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];

/** A page's ```js blocks, their indentation removed, each with its page and its number there. */
function codeBlocks(page) {
  const text = readFileSync(join(root, page), "utf8");
  return [...text.matchAll(/^( *)```js\n([\s\S]*?)^\1```$/gm)].map(([, indent, body], i) => ({
    page, n: i + 1, code: body.split("\n").map((line) => line.slice(indent.length)).join("\n"),
  }));
}

const blocks = pages.flatMap(codeBlocks);
const slug = (b) => `${b.page.replace(/\W+/g, "-")}-${b.n}`;

test("the README has its examples, and the docs theirs", () => {
  assert.ok(blocks.filter((b) => b.page === "README.md").length >= 3, "README's js blocks");
  assert.ok(blocks.length >= 14, `${blocks.length} js blocks in all`);
});

test("the README is a front page: at most 300 lines, linking every page of docs/", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  assert.ok(readme.split("\n").length <= 300, `${readme.split("\n").length} lines`);
  for (const page of pages.slice(1)) assert.ok(readme.includes(`](${page}`), `the README links ${page}`);
});

/** A page's text without its code blocks (whose links and paths are code, not prose). */
const proseOf = (page) => readFileSync(join(root, page), "utf8").replace(/^( *)```[\s\S]*?^\1```$/gm, "");

/** GitHub's anchor of a heading: lower case, punctuation but hyphens and underscores dropped, spaces as hyphens. */
const anchorOf = (heading) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-");

test("every relative link of the README and docs/ leads to a file, and a heading there when it names one", () => {
  const broken = [];
  for (const page of pages) {
    const text = proseOf(page);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [file, anchor] = target.split("#");
      const path = file ? join(root, dirname(page), file) : join(root, page);
      if (!existsSync(path)) {
        broken.push(`${page}: ${target} (no such file)`);
        continue;
      }
      if (anchor && path.endsWith(".md")) {
        const headings = [...readFileSync(path, "utf8").matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]));
        if (!headings.includes(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test("every file of the repository the README and docs/ name in backticks exists", () => {
  const missing = [];
  for (const page of pages) {
    const text = proseOf(page);
    for (const [, path] of text.matchAll(/`((?:src|js|tests|crates|scripts|bench|www|examples|fuzz|packages|docs)\/[\w./-]*)`/g)) {
      if (!existsSync(join(root, path))) missing.push(`${page}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

for (const block of blocks) {
  const { code } = block;
  const imports = /from "zarr-wasm-codecs";/.test(code) ? code.match(/import \{([^}]*)\} from "zarr-wasm-codecs"/)[1].trim() : "";
  test(`${block.page} example ${block.n} (${imports}) runs as written and prints what it says`, () => {
    const said = [...code.matchAll(/^\s*console\.log\(.*\); \/\/ ([^:\n]+)/gm)].at(-1);
    assert.ok(said, "the example says what it prints");
    const dir = join(root, "target/readme");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${slug(block)}.mjs`);
    writeFileSync(file, code);
    const printed = execFileSync(process.execPath, [file], { cwd: root, encoding: "utf8", timeout: 60000 });
    assert.equal(printed.trim(), said[1].trim());
  });
}

test("every example of the README and docs/ and a strict app using every export type-check (tsc --strict, bundler resolution)", () => {
  const dir = join(root, "target/readme-ts");
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((block) => {
    const { code } = block;
    const file = join(dir, `${slug(block)}.ts`);
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
