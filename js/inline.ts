// "zarr-wasm-codecs/inline": the package, with its wasm modules loaded from the base64 copies
// inside its ES modules rather than from the .wasm files (for environments that cannot fetch
// or read files, and bundlers that do not copy them, such as esbuild). Only this entry refers
// to the copies: a build that does not import it emits none. Each copy is its own dynamic
// import, so a page downloads only the copies of the modules it uses.
import { useInlineWasm } from "./load.js";
// Written by scripts/build.mjs from the module crates (its type says which modules it has).
import copies from "./wasm/inline_copies.js";

useInlineWasm(copies);

export * from "./index.js";
