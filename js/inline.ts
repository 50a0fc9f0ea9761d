// "zarr-wasm-codecs/inline": the package, with its wasm modules loaded from the base64 copies
// inside its ES modules rather than from the .wasm files (for environments that cannot fetch
// or read files, and bundlers that do not copy them, such as esbuild).
import { useInlineWasm } from "./load.js";

useInlineWasm();

export * from "./index.js";
