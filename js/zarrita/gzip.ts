// gzip as a bytes -> bytes codec that encodes at its configured level: zarrita 0.7's own gzip
// only decodes. Encoding is numcodecs' gzip (fflate, the library zarrita's numcodecs uses),
// which honours `level`. It decodes nothing itself: registerCodecs() has gzip decode in the
// compress module, as every bytes -> bytes codec that module has (js/zarrita/compressors.ts), and
// `get` runs that module directly.
import { codedError } from "../common/errors.js";

/** numcodecs' gzip, loaded on the first encode (readers never load it). */
let encoder: Promise<typeof import("numcodecs/gzip").default> | undefined;
function loadEncoder() {
  encoder ??= import("numcodecs/gzip").then((m) => m.default);
  encoder.catch(() => (encoder = undefined));
  return encoder;
}

export const GzipCodec = {
  fromConfig(config: { level?: unknown } | null | undefined) {
    const level = config?.level ?? 1;
    const keys = Object.keys(config ?? {}).filter((k) => k !== "level");
    if (keys.length || typeof level !== "number" || !Number.isInteger(level) || level < 0 || level > 9) {
      throw codedError(
        "INVALID_CONFIG",
        `invalid gzip configuration ${JSON.stringify(config)}: it takes "level", an integer from 0 to 9`,
      );
    }
    return {
      kind: "bytes_to_bytes" as const,
      encode: async (bytes: Uint8Array) => new (await loadEncoder())(level).encode(bytes),
    };
  },
};
