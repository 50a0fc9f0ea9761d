// Packing plans (target type, scale, offset, sentinels) and writing float data packed with one
// call. The rules live in Rust (src/plan/); this file passes data and options across.
import * as zarr from "zarrita";
import { loadModule } from "../loading/load.js";
import { codedError, naming } from "../common/errors.js";
import { open } from "../metadata/open.js";
import { cOrderStrides } from "../common/strides.js";
import type { WorkerPool } from "../pool/pool.js";
import { commit, set, stagingStore } from "./write.js";
import { writeInTurn } from "../stores/turns.js";

/** How `planPacking` and `writePacked` pack float data into integers. */
export interface PlanOptions {
  /** The integer type to store ("uint8", "int16", ...); omit it to choose by `max_abs_error`. */
  target?: string;
  /** "sds" (default): centred, 3/4 of the codes; "full": all of them. */
  span?: "sds" | "full";
  /** The largest absolute error allowed; without `target`, the narrowest type that meets it. */
  max_abs_error?: number;
  /** cast_value's rounding mode (default "nearest-even"). */
  rounding?: "nearest-even" | "nearest-away" | "towards-zero" | "towards-positive" | "towards-negative";
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * What `planPacking` chose: the integer type, scale and offset, the codes kept for missing and
 * infinite values, the error bound, and the metadata (data type, fill value, codecs,
 * attributes) that writes data packed this way.
 */
export interface PackingPlan {
  /** The array's data type, fill value, codecs (ending with a little-endian `bytes`) and
   * attributes (`missing_value`), ready for the array's metadata. */
  data_type: string;
  fill_value: Json;
  codecs: { name: string; configuration?: Json }[];
  attributes: Record<string, Json>;
  target: string;
  scale: number;
  offset: number;
  /** The codes that stand for missing values, +Infinity and -Infinity (float data); 64-bit
   * codes beyond 2^53 are decimal strings. */
  sentinels: { missing: number | string; Infinity: number | string; "-Infinity": number | string } | null;
  /** The largest absolute error of a value within `range` after writing and reading back. */
  max_abs_error: number;
  /** The finite data range the plan was made for. */
  range: [number, number] | null;
}

type Data = Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array | BigInt64Array | BigUint64Array;

const DATA_TYPES: [new (...args: never[]) => Data, string][] = [
  [Float64Array, "float64"],
  [Float32Array, "float32"],
  [Int8Array, "int8"],
  [Int16Array, "int16"],
  [Int32Array, "int32"],
  [BigInt64Array, "int64"],
  [Uint8Array, "uint8"],
  [Uint16Array, "uint16"],
  [Uint32Array, "uint32"],
  [BigUint64Array, "uint64"],
];

function dataTypeOf(data: Data): string {
  const found = DATA_TYPES.find(([ctor]) => data instanceof ctor);
  if (!found) throw new TypeError("planPacking takes a typed array of numbers or {min, max}");
  return found[1];
}

/** A range given instead of the data. Bounds of 64-bit integer data may be bigints. */
export interface DataRange {
  min: number | bigint | null;
  max: number | bigint | null;
  /** The data's type (default "float64"). */
  data_type?: string;
}

function rangeJson(range: DataRange): string {
  return JSON.stringify(range, (_key, value: unknown) => {
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "number" && !Number.isFinite(value)) return String(value);
    return value;
  });
}

/**
 * The codecs that pack `data` (or data in `{min, max}`) into an integer type, by the SDS rules:
 * NaN, +Infinity and -Infinity go to sentinels; the finite values are centred in the target's
 * range covering 3/4 of it (or all of it, `span: "full"`); with `max_abs_error` and no
 * `target`, the narrowest type that meets the error is chosen.
 */
