// A TypeScript app, checked with strict settings against the installed package's types.
import * as zarr from "zarrita";
import {
  type CodecError,
  type ErrorCode,
  ERROR_CODES,
  errorCode,
  get,
  type GetOptions,
  isCodecError,
  registerCodecs,
  set,
  WorkerPool,
} from "zarr-wasm-codecs";

registerCodecs();
export async function read(arr: zarr.Array<"float64", zarr.Readable>, pool?: WorkerPool): Promise<Float64Array> {
  const options: GetOptions = { pool: pool ?? false };
  const chunk = await get(arr, null, options);
  if (typeof chunk !== "object") throw new Error("a whole array reads as a chunk");
  return chunk.data as Float64Array;
}
export async function write(arr: zarr.Array<"float64", zarr.Mutable>, data: Float64Array): Promise<ErrorCode | undefined> {
  try {
    await set(arr, null, { data, shape: [data.length], stride: [1] });
    return undefined;
  } catch (e) {
    if (isCodecError(e)) {
      const known: CodecError = e;
      return known.code;
    }
    return errorCode(e);
  }
}
export const codes: readonly ErrorCode[] = ERROR_CODES;
