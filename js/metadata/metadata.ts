// An array's metadata as text: its zarr.json, or a zarr v2 array's .zarray and .zattrs joined
// into one text, read once per array object, so that the wasm reads 64-bit integers in it
// exactly (JSON.parse would round them).
import type * as zarr from "zarrita";
import { handOverRegistered } from "./data-types.js";
import { fromStore } from "../common/errors.js";
import type { AnyStore } from "../stores/store.js";
import { baseStore } from "../stores/identity.js";
import { exactJson, exactParse } from "../common/json.js";

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
 * extension (js/zarrita/extension.ts) checks the metadata zarr.open reads, and lets these through.
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
  let v3 = await read("zarr.json");
  if (v3 !== undefined && mayBeRounded(store, v3)) v3 = (await consolidatedText(arr, 3)) ?? v3;
  // (An application's registered data type is handed to the wasm as lanes of a numeric type.)
  if (v3 !== undefined) return { text: handOverRegistered(v3), zarrFormat: 3 };
  let zarray = await read(".zarray");
  if (zarray === undefined) return undefined;
  let zattrs = (await read(".zattrs")) ?? "{}";
  if (mayBeRounded(store, zarray + zattrs)) {
    zarray = (await consolidatedText(arr, 2, ".zarray")) ?? zarray;
    zattrs = (await consolidatedText(arr, 2, ".zattrs")) ?? zattrs;
  }
  return { text: `{"zarr_format": 2, "zarray": ${zarray}, "zattrs": ${zattrs}}`, zarrFormat: 2 };
}

/**
 * Whether metadata text a store gave may have had integers rounded: zarrita's consolidated
 * metadata (a store with `contents`) answers a node's metadata with what JSON.parse made of
 * it, written again, where an integer beyond 2^53 (16 digits or more) has lost its last digits.
 */
function mayBeRounded(store: object, text: string): boolean {
  return typeof (store as { contents?: unknown }).contents === "function" && /\d{16,}/.test(text);
}

/**
 * The array's metadata as the consolidated metadata holds it, read as text from the store under
 * every zarrita extension (js/stores/identity.ts): the entry of the root zarr.json's
 * `consolidated_metadata` (zarr v3), or of `.zmetadata` (v2: `file`, .zarray or .zattrs);
 * undefined where it has none (the text the store gave is kept).
 */
async function consolidatedText(arr: zarr.Location<zarr.Readable>, format: 2 | 3, file = ""): Promise<string | undefined> {
  const base = baseStore(arr.store) as AnyStore;
  const key = (format === 3 ? "/zarr.json" : "/.zmetadata") as zarr.AbsolutePath;
  if (base === arr.store) return undefined;
  const bytes = await fromStore(key, () => base.get(key));
  if (!bytes) return undefined;
  // (Parsed with integers beyond 2^53 as bigints, and the entry written again exactly.)
  const root = exactParse(new TextDecoder().decode(bytes)) as Record<string, Record<string, Record<string, unknown>> | undefined>;
  const name = arr.path.replace(/^\/+|\/+$/g, "");
  const entry = format === 3 ? root.consolidated_metadata?.metadata?.[name] : (root.metadata as Record<string, unknown> | undefined)?.[name ? `${name}/${file}` : file];
  return entry === undefined ? undefined : exactJson(entry);
}

/** Remembers the metadata text an array was opened from (see open()). */
export function rememberText(arr: object, meta: MetadataText): void {
  texts.set(arr, Promise.resolve(meta));
}
