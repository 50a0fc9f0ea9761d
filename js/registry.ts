// Which codec registry entries are this package's (registerCodecs adds them here), so that a
// write can tell whether zarrita would encode an array with its own codecs or with these.

/** The wasm codecs this package registers (zfp and numcodecs.pcodec load their own modules on first use). */
export const CODEC_NAMES = ["scale_offset", "cast_value", "zfp", "numcodecs.pcodec"] as const;

const ours = new WeakSet<object>();

export function markOurs(entry: object): void {
  ours.add(entry);
}

export function isOurs(entry: unknown): boolean {
  return typeof entry === "function" && ours.has(entry);
}
