// The package's wasm modules, one row each (a crate under crates/; scripts/build.mjs names its
// glue and .wasm file): how its glue is imported and where its .wasm file is, and for a module
// that runs a step of a chunk's decoding, its class (the encode module's class, Compressor, is
// the write path's, js/kernels/encode.ts). Loading (load.ts), the read path's steps
// (read.ts, place.ts), the zarrita adapter, the worker protocol and the worker read this table.
// The inline entry ("zarr-wasm-codecs/inline") imports its own list of the base64 copies, which
// the build writes keyed by the same names, so that no other build refers to them. Each closure
// holds the literal `import(...)` and `new URL(..., import.meta.url)` that bundlers look for.
import * as core from "./wasm/zarr_wasm_codecs.js";
import { CODECS } from "./wasm/tables.js";

export const MODULES = {
  // Every reader loads the core module: its glue is imported statically.
  core: {
    glue: async () => core,
    file: () => new URL("./wasm/zarr_wasm_codecs.wasm", import.meta.url),
  },
  packing: {
    glue: () => import("./wasm/zarr_wasm_codecs_packing.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_packing.wasm", import.meta.url),
  },
  compress: {
    glue: () => import("./wasm/zarr_wasm_codecs_compress.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_compress.wasm", import.meta.url),
    step: (glue: typeof import("./wasm/zarr_wasm_codecs_compress.js")) => glue.Decompressor,
  },
  // zstd's decoder alone, for chains whose one bytes -> bytes codec is zstd (the commonest
  // compressed store): their readers download no other decompressor.
  zstd: {
    glue: () => import("./wasm/zarr_wasm_codecs_zstd.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_zstd.wasm", import.meta.url),
    step: (glue: typeof import("./wasm/zarr_wasm_codecs_zstd.js")) => glue.Decompressor,
  },
  // The bytes -> bytes codecs' encoders, for writes (a reader never loads them).
  encode: {
    glue: () => import("./wasm/zarr_wasm_codecs_encode.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_encode.wasm", import.meta.url),
  },
  // The compress module's decoders with bz2's and lzma's, for chains that have one of the two:
  // no other reader downloads them.
  archive: {
    glue: () => import("./wasm/zarr_wasm_codecs_archive.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_archive.wasm", import.meta.url),
    step: (glue: typeof import("./wasm/zarr_wasm_codecs_archive.js")) => glue.Decompressor,
  },
  // The encode module's encoders with bz2's and lzma's, for writes of those chains.
  archive_encode: {
    glue: () => import("./wasm/zarr_wasm_codecs_archive_encode.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_archive_encode.wasm", import.meta.url),
  },
  pcodec: {
    glue: () => import("./wasm/zarr_wasm_codecs_pcodec.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_pcodec.wasm", import.meta.url),
    step: (glue: typeof import("./wasm/zarr_wasm_codecs_pcodec.js")) => glue.PcodecCodec,
  },
  // GRIB2 messages (kerchunk's grib codec, gribberish's), for archives read in place: no
  // other reader downloads the decoder.
  grib: {
    glue: () => import("./wasm/zarr_wasm_codecs_grib.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_grib.wasm", import.meta.url),
    step: (glue: typeof import("./wasm/zarr_wasm_codecs_grib.js")) => glue.GribCodec,
  },
  zfp: {
    glue: () => import("./wasm/zarr_wasm_codecs_zfp.js"),
    file: () => new URL("./wasm/zarr_wasm_codecs_zfp.wasm", import.meta.url),
    step: (glue: typeof import("./wasm/zarr_wasm_codecs_zfp.js")) => glue.ZfpCodec,
  },
};

/** A module's name. */
export type ModuleName = keyof typeof MODULES;

/** A module's wasm-bindgen glue (its exports). */
export type GlueOf<M extends ModuleName> = Awaited<ReturnType<(typeof MODULES)[M]["glue"]>>;

/** The modules that run a step of a chunk's decoding (they have a class for it). */
export type StepModule = { [M in ModuleName]: (typeof MODULES)[M] extends { step: unknown } ? M : never }[ModuleName];

/** A step module's class, from its glue (its row's `step`). */
export function stepClass(name: StepModule, glue: unknown): unknown {
  return (MODULES[name].step as (glue: unknown) => unknown)(glue);
}

/** The modules that run bytes -> bytes codecs (their class is a Decompressor). */
export type BytesModule = "compress" | "archive" | "zstd";

/** The modules whose class decodes a chunk whole (every step module but the bytes -> bytes ones). */
export type WholeChunkModule = Exclude<StepModule, BytesModule>;

/** The module a bytes -> bytes codec decodes in, as its row of the codec table says (by its zarr v3 name). */
function moduleOfCodec(name: string): string | null | undefined {
  return CODECS.find((r) => r.v3_names.includes(name))?.module;
}

/** Whether a list of bytes -> bytes codecs has one of the archive module's (bz2, lzma, imagecodecs_bz2). */
function hasArchiveCodec(codecs: readonly { name: string }[]): boolean {
  return codecs.some((c) => moduleOfCodec(c.name) === "archive");
}

/** zstd's zarr v3 names, from its row of the codec table. */
const ZSTD_NAMES = CODECS.find((r) => r.name === "zstd")?.v3_names ?? [];

/**
 * The module that decodes a list of bytes -> bytes codecs: the archive module where one of
 * them is its own (bz2, lzma), since it runs the others too; the zstd module where zstd is
 * the one codec; else the compress module.
 */
export function bytesModuleOf(codecs: readonly { name: string }[]): BytesModule {
  if (hasArchiveCodec(codecs)) return "archive";
  return codecs.length === 1 && ZSTD_NAMES.includes(codecs[0].name) ? "zstd" : "compress";
}

/** The modules whose Compressor encodes bytes -> bytes codecs (see `encodeModuleOf`). */
export type EncodeModule = "encode" | "archive_encode";

/** The module that encodes a list of bytes -> bytes codecs: archive_encode for the archive module's, else the encode module. */
export function encodeModuleOf(codecs: readonly { name: string }[]): EncodeModule {
  return hasArchiveCodec(codecs) ? "archive_encode" : "encode";
}
