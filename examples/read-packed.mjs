// Reads a float64 array that zarr-python stored as uint8 (scale_offset + cast_value with a NaN
// sentinel) through zarrita with this package's codecs, and prints what it decoded.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import FileSystemStore from "@zarrita/storage/fs";
import * as zarr from "zarrita";
import { registerCodecs } from "zarr-wasm-codecs";

registerCodecs();

const path = process.argv[2] ?? fileURLToPath(new URL("../tests/node/fixtures/stores/design_2d.zarr", import.meta.url));
const arr = await zarr.open.v3(zarr.root(new FileSystemStore(path)), { kind: "array" });
const t0 = performance.now();
const { data, shape } = await zarr.get(arr);
const ms = performance.now() - t0;

let min = Infinity;
let max = -Infinity;
let nan = 0;
for (const v of data) {
  if (Number.isNaN(v)) nan++;
  else {
    if (v < min) min = v;
    if (v > max) max = v;
  }
}
console.log(`${path}`);
const { codecs } = JSON.parse(readFileSync(join(path, "zarr.json"), "utf8"));
console.log(`codecs: ${codecs.map((c) => c.name).join(", ")} (${arr.dtype} stored as ${codecs.find((c) => c.name === "cast_value")?.configuration.data_type ?? arr.dtype})`);
console.log(`${data.constructor.name} shape [${shape}] in ${ms.toFixed(1)} ms`);
console.log(`min ${min}, max ${max}, NaN ${nan} of ${data.length}`);
console.log(`first row: ${Array.from(data.slice(0, 8), (v) => v.toFixed(2)).join(" ")} ...`);
