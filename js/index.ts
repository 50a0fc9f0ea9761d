// zarrita.js adapter: registers this package's codecs in zarrita's codec registry. The codecs'
// behaviour lives in Rust; this file only hands zarrita's chunks to the wasm and back.
import { type ChunkMeta, chunkMetaOf, receivedByZarrita06 } from "./metadata/chunk-meta.js";
import * as zarr from "zarrita";
import { decodingInWasm } from "./zarrita/compressors.js";
import { GzipCodec } from "./zarrita/gzip.js";
import { exactJson, numberJson } from "./common/json.js";
import type { ArrayBytesCodec } from "./zarrita/array-bytes.js";
import { type Bindings, loadModule, loadWasm } from "./loading/load.js";
import { stepClass, type WholeChunkModule } from "./modules.js";
import { CODECS } from "./wasm/tables.js";
import { isOurs, markOurs } from "./common/registry.js";

export { CODEC_NAMES } from "./common/registry.js";
import { exactCodecLists } from "./metadata/open.js";

export { loadWasm } from "./loading/load.js";

/** Starts the zfp module ahead of first use and gives its raw bindings (`loadModule("zfp")`). */
export const loadZfp = () => loadModule("zfp");

/** zarrita's registry: codec name -> loader of a codec class with `fromConfig`. */
export type CodecRegistry = typeof zarr.registry;

type Scalar = number | bigint | boolean | null | undefined;


interface Chunk {
  data: ArrayLike<unknown> & { buffer: ArrayBufferLike };
  shape: number[];
  stride: number[];
}


type RegistryEntry = Parameters<CodecRegistry["set"]>[1];

/**
 * Puts this package's codecs into zarrita's registry (by default `zarr.registry`), replacing
 * zarrita's built-in JavaScript ones, adds gzip encoding (zarrita's gzip only decodes), and
 * has zarrita's bytes -> bytes codecs (zstd, blosc, lz4, gzip, zlib, crc32c) decode in the
 * package's compress module (zstd in its zstd module), checked, as `get` does (their encoding
 * stays zarrita's). Call
 * it before opening arrays: zarrita loads a codec once per array, on first chunk access.
 */
export function registerCodecs(registry: CodecRegistry = zarr.registry): void {
  const ours = (name: string, entry: () => Promise<unknown>) => {
    markOurs(entry);
    // zarrita's Codec type is numcodecs' signature; array -> array codecs take chunks.
    registry.set(name, entry as unknown as RegistryEntry);
  };
  // The gzip encoder first, so that its decode is wrapped like zarrita's other codecs'.
  registry.set("gzip", (async () => GzipCodec) as unknown as RegistryEntry);
  // Each codec as its row of the codec table says.
  for (const row of CODECS) {
    for (const name of row.v3_names) {
      if (row.zarrita === "array_to_array") {
        ours(name, async () => arrayToArrayCodec(await loadWasm(), name));
      } else if (row.zarrita === "whole_chunk") {
        // The module loads when an array first uses it.
        const module = row.module as WholeChunkModule;
        ours(name, async () => {
          const [{ arrayToBytesEntry }, glue] = await Promise.all([import("./zarrita/array-bytes.js"), loadModule(module)]);
          return arrayToBytesEntry(stepClass(module, glue) as ArrayBytesCodec, name, row.name !== module);
        });
      } else if (name === "bytes") {
        // zarrita's own, handed (by zarrita 0.6 and fizarrita) the type it receives.
        const entry = registry.get(name);
        if (entry && !isOurs(entry)) ours(name, receivingItsType(name, entry as () => Promise<unknown>));
      } else if (row.zarrita === "compress") {
        // zarrita's own codec (numcodecs.js), decoding in the compress (or zstd) module (zarr.get too).
        const entry = registry.get(name);
        if (entry && !isOurs(entry)) {
          registry.set(name, decodingInWasm(name, entry as () => Promise<unknown>) as unknown as RegistryEntry);
        }
      }
    }
  }
}

/**
 * zarrita's own codec of `name` (its `bytes`), built with the data type it receives where the
 * zarrita building it hands every codec the array's (zarrita 0.6, fizarrita's workers): after
 * a `cast_value`, the bytes are of the type cast to.
 */
function receivingItsType(name: string, original: () => Promise<unknown>) {
  return async () => {
    const Original = (await original()) as { fromConfig(config: unknown, meta: unknown): unknown };
    return { fromConfig: (config: unknown, meta: unknown) => Original.fromConfig(config, receivedByZarrita06(meta, name, config)) };
  };
}

/** A JSON text for a scalar as zarrita holds it (numbers, bigints, NaN, infinities). */
export function scalarToJson(value: Scalar): string {
  if (typeof value === "boolean") return value ? "1" : "0";
  return exactJson(value);
}

/** Metadata objects this package's getEncodedMeta made: their fill values are exact. */
const encodedMetas = new WeakSet<object>();

