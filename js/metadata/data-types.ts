// The data type registry's JavaScript face: every data type's description (the rows live in
// Rust, src/types/mod.rs), and how an item of several lanes (a complex number's two parts, a
// string's code points) crosses between the read and write path, which works on lanes, and
// the caller, who gets and gives items.
import * as zarr from "zarrita";
import { codedError } from "../common/errors.js";
import { exactJson, exactParse } from "../common/json.js";
import { loadWasm } from "../loading/load.js";
import type { TypedArray } from "../kernels/place.js";

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
  /**
   * bfloat16, float8/6/4, int2/int4/uint2/uint4: the bits of a value, and whether it is
   * signed. `get` returns the stored bits (bfloat16: a Uint16Array; the others a Uint8Array,
   * int2 and int4 an Int8Array of the sign-extended values), `getDecoded` the values.
   */
  bits?: number;
  signed?: boolean;
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
  const own = zarrFormat === 3 ? registeredFor(spec) : undefined;
  if (own) {
    const text = JSON.stringify(handedOver(own));
    const info = JSON.parse(wasm.dataTypeJson(text, 3)) as DataTypeInfo;
    return {
      ...info,
      v3: spec as DataTypeInfo["v3"],
      default_fill: own.defaultFill ?? info.default_fill,
      fillToBytes: (fill) => itemBytesOf(own, fill, spec),
      fillToJson: (bytes) => own.fillToJson(bytes, configurationOf(spec)),
    };
  }
  const info = JSON.parse(wasm.dataTypeJson(JSON.stringify(spec), zarrFormat, objectCodec)) as DataTypeInfo;
  // Fill values by the v3 form, but for v2's own rule (no hex floats), which the format keeps;
  // (a v2 `|O` is known only with its object codec, which the v3 name carries).
  const text = JSON.stringify(info.v3);
  return {
    ...info,
    fillToBytes: (fill) => wasm.fillValueBytes(text, zarrFormat === 2 ? 2 : 3, exactJson(fill)),
    fillToJson: (bytes) => exactParse(wasm.fillValueJson(text, bytes)) as Json,
  };
}

/** The numeric types an item's lanes may have. */
export type LaneType = "int8" | "int16" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64" | "float16" | "float32" | "float64";

/** The typed array that holds lanes of each type (float16: their bits). */
export interface LaneArrays {
  int8: Int8Array;
  int16: Int16Array;
  int32: Int32Array;
  int64: BigInt64Array;
  uint8: Uint8Array;
  uint16: Uint16Array;
  uint32: Uint32Array;
  uint64: BigUint64Array;
  float16: Uint16Array;
  float32: Float32Array;
  float64: Float64Array;
}

/**
 * An application's own data type (`registerDataType`): how its zarr v3 `data_type` is named,
 * how the codecs see an item (`lanes` values of a numeric `lane` type, each byte-swapped on
 * its own by a big-endian `bytes` codec), its JSON fill values, and what `get` returns and
 * `set` takes for it.
 */
export interface DataTypeDefinition<L extends LaneType = LaneType> {
  /** The zarr v3 `data_type` name (a name alone, or `{name, configuration}`). */
  name: string;
  /** The numeric type of an item's lanes (default "uint8"). */
  lane?: L;
  /** Lanes an item (1 to 65536): an item is `lanes` times the lane type's size in bytes. */
  lanes: number;
  /** The default fill value, in JSON. */
  defaultFill?: Json;
  /**
   * A JSON fill value (and the data type's configuration, if any) as one item's bytes: its
   * lanes, little-endian. Throw for a value the type cannot hold (it is refused at open as
   * INVALID_SCALAR, naming the array).
   */
  fillToBytes(fill: Json, configuration?: Json): Uint8Array;
  /** One item's bytes (its lanes, little-endian) as its JSON fill value. */
  fillToJson(bytes: Uint8Array, configuration?: Json): Json;
  /**
   * What `get` returns for `count` items from their lanes (a typed array of the lane type,
   * `count * lanes` long, C order); by default the lanes themselves. A selection of single
   * indices returns element 0 of it.
   */
  toItems?(lanes: LaneArrays[L], count: number): ArrayLike<unknown>;
  /**
   * What `set` writes for `count` items given as `items` (a `set` value's data, or `[value]`
   * for one value): their lanes, a typed array of the lane type `count * lanes` long. By
   * default `set` takes the lanes typed array itself. Throw for an item the type cannot hold.
   */
  fromItems?(items: ArrayLike<unknown>, count: number): LaneArrays[L];
}

