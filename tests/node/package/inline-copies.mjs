// A helper the Node tests share (not a test file itself): which of the package's base64 copies
// of its wasm modules (the companion package's, packages/inline/wasm/*_inline.js, reachable only
// from "zarr-wasm-codecs/inline") a build emitted. A copy is recognised by a 200-character piece from the middle of its base64
// string: every wasm module's base64 starts alike (the wasm magic and version), zarrita's own
// inline numcodecs modules included, so the start would not tell them apart.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { filesUnder } from "../shared/files.mjs";

const wasm = fileURLToPath(new URL("../../../packages/inline/wasm/", import.meta.url));

/** Each module's name and the file of its base64 copy in packages/inline/wasm/. */
export const INLINE_COPIES = {
  archive: "zarr_wasm_codecs_archive_inline.js",
  archive_encode: "zarr_wasm_codecs_archive_encode_inline.js",
  compress: "zarr_wasm_codecs_compress_inline.js",
  core: "zarr_wasm_codecs_inline.js",
  encode: "zarr_wasm_codecs_encode_inline.js",
  grib: "zarr_wasm_codecs_grib_inline.js",
  packing: "zarr_wasm_codecs_packing_inline.js",
  pcodec: "zarr_wasm_codecs_pcodec_inline.js",
  zfp: "zarr_wasm_codecs_zfp_inline.js",
  zstd: "zarr_wasm_codecs_zstd_inline.js",
};

const PIECE = 200;

let pieces;

/** Each module's name and a piece from the middle of its base64 string (read once). */
function inlinePieces() {
  pieces ??= Object.entries(INLINE_COPIES).map(([name, file]) => {
    const text = readFileSync(join(wasm, file), "utf8");
    const base64 = /export default "([A-Za-z0-9+/=]+)"/.exec(text)?.[1];
    if (!base64 || base64.length < 4 * PIECE) throw new Error(`no base64 string in packages/inline/wasm/${file}`);
    const middle = Math.floor(base64.length / 2);
    return { name, piece: base64.slice(middle, middle + PIECE) };
  });
  return pieces;
}

/** The modules (sorted names: archive, archive_encode, compress, core, encode, grib, packing, pcodec, zfp, zstd) whose base64 copies appear in any file under `dir`. */
export function inlineCopiesIn(dir) {
  const found = new Set();
  const wanted = inlinePieces();
  for (const file of filesUnder(dir)) {
    const text = readFileSync(file, "latin1");
    for (const { name, piece } of wanted) if (text.includes(piece)) found.add(name);
  }
  return wanted.map((w) => w.name).filter((name) => found.has(name));
}