/**
 * The fill value zarrita hands a codec, as JSON. zarrita makes a 64-bit fill value a bigint
 * from the number JSON.parse gave, which beyond 2^53 may be rounded: unless the value came
 * from zarr.json read exactly (open()) or from this package's previous codec, it is written
 * as the float it came from, which the wasm refuses where it needs an exact integer.
 */
function fillJson(meta: ChunkMeta): string {
  const trusted = encodedMetas.has(meta) || exactCodecLists.has(meta.codecs);
  // (zarrita 0.6 and fizarrita hand codecs no fill value: 0, which decoding does not use.)
  const fill = (meta.fillValue ?? 0) as Scalar;
  if (typeof fill === "bigint" && !trusted) return numberJson(Number(fill));
  return scalarToJson(fill);
}

/** This codec's position in the codec list: found by identity of its configuration object. */
function codecPosition(name: string, config: unknown, meta: ChunkMeta): { codecs: unknown[]; index: number } {
  const matches = meta.codecs
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.name === name && c.configuration === config);
  if (matches.length === 1) return { codecs: meta.codecs, index: matches[0].i };
  // Not uniquely placed (e.g. two configuration-less codecs): build it alone, unfused.
  return { codecs: [{ name, configuration: config }], index: 0 };
}

function arrayToArrayCodec(wasm: Bindings, name: string) {
  return {
    fromConfig(config: unknown, given: unknown) {
      const meta = chunkMetaOf(given, name, config);
      const { codecs, index } = codecPosition(name, config, meta);
      const inner = new wasm.ArrayToArrayCodec(
        exactJson(codecs),
        index,
        meta.dataType,
        fillJson(meta),
        meta.shape.reduce((a, b) => a * b, 1),
      );
      return {
        kind: "array_to_array" as const,
        encode(chunk: Chunk): Chunk {
          return { data: inner.encode(chunk.data), shape: chunk.shape, stride: chunk.stride };
        },
        decode(chunk: Chunk): Chunk {
          return { data: inner.decode(chunk.data), shape: chunk.shape, stride: chunk.stride };
        },
        getEncodedMeta(current: ChunkMeta): ChunkMeta {
          const encoded = { ...current, dataType: inner.encodedDataType, fillValue: inner.encodedFillValue };
          encodedMetas.add(encoded);
          return encoded;
        },
      };
    },
  };
}

/**
 * A whole codec chain (array -> array codecs and `bytes`) for one chunk shape, built from
 * `{data_type, fill_value, codecs, chunk_shape}` or a zarr.json object, or its JSON text.
 * From an object, 64-bit integers beyond 2^53 must be bigints or decimal strings: a number
 * that large may already be rounded, and is refused (INEXACT_NUMBER) where an integer is read.
 */
export async function createChain(metadata: object | string): Promise<InstanceType<Bindings["CodecChain"]>> {
  const wasm = await loadWasm();
  return new wasm.CodecChain(typeof metadata === "string" ? metadata : exactJson(metadata));
}

export { planPacking, writePacked } from "./writing/plan.js";
export type { DataRange, PackingPlan, PlanOptions, WritePackedOptions } from "./writing/plan.js";
export { getDecoded } from "./reading/decoded.js";
export type { DecodedChunk } from "./reading/decoded.js";
export { setAtomic } from "./writing/atomic.js";
export { get } from "./reading/read.js";
export { getStored } from "./reading/stored.js";
export type { StoredChunk, StoredResult } from "./reading/stored.js";
export { gpuDecoder, webgl2Textures, webgpuResources } from "./gpu/gpu.js";
export type { GpuDecoder, GpuDecoderOptions, GpuTextureFormat, WebGPUResources } from "./gpu/gpu.js";
export { WorkerPool, defaultPool } from "./pool/pool.js";
export type { PoolOptions } from "./pool/pool.js";
export type { GetOptions, GetResult, Selection } from "./reading/read.js";
export type { WorkerFetchInit } from "./stores/store.js";
export { SHARD_INDEX_BYTES } from "./reading/fetch.js";
export { validatingFetch } from "./stores/validators.js";
export { ReferenceStore, referenceStore } from "./stores/reference.js";
export type { Reference, ReferenceOptions } from "./stores/reference.js";
export { DEFAULT_MERGE } from "./stores/ranges.js";
export type { MergeLimits } from "./stores/ranges.js";
export { set } from "./writing/write.js";
export type { ChunkValue, SetOptions } from "./writing/write.js";
export { open } from "./metadata/open.js";
export { withWasmCodecs } from "./zarrita/extension.js";
export type { WasmCodecsOptions } from "./zarrita/extension.js";
export { dataType, registerDataType } from "./metadata/data-types.js";
export { dataTypeOf } from "./metadata/open.js";
export type { DataType, DataTypeDefinition, DataTypeInfo, LaneArrays, LaneType } from "./metadata/data-types.js";
export { ERROR_CODES, errorCode, isCodecError } from "./common/errors.js";
export type { CodecError, ErrorCode } from "./common/errors.js";
