// A helper the Node tests share (not a test file itself): the package as npm would publish it,
// installed into a fresh app the way a user installs it.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../../../", import.meta.url));

export const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300000 });

/**
 * `npm pack` of the built package into `dir` (emptied first), and of its companion
 * zarr-wasm-codecs-inline (packages/inline, the base64 copies "zarr-wasm-codecs/inline"
 * imports) beside it; the package's tarball's path (`inlineTarball` gives the companion's).
 * Packing runs no scripts: the build is npm test's first step (prepack would build again).
 */
export function pack(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], root));
  run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", dir], join(root, "packages/inline"));
  return join(dir, packed.filename);
}

/** The companion's tarball that `pack` put beside the package's `tarball`. */
export function inlineTarball(tarball) {
  const dir = dirname(tarball);
  const found = readdirSync(dir).filter((f) => /^zarr-wasm-codecs-inline-.*\.tgz$/.test(f));
  if (found.length !== 1) throw new Error(`no one zarr-wasm-codecs-inline tarball in ${dir}: ${found}`);
  return join(dir, found[0]);
}

/**
 * A fresh app in `app` (emptied first) with `files` copied in, and the tarball (and the
 * companion's beside it) installed next to the zarrita version the repository tests, from the
 * registry (or npm's cache).
 */
export function installApp(app, tarball, files) {
  rmSync(app, { recursive: true, force: true });
  mkdirSync(app, { recursive: true });
  for (const f of files) copyFileSync(f, join(app, basename(f)));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: basename(app), private: true }));
  const zarrita = JSON.parse(readFileSync(join(root, "node_modules/zarrita/package.json"), "utf8")).version;
  // With the companion, as an app that imports "zarr-wasm-codecs/inline" installs it.
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball, inlineTarball(tarball), `zarrita@${zarrita}`], app);
}
