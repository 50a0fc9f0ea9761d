// bundle-entry.js with the package's wasm from its base64 copies ("zarr-wasm-codecs/inline"),
// for bundlers that do not copy the .wasm files (esbuild).
import "zarr-wasm-codecs/inline";
import { start } from "./entry-run.js";

start();
