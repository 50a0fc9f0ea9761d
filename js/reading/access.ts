// What the package knows of an array it reads or writes on its own path: its layout (from the
// wasm), its stages (the bytes -> bytes steps and whole-chunk serializers), the tile reader of
// each chunk shape and its fill value, made once per array and kept with it (`cached`).
import * as zarr from "zarrita";
import type { DataTypeInfo } from "../metadata/data-types.js";
import { type BytesCodec, decodeBytes, type IndexLevel, registryBytesCodecs, type ShardIndex } from "./fetch.js";
import { type AnyStore } from "../stores/store.js";
import { type Bindings, compiledOf, loadModule, loadWasm, memoryOf, type PackingBindings } from "../loading/load.js";
import { metadataText } from "../metadata/metadata.js";
import { bytesModuleOf, stepClass, type WholeChunkModule } from "../modules.js";
import { type Decompressor, type StageSpec, stageOf, type TileReader, typedArrayFor, unpackAll } from "../kernels/place.js";
import type { ModuleKind } from "../pool/protocol.js";
import { rectilinearAxis } from "./select.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/**
 * What the wasm says of an array's layout (crate::layout::ArrayLayout::to_json); the keys are
 * held to the Rust side's by tests/node/metadata/layout-contract.test.mjs.
 */
export interface Layout {
  /** The numeric type the codecs see: the array's, or its items' lanes' (`array_data_type`). */
  data_type: string;
  /** The array's data type, as the registry describes it. */
  array_data_type: DataTypeInfo;
  /** Lanes an item; above 1, `shape` and the chunk shapes end with a dimension of them. */
  lanes: number;
  shape: number[];
  chunk_shape: number[];
  key_v2: boolean;
  key_separator: string;
  /** The (inner) chunk's bytes -> bytes codecs, as written. */
  codecs: CodecMeta[];
  /** null where the compress module runs `codecs`, else why zarrita's registry does. */
  codecs_fallback: string | null;
  /** What the bytes -> bytes codecs receive: the data type and chunk shape laid out as bytes. */
  stored_data_type: string;
  stored_chunk_shape: number[];
  stored_item_size: number;
  /**
   * The array -> bytes codec run on whole chunks in a module of its own, which decodes a
   * chunk to its values' little-endian bytes: the codec, its module, the data type it
   * receives and the chunk shape it sees.
   */
  serializer: null | { codec: CodecMeta; module: WholeChunkModule; data_type: string; chunk_shape: number[] };
  /** The size of an (inner) chunk once `codecs` are undone, where every chunk has the same. */
  decoded_bytes: number | null;
  /** Whether `set` writes the array on the package's own path (else through zarr.set). */
  writes_here: boolean;
  /** A `transpose`'s order (stored dimension i is dimension order[i]; an item's lanes last), or null. */
  order: number[] | null;
  /** A rectilinear chunk grid's edges: per dimension, runs of [edge, count] (null for a regular grid). */
  edges: [number, number][][] | null;
  /** Sharding: the innermost chunks' shape, and each level's index, outermost first (nested sharding has several). */
  shard: null | {
    chunk_shape: number[];
    levels: {
      /** The shape of the chunks the level's index lists. */
      chunk_shape: number[];
      index_endian: "little" | "big";
      index_codecs: CodecMeta[];
      index_fallback: string | null;
      /** The index's size once its codecs are undone (16 bytes a chunk it lists). */
      index_decoded_bytes: number;
      /** Its stored size, where its codecs fix it. */
      index_bytes: number | null;
      index_at_end: boolean;
      /** The dimensions in the order the index lists its chunks, where a transpose before its sharding_indexed turned the shard (null: the array's). */
      index_order: number[] | null;
    }[];
  };
  fill_bytes: number[];
}
export interface CodecMeta {
  name: string;
  configuration?: unknown;
}

