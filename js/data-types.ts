// The data type registry's JavaScript face: every data type's description (the rows live in
// Rust, src/types.rs), and how an item of several lanes (a complex number's two parts, a
// string's code points) crosses between the read and write path, which works on lanes, and
// the caller, who gets and gives items.
import * as zarr from "zarrita";
import { codedError } from "./errors.js";
import { exactJson, exactParse } from "./json.js";
import { loadWasm } from "./load.js";
import { metadataText } from "./metadata.js";
import type { TypedArray } from "./place.js";

/** JSON values, with bigints for integers beyond 2^53 (read and written exactly). */
type Json = null | boolean | number | bigint | string | Json[] | { [key: string]: Json };

/** What the registry says of a data type (`dataType`, `dataTypeOf`). */
export interface DataTypeInfo {
  /** The zarr v3 name: "complex64", "numpy.datetime64", "fixed_length_utf32", ... */
  name: string;
  /** The zarr v3 `data_type`: the name, or `{name, configuration}`. */
  v3: string | { name: string; configuration: Record<string, Json> };
  /** The zarr v2 `dtype` string with its byte order (`<c8`, `>M8[s]`, `<U8`, `|b1`). */
  v2: string;
  /** Bytes an item; null for strings and bytes of any length. */
  item_size: number | null;
  /** "little" or "big" (a zarr v2 dtype's); null where there is no byte order. */
  byte_order: "little" | "big" | null;
  /** An item as the codecs see it: `lanes` values of the numeric type `lane` (complex64: two float32s). */
  lane: string | null;
  lanes: number | null;
  /**
   * What `get` returns: a typed array's name (complex: its parts interleaved, real first;
   * datetime64 and timedelta64: their int64 counts), or zarrita's BoolArray,
   * UnicodeStringArray, ByteStringArray.
   */
  result: string;
  /** The default fill value, in JSON (zarr-python's `default_scalar()`). */
  default_fill: Json;
  /** datetime64 and timedelta64: the unit ("ns", "s", "D", ...), scale factor, and which. */
  unit?: string;
  scale_factor?: number;
  timedelta?: boolean;
}

/** A data type with its fill value conversions. */
export interface DataType extends DataTypeInfo {
  /**
   * A JSON fill value as one item's little-endian bytes (INVALID_SCALAR if the type cannot
   * hold it). Integers beyond 2^53 must be bigints (a number that large may be rounded).
   */
  fillToBytes(fill: Json): Uint8Array;
  /** One item's little-endian bytes as the JSON fill value zarr-python writes (bigints beyond 2^53). */
  fillToJson(bytes: Uint8Array): Json;
}

/**
 * The registry's data type for `spec`: a zarr v3 `data_type` (a name or `{name,
 * configuration}`) with `zarrFormat` 3 (the default), or a zarr v2 `dtype` string with 2
 * (`objectCodec`: "vlen-utf8" or "vlen-bytes" for `|O`). An unknown type is UNKNOWN_DATA_TYPE,
 * a malformed configuration (`unit: "fortnight"`, `length_bytes: 3`) INVALID_METADATA.
 */
export async function dataType(spec: Json, zarrFormat: 2 | 3 = 3, objectCodec?: string): Promise<DataType> {
  const wasm = await loadWasm();
  const text = JSON.stringify(spec);
  const info = JSON.parse(wasm.dataTypeJson(text, zarrFormat, objectCodec)) as DataTypeInfo;
  return {
    ...info,
    fillToBytes: (fill) => wasm.fillValueBytes(text, zarrFormat, exactJson(fill)),
    fillToJson: (bytes) => exactParse(wasm.fillValueJson(text, zarrFormat, bytes)) as Json,
  };
}

/** A selection of items as a selection of lanes: the lanes' dimension taken whole. */
export function laneSelection<S>(selection: S[] | null, rank: number, lanes: number): (S | null)[] | null {
  if (lanes <= 1) return selection;
  return [...(selection ?? new Array<S | null>(rank).fill(null)), null];
}

/** Whether every entry of a selection is an integer (the read gives one item). */
function oneItem(selection: unknown[] | null, rank: number): boolean {
  return rank > 0 && selection !== null && selection.every((s) => typeof s === "number");
}

/**
 * A read of lanes as the caller's items: the shape without the lanes' dimension, the data as
 * the type's result (complex: the interleaved typed array as it is; strings and fixed bytes:
 * zarrita's classes over the same buffer; bool: zarrita's BoolArray), or one item where every
 * entry of the selection is an integer (complex: `[re, im]`; a string; a boolean; a bigint).
 */
export function itemsOf(
  info: DataTypeInfo,
  chunk: { data: TypedArray; shape: number[]; stride: number[] },
  selection: unknown[] | null,
  rank: number,
): unknown {
  const lanes = info.lanes ?? 1;
  const shape = lanes > 1 ? chunk.shape.slice(0, -1) : chunk.shape;
  const items = shape.reduce((a, b) => a * b, 1);
  const { buffer, byteOffset } = chunk.data;
  let data: unknown;
  switch (info.result) {
    case "BoolArray":
      data = new zarr.BoolArray(buffer as ArrayBuffer, byteOffset, items);
      break;
    case "UnicodeStringArray":
      data = new zarr.UnicodeStringArray(lanes, buffer as ArrayBuffer, byteOffset, items);
      break;
    case "ByteStringArray":
      data = new zarr.ByteStringArray(lanes, buffer as ArrayBuffer, byteOffset, items);
      break;
    default:
      data = chunk.data;
  }
  if (oneItem(selection, rank)) {
    if (info.result.endsWith("StringArray") || info.result === "BoolArray") return (data as { get(i: number): unknown }).get(0);
    // Complex: [re, im]; raw bytes: the item's Uint8Array; others: the one value.
    if (lanes > 1) return info.result === "Uint8Array" ? chunk.data : Array.from(chunk.data as ArrayLike<number>);
    return chunk.data[0];
  }
  const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  return { data, shape, stride };
}

