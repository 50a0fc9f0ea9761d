// Adding the package never changes which zarrita an app's other packages get, as npm resolves
// the app (issue 67, item 11). The app is an ngff-zarr app in small: it depends on a package
// that pins zarrita ^0.6 and depends on fizarrita 1.4.1, whose peer is zarrita >=0.6.0 (as
// @fideus-labs/ngff-zarr 0.14 does; fizarrita 1.4.1 fails with zarrita 0.7). The packed package
// is installed into it by a real `npm install` (from the registry or npm's cache): once into the
// app's existing lockfile, and once resolved afresh (no lockfile, no node_modules). Each time
// fizarrita's zarrita is the 0.6 it had before the package was added, the one zarrita the app
// holds, and the package reads and writes with it. An app that installs no zarrita is told which
// package is missing when it imports the package.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { pack, root, run } from "../shared/pack.mjs";

const work = join(root, "target/npm-resolve");
// The apps are outside the repository, so that nothing in them resolves to its node_modules.
const apps = mkdtempSync(join(tmpdir(), "zwc-npm-resolve-"));
after(() => rmSync(apps, { recursive: true, force: true }));
const npmInstall = (cwd, ...specs) => run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...specs], cwd);
let tarball;
let viewer;

// The version of fizarrita the repository tests (a development dependency), for the app's
// package to depend on.
const fizarrita = JSON.parse(readFileSync(join(root, "node_modules/@fideus-labs/fizarrita/package.json"), "utf8")).version;

before(() => {
  rmSync(work, { recursive: true, force: true });
  tarball = pack(join(work, "pack"));
  // The package that pins zarrita 0.6, packed so that npm installs it as one from the registry
  // (a folder dependency would be linked, its dependencies kept inside it).
  const src = join(work, "viewer-src");
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, "package.json"), JSON.stringify({
    name: "zarrita06-viewer", version: "1.0.0", type: "module", main: "index.js",
    dependencies: { zarrita: "^0.6.1", "@fideus-labs/fizarrita": fizarrita },
  }));
  writeFileSync(join(src, "index.js"), 'export * as zarr from "zarrita";\n');
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", work], src));
  viewer = join(work, packed.filename);
});

/** A fresh app folder `name` with `dependencies`, no lockfile. */
function freshApp(name, dependencies) {
  const app = join(apps, name);
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true, type: "module", dependencies }));
  return app;
}

/**
 * The zarrita a module in `pkg` (a folder under `app`) imports, by Node's own resolution from
 * that folder: its folder (relative to the app) and version.
 */
function zarritaOf(app, pkg) {
  const url = run(process.execPath, ["--input-type=module", "-e", 'console.log(import.meta.resolve("zarrita"))'], join(app, pkg)).trim();
  const manifest = (dir) => (existsSync(join(dir, "package.json")) ? JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) : {});
  let dir = dirname(fileURLToPath(url));
  while (manifest(dir).name !== "zarrita") {
    if (dir === dirname(dir)) throw new Error(`no zarrita package.json above ${url}`);
    dir = dirname(dir);
  }
  return { at: relative(app, dir), version: manifest(dir).version };
}

/** Every zarrita installed in the app (the folders of node_modules/zarrita, at any depth). */
function installedZarritas(app) {
  const found = [];
  const walk = (modules) => {
    if (!existsSync(modules)) return;
    for (const name of readdirNames(modules)) {
      if (name.startsWith("@")) {
        for (const scoped of readdirNames(join(modules, name))) walk(join(modules, name, scoped, "node_modules"));
      } else {
        if (name === "zarrita") found.push(relative(app, join(modules, name)));
        walk(join(modules, name, "node_modules"));
      }
    }
  };
  walk(join(app, "node_modules"));
  return found.sort();
}
const readdirNames = (dir) => (existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith(".")) : []);

// The app reads and writes with the package and the app's zarrita (0.6's field names).
const APP = `
import * as zarr from "zarrita";
import { get, registerCodecs, set } from "zarr-wasm-codecs";
registerCodecs();
const files = new Map();
const arr = await zarr.create(zarr.root(files), {
  shape: [4], chunk_shape: [2], data_type: "float64", fill_value: 0,
  codecs: [
    { name: "scale_offset", configuration: { offset: 0, scale: 4 } },
    { name: "cast_value", configuration: { data_type: "int16" } },
    { name: "bytes", configuration: { endian: "little" } },
  ],
});
await set(arr, null, { data: Float64Array.of(0.25, 0.5, 1, -2), shape: [4], stride: [1] });
const viaZarrita = await zarr.get(await zarr.open.v3(files, { kind: "array" }));
const viaPackage = await get(arr);
console.log(JSON.stringify({ zarrGet: Array.from(viaZarrita.data), get: Array.from(viaPackage.data) }));
`;

test("an app whose packages pin zarrita 0.6 keeps it for fizarrita when the package is added, with its lockfile and resolved afresh", (t) => {
  const fiz = "node_modules/@fideus-labs/fizarrita";
  // Before: the app without the package.
  const app = freshApp("app", { "zarrita06-viewer": `file:${viewer}` });
  npmInstall(app);
  const before = zarritaOf(app, fiz);
  t.diagnostic(`before: fizarrita's zarrita ${before.version} (${before.at}); installed ${installedZarritas(app)}`);
  assert.match(before.version, /^0\.6\./, "without the package, npm gives fizarrita the pinned zarrita 0.6");

  const check = (when) => {
    const installed = installedZarritas(app);
    const got = { fizarrita: zarritaOf(app, fiz), viewer: zarritaOf(app, "node_modules/zarrita06-viewer"), package: zarritaOf(app, "node_modules/zarr-wasm-codecs") };
    t.diagnostic(`${when}: fizarrita's zarrita ${got.fizarrita.version}; installed ${installed}`);
    assert.deepEqual(got.fizarrita, before, `${when}: fizarrita's zarrita is the one it had before`);
    // One zarrita in the app: the package's is the app's and fizarrita's (one codec registry).
    assert.deepEqual(installed, ["node_modules/zarrita"], `${when}: installed ${installed}`);
    assert.deepEqual(got.viewer, before, when);
    assert.deepEqual(got.package, before, when);
    assert.ok(!existsSync(join(app, "node_modules/zarr-wasm-codecs-inline")), "the companion is not installed unasked");
    writeFileSync(join(app, "app.mjs"), APP);
    const out = JSON.parse(run(process.execPath, ["app.mjs"], app));
    assert.deepEqual(out, { zarrGet: [0.25, 0.5, 1, -2], get: [0.25, 0.5, 1, -2] }, when);
  };

  // `npm install zarr-wasm-codecs` into the installed app (its lockfile kept).
  npmInstall(app, tarball);
  check("added to the lockfile");

  // The same dependencies resolved afresh: no lockfile, no node_modules.
  rmSync(join(app, "node_modules"), { recursive: true, force: true });
  rmSync(join(app, "package-lock.json"), { force: true });
  npmInstall(app);
  check("resolved afresh");
});

test("an app that installs no zarrita: the import fails naming zarrita", () => {
  const app = freshApp("app-no-zarrita", {});
  npmInstall(app, tarball);
  assert.deepEqual(installedZarritas(app), []);
  let error;
  try {
    run(process.execPath, ["--input-type=module", "-e", 'await import("zarr-wasm-codecs")'], app);
  } catch (e) {
    error = e.stderr;
  }
  assert.ok(error, "the import fails");
  assert.match(error, /ERR_MODULE_NOT_FOUND/);
  assert.match(error, /Cannot find package 'zarrita' imported from .*zarr-wasm-codecs/);
});