/** Reading `arr` on this path: its reader, layout and codecs, or why it falls back. */
export interface ArrayAccess<R extends TileReader> {
  reader: R;
  layout: Layout;
  /** The (inner) chunk shape, the grid a selection is planned on. */
  chunkShape: number[];
  /**
   * The reader of the chunk at `coords`: `reader`, or for a rectilinear grid one a chunk shape
   * (made when first needed), with the chunk's shape and the shape the reader was made for
   * (JSON, for a worker's: without the lanes' dimension).
   */
  readerAt(coords: number[]): { reader: R; shape?: number[]; chunkShape?: string };
  /** Bytes -> bytes codecs run through zarrita's registry (none when the compress module runs them). */
  compressors: BytesCodec[];
  /**
   * The steps in wasm from a chunk's stored bytes (after `compressors`) to what the reader
   * takes: the compress module's, then a serializer's (see `Layout.serializer`).
   */
  stages: Stage[];
  index: null | ShardIndex;
  memory: WebAssembly.Memory;
  /** For pool workers: the metadata text, which module reads it, the modules, a key. */
  text: string;
  kind: "core" | "packing";
  modules: Partial<Record<ModuleKind, WebAssembly.Module>>;
  key: number;
}

/** One step of a chunk's decoding in wasm (see `StageSpec`), built from its spec. */
export interface Stage {
  spec: StageSpec;
  decoder: Decompressor & { encode?(raw: Uint8Array): Uint8Array };
  memory: WebAssembly.Memory;
  /** Its module, compiled, for workers. */
  module: WebAssembly.Module;
}

/** A step, built with its module's class (its row of the module table). */
export async function stage(spec: StageSpec): Promise<Stage> {
  const wasm = await loadModule(spec.kind);
  return { spec, decoder: stageOf(spec, stepClass(spec.kind, wasm)), memory: memoryOf(wasm), module: compiledOf(wasm) };
}

/** The compress (or archive) module's step for a list of bytes -> bytes codecs. */
function compressStage(codecs: CodecMeta[], itemSize: number, expected: number | null): Promise<Stage> {
  return stage({ kind: bytesModuleOf(codecs), codecs: JSON.stringify(codecs), itemSize, expected: expected ?? undefined });
}

let accessKeys = 0;

