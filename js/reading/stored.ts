// Stored values: an array's chunks read as they are stored, after the bytes -> bytes codecs and
// the serializer but before the value codecs (scale_offset, cast_value), which a viewer's
// shader then applies (js/gpu/gpu.ts). The read is `get`'s, of the array's "stored twin": the same
// chunks, described by metadata without those codecs, whose data type is what they receive
// and whose fill value is the array's, encoded by them (what a chunk of fill values stores).
import type * as zarr from "zarrita";
import { codedError, naming } from "../common/errors.js";
import { exactJson, exactParse } from "../common/json.js";
import { loadWasm } from "../loading/load.js";
import { metadataText } from "../metadata/metadata.js";
import { typedArrayFor } from "../kernels/place.js";
import { cached, type CodecMeta, coreAccessOf } from "./access.js";
import { checkReadOptions, type GetOptions, getNow, inReadTurn, readInto, result } from "./read.js";
import { checkSelection, type Selection } from "./select.js";

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/**
 * What `getStored` gives for a selection with a slice or null: the stored values in C order
 * (of the stored type; a Float16Array, where the engine has one, for float16), shape and stride.
 */
export interface StoredChunk {
  data: Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array | BigInt64Array | BigUint64Array;
  shape: number[];
  stride: number[];
}

/** `getStored`'s result: the chunk, or the one stored value when every entry of the selection is an integer. */
export type StoredResult<Sel extends (number | zarr.Slice | null)[]> = null extends Sel[number]
  ? StoredChunk
  : zarr.Slice extends Sel[number]
    ? StoredChunk
    : number | bigint;

/** The codecs a shader runs (elementwise, so layout codecs outside them commute with them). */
const VALUE_CODECS = new Set(["scale_offset", "cast_value"]);
/** Codecs that only move values: stored values may be taken past them. */
const LAYOUT_CODECS = new Set(["transpose", "reshape"]);

/** An array's stored twin: what `getStored` reads, and the value codecs it leaves out. */
export interface StoredTwin {
  /** The twin's zarr.json text. */
  text: string;
  /** The value codecs left out, outermost first, as the array's metadata has them. */
  codecs: CodecMeta[];
  /** The array's data type and fill value (JSON), which those codecs decode to. */
  dataType: string;
  fillJson: string;
  /** The data type they receive (the stored values') and the fill value they store, JSON. */
  storedDataType: string;
  storedFillJson: string;
}

type Json = Record<string, unknown>;

/**
 * The stored twin of a zarr.json text, or undefined when its chain has no value codec before
 * anything but layout codecs (and sharding's inner chain), where stored values are `get`'s.
 */
async function storedTwinOf(text: string): Promise<StoredTwin | undefined> {
  const meta = exactParse(text) as Json;
  if (meta.zarr_format !== 3 || typeof meta.data_type !== "string" || !Array.isArray(meta.codecs)) return undefined;
  const dataType = meta.data_type;
  const fillJson = exactJson(meta.fill_value);
  const wasm = await loadWasm();
  const taken: CodecMeta[] = [];
  let type = dataType;
  let fill = fillJson;
  // The leading value and layout codecs of a list, and of a sharding codec's inner list after them.
  const strip = (list: unknown[]): unknown[] => {
    const kept: unknown[] = [];
    let open = true;
    for (const c of list) {
      const name = (c as CodecMeta | null)?.name;
      if (open && typeof name === "string" && VALUE_CODECS.has(name)) {
        const codec = new wasm.ArrayToArrayCodec(exactJson([c]), 0, type, fill, 1);
        try {
          type = codec.encodedDataType;
          fill = exactJson(codec.encodedFillValue);
        } finally {
          codec.free();
        }
        taken.push(c as CodecMeta);
        continue;
      }
      if (open && name === "sharding_indexed") {
        const config = (c as { configuration?: Json }).configuration;
        if (config && Array.isArray(config.codecs)) {
          kept.push({ ...(c as Json), configuration: { ...config, codecs: strip(config.codecs) } });
          open = false;
          continue;
        }
      }
      if (!(typeof name === "string" && LAYOUT_CODECS.has(name))) open = false;
      kept.push(c);
    }
    return kept;
  };
  const codecs = strip(meta.codecs);
  if (!taken.length) return undefined;
  const twin = { ...meta, data_type: type, fill_value: exactParse(fill), codecs };
  return { text: exactJson(twin), codecs: taken, dataType, fillJson, storedDataType: type, storedFillJson: fill };
}

const twins = new WeakMap<object, Promise<StoredTwin | undefined>>();

/** The stored twin of an array (see `storedTwinOf`), found once per array object. */
export function storedTwin(arr: Readable): Promise<StoredTwin | undefined> {
  let found = twins.get(arr);
  if (!found) {
    found = metadataText(arr).then((m) => (m ? storedTwinOf(m.text) : undefined));
    found.catch(() => twins.delete(arr));
    twins.set(arr, found);
  }
  return found;
}

const storedAccess = cached(async (arr) => {
  const twin = await storedTwin(arr);
  return twin ? coreAccessOf(arr, twin.text) : "no value codec";
});

/**
 * `selection` of `arr` as its chunks store it: the values after the bytes -> bytes codecs and
 * the serializer, before the value codecs `scale_offset` and `cast_value` (a Uint8Array for a
 * cast_value to uint8), which a shader then applies (see `gpuDecoder`). Where the array has
 * neither, it is `get`. Missing chunks read as the fill value those codecs store for the
 * array's. The same selection rules, options (`pool`, `out`: of the stored type, `signal`,
 * ...) and errors as `get`.
 */
export function getStored<
  D extends zarr.DataType,
  Store extends zarr.Readable,
  Sel extends (number | zarr.Slice | null)[] = (number | zarr.Slice | null)[],
>(arr: zarr.Array<D, Store>, selection?: Sel | null, options?: GetOptions): Promise<StoredResult<Sel>>;
export function getStored(arr: Readable, selection: Selection = null, options: GetOptions = {}) {
  return naming(arr.path, () => inReadTurn(arr, options, async () => {
    checkSelection(selection, arr.shape.length);
    checkReadOptions(options, arr);
    const twin = await storedTwin(arr);
    // (In this read's turn: get's own would wait for writes called after this read.)
    if (!twin) return getNow(arr, selection, options);
    const a = await storedAccess(arr);
    if (typeof a === "string") {
      throw codedError("UNSUPPORTED", `stored values of this array are not read here (${a}); use get`);
    }
    const Out = typedArrayFor(a.layout.data_type);
    if (!Out) throw codedError("UNSUPPORTED_DATA_TYPE", `no typed array for ${a.layout.data_type} here`);
    return result(await readInto(arr, a, selection, options, Out, Uint8Array.from(a.layout.fill_bytes)));
  }), options.signal);
}
