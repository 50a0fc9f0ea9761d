// An array's metadata as text: its zarr.json, or a zarr v2 array's .zarray and .zattrs joined
// into one text, read once per array object, so that the wasm reads 64-bit integers in it
// exactly (JSON.parse would round them).
import type * as zarr from "zarrita";
import { handOverRegistered } from "./data-types.js";
import { fromStore } from "./errors.js";
import type { AnyStore } from "./fetch.js";

/**
 * An array's metadata text and the zarr format it was read as: a zarr.json (3), or a zarr v2
 * array's .zarray and .zattrs as `{"zarr_format": 2, "zarray": ..., "zattrs": ...}` (joined
 * as text, so that the wasm reads their integers exactly).
 */
export interface MetadataText {
  text: string;
  zarrFormat: 2 | 3;
}

const OWN = Symbol.for("zarr-wasm-codecs.own-read");

/**
 * The request options of the package's own reads of metadata files: the package's store
 * extension (js/extension.ts) checks the metadata zarr.open reads, and lets these through.
 */
export const OWN_READ = { [OWN]: true };

/** Whether a store request's options are those of the package's own metadata reads. */
export const ownRead = (options: unknown): boolean => (options as Record<symbol, unknown> | null | undefined)?.[OWN] === true;

/** The exact metadata text of a zarrita array; undefined when it has neither file. */
const texts = new WeakMap<object, Promise<MetadataText | undefined>>();

export function metadataText(arr: zarr.Location<zarr.Readable>): Promise<MetadataText | undefined> {
  const known = texts.get(arr);
  if (known) return known;
  const text = readMetadataText(arr);
  text.catch(() => texts.delete(arr));
  texts.set(arr, text);
  return text;
}

async function readMetadataText(arr: zarr.Location<zarr.Readable>): Promise<MetadataText | undefined> {
  const store = arr.store as AnyStore;
  const read = async (name: string) => {
    const key = arr.resolve(name).path;
    const bytes = await fromStore(key, () => store.get(key, OWN_READ));
    return bytes && new TextDecoder().decode(bytes);
  };
  const v3 = await read("zarr.json");
  // (An application's registered data type is handed to the wasm as lanes of a numeric type.)
  if (v3 !== undefined) return { text: handOverRegistered(v3), zarrFormat: 3 };
  const zarray = await read(".zarray");
  if (zarray === undefined) return undefined;
  const zattrs = (await read(".zattrs")) ?? "{}";
  return { text: `{"zarr_format": 2, "zarray": ${zarray}, "zattrs": ${zattrs}}`, zarrFormat: 2 };
}

/** Remembers the metadata text an array was opened from (see open()). */
export function rememberText(arr: object, meta: MetadataText): void {
  texts.set(arr, Promise.resolve(meta));
}