export async function planPacking(data: Data | DataRange, options: PlanOptions = {}): Promise<PackingPlan> {
  if (!ArrayBuffer.isView(data) && (typeof data !== "object" || data === null || Array.isArray(data))) {
    throw codedError("INVALID_ARGUMENT", "planPacking takes a typed array of numbers or {min, max}");
  }
  const wasm = await loadModule("packing");
  const text = ArrayBuffer.isView(data)
    ? wasm.planPackingForData(data, dataTypeOf(data), JSON.stringify(options))
    : wasm.planPackingForRange(rangeJson(data), JSON.stringify(options));
  return JSON.parse(text) as PackingPlan;
}

/** `writePacked`'s options: the plan's (`PlanOptions`) and the array's. */
export interface WritePackedOptions extends PlanOptions {
  /** The array's shape; `data` holds its values in C order. */
  shape: number[];
  /** Default: one chunk of the whole array. */
  chunkShape?: number[];
  /** bytes -> bytes codecs after packing, e.g. `[{ name: "gzip", configuration: { level: 5 } }]`. */
  compressors?: { name: string; configuration?: Json }[];
  /** Attributes of the array, merged with the plan's (`missing_value`). */
  attributes?: Record<string, Json>;
  /** zarr v3 `dimension_names`. */
  dimensionNames?: string[];
  /** Called as each chunk is encoded (`done` of `total` chunks), as `set`'s. */
  onProgress?: (done: number, total: number) => void;
  /** Cancels the write before anything reaches the store, as `set`'s. */
  signal?: AbortSignal;
  /** Encode the chunks in a pool of workers, as `set`'s. */
  pool?: WorkerPool | boolean;
}

/**
 * Creates a zarr v3 array at `location` holding `data` (C order, `shape`) packed as planned,
 * and writes it. Nothing reaches the store until every chunk has encoded; zarr.json is
 * written last. Returns the array (opened exactly, see `open`) and the plan.
 */
export async function writePacked<Store extends zarr.Mutable>(
  location: zarr.Location<Store>,
  data: Float32Array | Float64Array,
  options: WritePackedOptions,
) {
  // In turn with the array's other reads and writes (js/stores/turns.ts), from the call on.
  return naming(location.path, () => writeInTurn(location.store, location.path, () => writePackedAt(location, data, options)), options.signal);
}

async function writePackedAt<Store extends zarr.Mutable>(
  location: zarr.Location<Store>,
  data: Float32Array | Float64Array,
  options: WritePackedOptions,
) {
  const { shape, chunkShape, compressors = [], attributes = {}, dimensionNames, onProgress, signal, pool, ...planOptions } = options;
  if (!(data instanceof Float32Array || data instanceof Float64Array)) {
    const name = (data as object | null)?.constructor?.name ?? typeof data;
    throw codedError("WRONG_ARRAY_TYPE", `writePacked packs a Float32Array or a Float64Array, got ${name}`);
  }
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== data.length) {
    throw codedError("CHUNK_LENGTH", `shape [${shape}] holds ${size} values but data has ${data.length}`);
  }
  const plan = await planPacking(data, planOptions);
  // The array is created and written in a staging store first.
  const { store: staging, staged } = stagingStore();
  const twin = await zarr.create(new zarr.Location(staging, location.path), {
    shape,
    chunkShape: chunkShape ?? shape,
    dtype: plan.data_type as "float32" | "float64",
    codecs: [...plan.codecs, ...compressors] as unknown as zarr.CodecMetadata[],
    fillValue: plan.fill_value as number,
    attributes: { ...plan.attributes, ...attributes },
    dimensionNames,
  });
  await set(twin, null, { data, shape, stride: cOrderStrides(shape) }, { onProgress, signal, pool });
  const metadata = location.resolve("zarr.json").path;
  const chunks = new Map([...staged].filter(([key]) => key !== metadata));
  await commit(location, chunks, signal, true);
  await commit(location, new Map([[metadata, staged.get(metadata)!]]), undefined, true);
  const array = (await open(location as never)) as unknown as zarr.Array<zarr.DataType, Store>;
  return { array, plan };
}
