// An array's metadata as text: its zarr.json, or a zarr v2 array's .zarray and .zattrs joined
// into one text, read once per array object, so that the wasm reads 64-bit integers in it
// exactly (JSON.parse would round them).
import type * as zarr from "zarrita";
import { fromStore } from "./errors.js";
import type { AnyStore } from "./fetch.js";

/**
 * The exact metadata text of a zarrita array: its zarr.json, or for a zarr v2 array its
 * .zarray and .zattrs as `{"zarr_format": 2, "zarray": ..., "zattrs": ...}` (joined as text,
 * so that the wasm reads their integers exactly); undefined when there is neither.
 */
const texts = new WeakMap<object, Promise<string | undefined>>();

export function metadataText(arr: zarr.Location<zarr.Readable>): Promise<string | undefined> {
  const known = texts.get(arr);
  if (known) return known;
  const text = readMetadataText(arr);
  text.catch(() => texts.delete(arr));
  texts.set(arr, text);
  return text;
}

async function readMetadataText(arr: zarr.Location<zarr.Readable>): Promise<string | undefined> {
  const store = arr.store as AnyStore;
  const read = async (name: string) => {
    const key = arr.resolve(name).path;
    const bytes = await fromStore(key, () => store.get(key));
    return bytes && new TextDecoder().decode(bytes);
  };
  const v3 = await read("zarr.json");
  if (v3 !== undefined) return v3;
  const zarray = await read(".zarray");
  if (zarray === undefined) return undefined;
  const zattrs = (await read(".zattrs")) ?? "{}";
  return `${V2_PREFIX}${zarray}, "zattrs": ${zattrs}}`;
}

/** How the metadata text of a zarr v2 array begins (see `metadataText`). */
const V2_PREFIX = '{"zarr_format": 2, "zarray": ';

/** Whether a metadata text is a zarr v2 array's (see `metadataText`). */
export function isV2Text(text: string | undefined): boolean {
  return text?.startsWith(V2_PREFIX) ?? false;
}

/** Remembers the metadata text an array was opened from (see open()). */
export function rememberText(arr: object, text: string): void {
  texts.set(arr, Promise.resolve(text));
}
