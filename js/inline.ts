// "zarr-wasm-codecs/inline": the package, with its wasm modules loaded from the base64 copies
// inside its ES modules rather than from the .wasm files (for environments that cannot fetch
// or read files, and bundlers that do not copy them, such as esbuild). Only this entry refers
// to the copies: a build that does not import it emits none. Each copy is its own dynamic
// import, so a page downloads only the copies of the modules it uses.
import { useInlineWasm } from "./load.js";

useInlineWasm({
  core: () => import("./wasm/zarr_wasm_codecs_inline.js"),
  zfp: () => import("./wasm/zarr_wasm_codecs_zfp_inline.js"),
  packing: () => import("./wasm/zarr_wasm_codecs_packing_inline.js"),
  compress: () => import("./wasm/zarr_wasm_codecs_compress_inline.js"),
  pcodec: () => import("./wasm/zarr_wasm_codecs_pcodec_inline.js"),
});

export * from "./index.js";
