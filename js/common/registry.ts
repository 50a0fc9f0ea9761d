// Which codec registry entries are this package's (registerCodecs adds them here), so that a
// write can tell whether zarrita would encode an array with its own codecs or with these.

import { CODECS } from "../wasm/tables.js";

/**
 * The wasm codecs this package registers, from the codec table: its array -> array codecs
 * and the codecs of its whole-chunk modules (which load on first use).
 */
export const CODEC_NAMES: readonly string[] = CODECS.filter(
  (row) => row.zarrita === "array_to_array" || row.zarrita === "whole_chunk",
).flatMap((row) => row.v3_names);

const ours = new WeakSet<object>();

export function markOurs(entry: object): void {
  ours.add(entry);
}

export function isOurs(entry: unknown): boolean {
  return typeof entry === "function" && ours.has(entry);
}