/** The lane typed array under a value `set` is given for an array of this type. */
function lanesUnder(info: DataTypeInfo, data: unknown, Lane: { new (b: ArrayBufferLike, o: number, n: number): TypedArray; name: string }): TypedArray {
  const lanes = info.lanes ?? 1;
  const classes: Record<string, unknown> = {
    BoolArray: zarr.BoolArray,
    UnicodeStringArray: zarr.UnicodeStringArray,
    ByteStringArray: zarr.ByteStringArray,
  };
  const Class = classes[info.result];
  const name = (data as object | null)?.constructor?.name ?? typeof data;
  if (Class && data instanceof (Class as new (...a: never[]) => object)) {
    const d = data as unknown as { buffer: ArrayBufferLike; byteOffset: number; length: number; chars?: number };
    if (d.chars !== undefined && d.chars !== lanes) {
      throw codedError("WRONG_ARRAY_TYPE", `a ${info.v2} array is written from strings of ${lanes} characters, got ${d.chars}`);
    }
    return new Lane(d.buffer, d.byteOffset, d.length * lanes);
  }
  if ((data as object | null)?.constructor === Lane) return data as TypedArray;
  const want = Class ? `a ${info.result} or a ${Lane.name}` : `a ${Lane.name}`;
  throw codedError("WRONG_ARRAY_TYPE", `a ${info.name} array is written from ${want}${info.lanes && info.lanes > 1 ? ` (${info.lanes} values an item)` : ""}, got ${name}`);
}

/**
 * A value for `set` as lanes: the data as the lane typed array, the lanes' dimension added
 * to shape and stride. A single item (a scalar) becomes an item repeated over the selection.
 */
export function valueAsLanes(
  info: DataTypeInfo,
  value: unknown,
  itemShape: number[],
  Lane: { new (n: number): TypedArray; new (b: ArrayBufferLike, o: number, n: number): TypedArray; name: string },
): unknown {
  const lanes = info.lanes ?? 1;
  if (typeof value !== "object" || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    // One item for the whole selection.
    const item = itemBytes(info, value, Lane);
    const count = itemShape.reduce((a, b) => a * b, 1);
    const data = new Lane(count * lanes);
    for (let i = 0; i < count; i++) data.set(item as never, i * lanes);
    const shape = lanes > 1 ? [...itemShape, lanes] : itemShape;
    return { data, shape, stride: shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)) };
  }
  const { data, shape, stride } = value as { data: unknown; shape: number[]; stride: number[] };
  const under = lanesUnder(info, data, Lane);
  if (lanes <= 1) return { data: under, shape, stride };
  return {
    data: under,
    shape: Array.isArray(shape) ? [...shape, lanes] : shape,
    stride: Array.isArray(stride) ? [...stride.map((s) => s * lanes), 1] : stride,
  };
}

/** One item given as a scalar, as its lanes. */
function itemBytes(info: DataTypeInfo, value: unknown, Lane: { new (n: number): TypedArray; name: string }): TypedArray {
  const lanes = info.lanes ?? 1;
  const item = new Lane(lanes);
  const bad = (want: string) =>
    codedError("WRONG_ARRAY_TYPE", `a ${info.name} array takes ${want}, got ${Array.isArray(value) ? "an array" : typeof value}`);
  switch (info.result) {
    case "BoolArray":
      if (typeof value !== "boolean") throw bad("a boolean");
      item[0] = Number(value);
      return item;
    case "UnicodeStringArray": {
      if (typeof value !== "string") throw bad("a string");
      const points = [...value].map((c) => c.codePointAt(0)!);
      if (points.length > lanes) throw codedError("WRONG_ARRAY_TYPE", `"${value}" is longer than the type's ${lanes} characters`);
      (item as Uint32Array).set(points);
      return item;
    }
    case "ByteStringArray":
      // A string as zarrita's ByteStringArray takes one: its UTF-8 bytes.
      if (typeof value === "string") value = new TextEncoder().encode(value);
    // falls through
    case "Uint8Array":
      if (lanes === 1 && typeof value === "number") break;
      if (!(value instanceof Uint8Array) || value.length > lanes) throw bad(`a Uint8Array of up to ${lanes} bytes`);
      item.set(value as never);
      return item;
    case "BigInt64Array":
      if (typeof value !== "bigint") throw bad("a bigint");
      item[0] = value as never;
      return item;
    default:
      if (lanes > 1) {
        if (!Array.isArray(value) || value.length !== lanes || value.some((v) => typeof v !== "number")) {
          throw bad(`[real, imaginary] numbers`);
        }
        item.set(value as never);
        return item;
      }
  }
  if (typeof value !== "number") throw bad("a number");
  item[0] = value;
  return item;
}

/**
 * The registry's description of an opened array's data type (its zarr.json's, or a zarr v2
 * array's `.zarray` dtype as zarr v3 names it), with the fill value conversions.
 */
export async function dataTypeOf(arr: zarr.Array<zarr.DataType, zarr.Readable>): Promise<DataType> {
  const found = await metadataText(arr);
  if (!found) throw codedError("INVALID_METADATA", `${arr.path}: no zarr.json or .zarray`);
  const wasm = await loadWasm();
  const meta = JSON.parse(wasm.exactMetadataJson(found.text)) as { data_type?: Json };
  return dataType(meta.data_type ?? null, 3);
}