const LANE_TYPES: readonly string[] = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64"];

/** The registered data types, by their zarr v3 name. */
const registry = new Map<string, Required<Pick<DataTypeDefinition, "lane">> & DataTypeDefinition>();

/**
 * Registers an application's own data type, so that `open`, `get`, `set`, `getDecoded`'s
 * refusal, the pool and sharding read and write zarr v3 arrays of it (see
 * `DataTypeDefinition`). Register before opening such an array. A name the package already
 * has, or a malformed definition, is INVALID_ARGUMENT.
 */
export async function registerDataType<L extends LaneType = "uint8">(definition: DataTypeDefinition<L>): Promise<void> {
  const d = definition as Partial<DataTypeDefinition> | null;
  const bad = (why: string) => codedError("INVALID_ARGUMENT", `registerDataType: ${why}`);
  if (typeof d !== "object" || d === null) throw bad("takes a definition object");
  if (typeof d.name !== "string" || d.name === "") throw bad("name must be a non-empty string");
  const lane = d.lane ?? "uint8";
  if (!LANE_TYPES.includes(lane)) throw bad(`lane must be one of ${LANE_TYPES.join(", ")}, got ${String(lane)}`);
  if (!Number.isInteger(d.lanes) || d.lanes! < 1 || d.lanes! > 65536) throw bad(`lanes must be an integer from 1 to 65536, got ${String(d.lanes)}`);
  for (const f of ["fillToBytes", "fillToJson"] as const) if (typeof d[f] !== "function") throw bad(`${f} must be a function`);
  for (const f of ["toItems", "fromItems"] as const) if (d[f] !== undefined && typeof d[f] !== "function") throw bad(`${f} must be a function`);
  const wasm = await loadWasm();
  let builtIn = true;
  try {
    wasm.dataTypeJson(JSON.stringify(d.name), 3);
  } catch (e) {
    builtIn = (e as { code?: string }).code !== "UNKNOWN_DATA_TYPE";
  }
  if (builtIn) throw bad(`${d.name} is a data type the package has (or may not be named so)`);
  registry.set(d.name, { ...(d as unknown as DataTypeDefinition), lane: lane as LaneType });
}

/** The registration a zarr v3 `data_type` names, if any. */
export function registeredFor(dataTypeJson: unknown): (DataTypeDefinition & { lane: LaneType }) | undefined {
  const name = typeof dataTypeJson === "string" ? dataTypeJson : (dataTypeJson as { name?: unknown } | null)?.name;
  return typeof name === "string" ? registry.get(name) : undefined;
}

function configurationOf(dataTypeJson: unknown): Json | undefined {
  return typeof dataTypeJson === "object" && dataTypeJson !== null ? (dataTypeJson as { configuration?: Json }).configuration : undefined;
}

/** How the wasm is handed a registered type (src/types/mod.rs, `Family::Registered`). */
function handedOver(d: DataTypeDefinition & { lane: LaneType }): Json {
  return { name: "zarr-wasm-codecs.registered", configuration: { name: d.name, lane: d.lane, lanes: d.lanes } };
}

const LANE_BYTES: Record<string, number> = { int8: 1, uint8: 1, int16: 2, uint16: 2, float16: 2, int32: 4, uint32: 4, float32: 4, int64: 8, uint64: 8, float64: 8 };

/** A registered type's fill value as one item's bytes, checked. */
function itemBytesOf(d: DataTypeDefinition & { lane: LaneType }, fill: Json, dataTypeJson: unknown): Uint8Array {
  let bytes: unknown;
  try {
    bytes = d.fillToBytes(fill, configurationOf(dataTypeJson));
  } catch (e) {
    throw codedError("INVALID_SCALAR", `${exactJson(fill)} is not a valid ${d.name} value: ${(e as Error)?.message ?? e}`);
  }
  const size = LANE_BYTES[d.lane] * d.lanes;
  if (!(bytes instanceof Uint8Array) || bytes.length !== size) {
    throw codedError("INVALID_SCALAR", `${d.name}'s fillToBytes must give a Uint8Array of ${size} bytes`);
  }
  return bytes;
}

/**
 * A zarr v3 metadata text whose data type is registered, as the wasm reads it: the data type
 * handed over as lanes (`handedOver`), the fill value as base64 of its item's bytes. Other
 * texts are returned as they are.
 */
