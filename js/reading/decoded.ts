// Decoded reads: an array's values as a Float64Array with missing values as NaN and CF packing
// (scale_factor, add_offset) applied, as the array's attributes ask. Opt-in: zarr.get's own
// results are left as they are. The rules live in Rust (src/missing.rs).
import * as zarr from "zarrita";
import { naming } from "../common/errors.js";
import { readByZarrita } from "../metadata/open.js";
import { checkSelection, type Selection } from "./select.js";
import { loadModule } from "../loading/load.js";
import { checkReadOptions, type GetOptions, getDecodedDirect, inReadTurn, intoOut } from "./read.js";
import { typedArrayFor } from "../kernels/place.js";

/** What `getDecoded` returns: the selection's values as float64 in C order, NaN where a value is missing. */
export interface DecodedChunk {
  data: Float64Array;
  shape: number[];
  stride: number[];
}

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/** A JSON text of attributes; bigints (64-bit values) as decimal strings. */
function attributesJson(attrs: unknown): string {
  return JSON.stringify(attrs ?? {}, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

/**
 * An array's values decoded as its attributes ask, into a Float64Array: values equal to the
 * `missing_value` attribute (the zarr missing_value convention, or CF's, which may be a list)
 * or to xarray's `_FillValue` become NaN, and CF `scale_factor` / `add_offset` are applied,
 * with xarray's rules. Runs on the package's read path (`get`): each tile is masked and
 * scaled in wasm as it is decoded, before it is placed in the output. Arrays that path does
 * not run are read with `zarr.get` and then decoded.
 */
export async function getDecoded(
  arr: Readable,
  selection: Selection = null,
  options: GetOptions = {},
): Promise<DecodedChunk> {
  return naming(arr.path, () => inReadTurn(arr, options, () => decodedRead(arr, selection, options)), options.signal);
}

async function decodedRead(arr: Readable, selection: Selection, options: GetOptions): Promise<DecodedChunk> {
  checkSelection(selection, arr.shape.length);
  checkReadOptions(options, arr);
  const direct = await getDecodedDirect(arr, selection, options);
  if (direct) return direct;
  return intoOut(arr, selection, options, Float64Array, () => decodeFallback(arr, selection, options));
}

/** getDecoded of an array `get`'s path does not run: zarr.get, then masked and scaled. */
async function decodeFallback(arr: Readable, selection: Selection, options: GetOptions): Promise<DecodedChunk> {
  const [raw, wasm] = await Promise.all([readByZarrita(arr, (twin) => zarr.get(twin, selection, options as never)), loadModule("packing")]);
  let chunk: { data: ArrayBufferView; shape: number[]; stride: number[] };
  if (typeof raw === "object" && raw !== null && "data" in raw) {
    chunk = raw as typeof chunk;
  } else {
    // A selection of single indices reads one value: decode it as a 0-d chunk.
    const Ctor = typedArrayFor(arr.dtype);
    if (!Ctor) throw new TypeError(`no typed array for ${arr.dtype} here`);
    const one = new Ctor(1);
    one[0] = raw as never;
    chunk = { data: one, shape: [], stride: [] };
  }
  const data = wasm.maskAndScale(attributesJson(arr.attrs), arr.dtype, chunk.data);
  return { data, shape: chunk.shape, stride: chunk.stride };
}
