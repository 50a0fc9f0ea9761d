// "zarr-wasm-codecs/inline": the package, with its wasm modules loaded from base64 copies
// inside ES modules rather than from the .wasm files (for environments that cannot fetch or
// read files, and bundlers that do not copy them, such as esbuild). The copies are the
// companion package zarr-wasm-codecs-inline's (packages/inline, built with this one), which
// only this entry imports: an app that does not use it needs neither that package nor, in a
// build, any copy. Each copy is its own dynamic import, so a page downloads only the copies of
// the modules it uses.
import copies from "zarr-wasm-codecs-inline";

import { useInlineWasm } from "./loading/load.js";

useInlineWasm(copies);

export * from "./index.js";