async function access<R extends TileReader>(
  arr: Readable,
  make: (text: string, chunkShape?: string) => R,
  kind: "core" | "packing",
  bindings: object,
  given?: string,
): Promise<ArrayAccess<R> | string> {
  const memory = memoryOf(bindings);
  let text = given;
  if (text === undefined) {
    const found = await metadataText(arr);
    if (found === undefined) return "no zarr.json or .zarray";
    text = found.text;
  }
  const reader = make(text);
  if (reader.fallback !== undefined) return reader.fallback;
  const layout = JSON.parse(reader.layoutJson) as Layout;
  if (kind === "core" && !typedArrayFor(layout.data_type)) return `no typed array for ${layout.data_type} here`;
  const chunkShape = layout.shard?.chunk_shape ?? layout.chunk_shape;
  const modules: ArrayAccess<R>["modules"] = { [kind]: compiledOf(bindings) };
  let compressors: BytesCodec[] = [];
  const stages: Stage[] = [];
  const serializer = layout.serializer;
  // The core decided from its codec table which codecs the compress module runs (with the
  // item size they receive); the others are zarrita's, built from the same representation.
  // A failure to load a module is the read's error, not a reason to go elsewhere.
  if (layout.codecs.length && layout.codecs_fallback === null) {
    stages.push(await compressStage(layout.codecs, layout.stored_item_size, layout.decoded_bytes));
  } else if (layout.codecs.length) {
    const codecs = await registryBytesCodecs(layout.codecs, layout.stored_data_type, layout.stored_chunk_shape);
    if (typeof codecs === "string") return codecs;
    compressors = codecs;
  }
  if (serializer) {
    // A configuration the module refuses is the read's error (INVALID_CONFIG), as zarr.get's would be.
    stages.push(await stage({
      kind: serializer.module,
      configuration: JSON.stringify(serializer.codec.configuration ?? {}),
      dataType: serializer.data_type,
      chunkShape: JSON.stringify(serializer.chunk_shape),
    }));
  }
  for (const s of stages) modules[s.spec.kind] = s.module;
  let index: ArrayAccess<R>["index"] = null;
  if (layout.shard) {
    const perShard = layout.chunk_shape.map((s, i) => s / chunkShape[i]);
    const levels: IndexLevel[] = [];
    let outer = layout.chunk_shape;
    for (const level of layout.shard.levels) {
      const per = outer.map((s, i) => s / level.chunk_shape[i]);
      outer = level.chunk_shape;
      const list = level.index_codecs;
      const form = { per, order: level.index_order, little: level.index_endian === "little", atEnd: level.index_at_end };
      if (level.index_fallback === null && level.index_bytes !== null) {
        // The index holds uint64 values.
        const u = list.length ? await compressStage(list, BigUint64Array.BYTES_PER_ELEMENT, level.index_decoded_bytes) : undefined;
        levels.push({ ...form, bytes: level.index_bytes, unpack: async (raw) => (u ? unpackAll([u], raw).slice() : raw) });
      } else {
        const codecs = await registryBytesCodecs(list, "uint64", [...per, 2]);
        if (typeof codecs === "string") return codecs;
        let bytes = level.index_decoded_bytes;
        for (const c of codecs) {
          if (!c.computeEncodedSize) return "a shard index codec of unknown size";
          bytes = c.computeEncodedSize(bytes);
        }
        levels.push({ ...form, bytes, unpack: (raw) => decodeBytes(codecs, raw) });
      }
    }
    index = { perShard, levels };
  }
  let readerAt: ArrayAccess<R>["readerAt"] = () => ({ reader });
  if (layout.edges) {
    // One reader a chunk shape (a rectilinear grid's chunks have several), each the first
    // time a chunk of its shape is read; shapes as the reader takes them (without lanes).
    const axes = layout.edges.map((runs) => rectilinearAxis(runs));
    const lanes = layout.lanes > 1;
    const readers = new Map<string, R>([[JSON.stringify(lanes ? chunkShape.slice(0, -1) : chunkShape), reader]]);
    readerAt = (coords) => {
      const shape = axes.map((axis, i) => axis.size(coords[i]));
      const given = JSON.stringify(lanes ? shape.slice(0, -1) : shape);
      let found = readers.get(given);
      if (!found) {
        found = make(text, given);
        readers.set(given, found);
      }
      return { reader: found, shape, chunkShape: given };
    };
  }
  return { reader, readerAt, layout, chunkShape, compressors, stages, index, memory, text, kind, modules, key: accessKeys++ };
}

/** Per-array access, built once (a failure is not kept). */
export function cached<R extends TileReader>(make: (arr: Readable) => Promise<ArrayAccess<R> | string>) {
  const cache = new WeakMap<object, Promise<ArrayAccess<R> | string>>();
  return (arr: Readable) => {
    let found = cache.get(arr);
    if (!found) {
      found = make(arr);
      found.catch(() => cache.delete(arr));
      cache.set(arr, found);
    }
    return found;
  };
}

export const coreAccess = cached(async (arr) => coreAccessOf(arr));

/** Access with the core's reader: to `arr`'s metadata, or to the metadata text `text` over its store. */
export async function coreAccessOf(arr: Readable, text?: string) {
  const wasm: Bindings = await loadWasm();
  return access(arr, (t, shape) => new wasm.ArrayReader(t, shape), "core", wasm, text);
}

export const decodedAccess = cached(async (arr) => {
  const wasm: PackingBindings = await loadModule("packing");
  return access(arr, (text, shape) => new wasm.DecodedReader(text, shape), "packing", wasm);
});