export function handOverRegistered(text: string): string {
  if (registry.size === 0) return text;
  let meta: Record<string, unknown>;
  try {
    meta = exactParse(text) as Record<string, unknown>;
  } catch {
    return text; // Not JSON: the wasm says what is wrong.
  }
  const d = meta && typeof meta === "object" ? registeredFor(meta.data_type) : undefined;
  if (!d) return text;
  const fill = meta.fill_value === undefined || meta.fill_value === null ? (d.defaultFill ?? null) : (meta.fill_value as Json);
  const bytes = fill === null ? new Uint8Array(LANE_BYTES[d.lane] * d.lanes) : itemBytesOf(d, fill, meta.data_type);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return exactJson({ ...meta, data_type: handedOver(d), fill_value: btoa(binary) });
}

/**
 * Whether a type's items are not its lanes' numbers as they are (bool, complex, datetime64,
 * strings, bytes, narrow and registered types): `get` and `set` then go through the lanes.
 */
export function itemised(info: DataTypeInfo): boolean {
  return info.lane !== info.name;
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
  const own = registry.get(info.name);
  const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  if (own) {
    const data = own.toItems ? own.toItems(chunk.data as never, items) : chunk.data;
    return oneItem(selection, rank) ? data[0] : { data, shape, stride };
  }
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
  const own = registry.get(info.name);
  if (own?.fromItems) value = registeredLanes(own, value, Lane);
  if (typeof value !== "object" || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) {
    // One item for the whole selection.
    const item = own ? (value as TypedArray) : itemBytes(info, value, Lane);
    checkNarrow(info, item);
    if (own && (item?.constructor !== Lane || item.length !== lanes)) {
      throw codedError("WRONG_ARRAY_TYPE", `a ${info.name} array takes one item as a ${Lane.name} of ${lanes} lanes`);
    }
    const count = itemShape.reduce((a, b) => a * b, 1);
    const data = new Lane(count * lanes);
    for (let i = 0; i < count; i++) data.set(item as never, i * lanes);
    const shape = lanes > 1 ? [...itemShape, lanes] : itemShape;
    return { data, shape, stride: shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)) };
  }
  const { data, shape, stride } = value as { data: unknown; shape: number[]; stride: number[] };
  const under = lanesUnder(info, data, Lane);
  checkNarrow(info, under);
  if (lanes <= 1) return { data: under, shape, stride };
  return {
    data: under,
    shape: Array.isArray(shape) ? [...shape, lanes] : shape,
    stride: Array.isArray(stride) ? [...stride.map((s) => s * lanes), 1] : stride,
  };
}

/**
 * Refuses (WRONG_ARRAY_TYPE) a narrow type's values outside its bits: an int4 of 8, a
 * float4_e2m1fn's byte above 0x0f. (The stored bits of bfloat16 and float8 are all values.)
 */
function checkNarrow(info: DataTypeInfo, lanes: TypedArray): void {
  if (info.bits === undefined || info.bits >= 8 * lanes.BYTES_PER_ELEMENT) return;
  const isFloat = info.name.startsWith("float");
  const [lo, hi] = info.signed && !isFloat ? [-(2 ** (info.bits - 1)), 2 ** (info.bits - 1) - 1] : [0, 2 ** info.bits - 1];
  for (let i = 0; i < lanes.length; i++) {
    const v = Number(lanes[i]);
    if (v < lo || v > hi) {
      throw codedError("WRONG_ARRAY_TYPE", `a ${info.name} array holds ${isFloat ? "bit patterns" : "values"} from ${lo} to ${hi}, got ${v} at ${i}`);
    }
  }
}

/** A registered type's value for `set` as lanes, through its `fromItems`. */
function registeredLanes(d: DataTypeDefinition, value: unknown, Lane: { name: string }): unknown {
  const convert = (items: unknown, count: number): TypedArray => {
    let lanes: TypedArray;
    try {
      lanes = d.fromItems!(items as ArrayLike<unknown>, count) as TypedArray;
    } catch (e) {
      throw codedError("WRONG_ARRAY_TYPE", `a ${d.name} array cannot take these items: ${(e as Error)?.message ?? e}`);
    }
    if (lanes?.constructor?.name !== Lane.name || lanes.length !== count * d.lanes) {
      throw codedError("WRONG_ARRAY_TYPE", `${d.name}'s fromItems must give a ${Lane.name} of ${count * d.lanes} lanes`);
    }
    return lanes;
  };
  if (typeof value === "object" && value !== null && "data" in value && "shape" in value) {
    const v = value as { data: unknown; shape: number[]; stride: number[] };
    const count = Array.isArray(v.shape) ? v.shape.reduce((a, b) => a * b, 1) : 0;
    return { ...v, data: convert(v.data, count) };
  }
  return convert([value], 1);
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

