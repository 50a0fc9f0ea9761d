// The array -> bytes codecs with modules of their own (the codec table's whole-chunk rows) as
// zarrita codecs: each module's codec class takes the configuration, the data type and the
// chunk shape, and encodes a chunk's typed array to bytes and back.
import { cOrderStrides } from "./strides.js";

interface ChunkMeta {
  dataType: string;
  shape: number[];
}

/** A whole-chunk module's codec class (crates/common.rs). */
export type ArrayBytesCodec = new (
  configurationJson: string,
  dataType: string,
  chunkShapeJson: string,
) => { encode(data: unknown): Uint8Array; decode(bytes: Uint8Array): unknown };

/**
 * The zarrita registry entry of `Codec`: an array -> bytes codec per array. An absent
 * configuration goes as null, which each codec reads as it defines (numcodecs' defaults, or
 * refused where the codec has none).
 */
export function arrayToBytesEntry(Codec: ArrayBytesCodec) {
  return {
    fromConfig(config: unknown, meta: ChunkMeta) {
      const inner = new Codec(JSON.stringify(config ?? null), meta.dataType, JSON.stringify(meta.shape));
      const shape = meta.shape;
      const stride = cOrderStrides(shape);
      return {
        kind: "array_to_bytes" as const,
        encode(chunk: { data: unknown }): Uint8Array {
          return inner.encode(chunk.data);
        },
        decode(bytes: Uint8Array) {
          return { data: inner.decode(bytes), shape, stride };
        },
      };
    },
  };
}
