// Opening an array from its zarr.json text with 64-bit integers kept exact. zarrita's
// zarr.open reads zarr.json with JSON.parse, which rounds integers beyond 2^53; here the wasm
// reads the text and hands back JSON in which such integers in the fill value and codec
// configurations are decimal strings, which zarrita passes through untouched and this
// package's codecs read exactly.
import * as zarr from "zarrita";
import { codedError, naming } from "./errors.js";
import { loadWasm } from "./load.js";
import { isV2Text, metadataText, rememberText } from "./read.js";

/** Codec lists read exactly: the adapter trusts the fill values zarrita hands along with them. */
export const exactCodecLists = new WeakSet<object>();

function markExact(codecs: unknown): void {
  if (!Array.isArray(codecs)) return;
  exactCodecLists.add(codecs);
  for (const codec of codecs) {
    const config = (codec as { configuration?: { codecs?: unknown; index_codecs?: unknown } })?.configuration;
    if (config) {
      markExact(config.codecs);
      markExact(config.index_codecs);
    }
  }
}

/**
 * Opens the zarr array at `location` (a zarrita Location or a store) as zarr.open does,
 * but from zarr.json's text with its 64-bit integers exact: the zarrita array it returns
 * carries exact fill values and codec configurations, so it reads and writes exactly through
 * zarr.get / zarr.set with `registerCodecs()` as well as through this package's get and set.
 * A zarr v2 array (.zarray) is zarrita's v2 array; this package's get, set and getDecoded
 * read its metadata exactly (zarr.get on it sees what JSON.parse made of .zarray).
 */
export async function open<Store extends zarr.Readable>(
  location: zarr.Location<Store> | Store,
): Promise<zarr.Array<zarr.DataType, Store>> {
  const loc = location instanceof zarr.Location ? location : zarr.root(location as Store);
  return naming(loc.path, () => openAt(loc));
}

async function openAt<Store extends zarr.Readable>(loc: zarr.Location<Store>): Promise<zarr.Array<zarr.DataType, Store>> {
  const store = loc.store as unknown as { get(key: string): Promise<Uint8Array | undefined> };
  const bytes = await store.get(loc.resolve("zarr.json").path);
  if (!bytes) {
    // A zarr v2 array: zarrita's own v2 array, with its exact metadata text remembered, so
    // that this package's get, set and getDecoded read its .zarray's integers exactly.
    const text = await metadataText(loc as never);
    if (!isV2Text(text)) return zarr.open.v3(loc, { kind: "array" }) as Promise<zarr.Array<zarr.DataType, Store>>;
    const arr = await zarr.open.v2(loc, { kind: "array" });
    rememberText(arr, text!);
    return arr as zarr.Array<zarr.DataType, Store>;
  }
  const text = new TextDecoder().decode(bytes);
  const wasm = await loadWasm();
  const meta = JSON.parse(wasm.exactMetadataJson(text)) as { node_type?: string; codecs?: unknown };
  if (meta.node_type !== "array") {
    throw codedError("INVALID_METADATA", `${loc.path} is not an array (node_type ${JSON.stringify(meta.node_type)})`);
  }
  // The layout reader refuses what no reader may read as it stands (codecs out of zarr v3's
  // order, e.g. [zfp, bytes]); what it leaves to zarrita (its fallback) opens.
  new wasm.ArrayReader(text).free();
  markExact(meta.codecs);
  const arr = new zarr.Array(loc.store, loc.path, meta as never) as zarr.Array<zarr.DataType, Store>;
  rememberText(arr, text);
  return arr;
}
