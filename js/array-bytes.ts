// The array -> bytes codecs with modules of their own (zfp, numcodecs.pcodec) as zarrita
// codecs: each module's codec class takes the configuration, the data type and the chunk
// shape, and encodes a chunk's typed array to bytes and back.
import { cOrderStrides } from "./strides.js";

interface ChunkMeta {
  dataType: string;
  shape: number[];
}

/** A module's codec class (ZfpCodec, PcodecCodec). */
export type ArrayBytesCodec = new (
  configurationJson: string,
  dataType: string,
  chunkShapeJson: string,
) => { encode(data: unknown): Uint8Array; decode(bytes: Uint8Array): unknown };

/** The zarrita registry entry of `Codec`: an array -> bytes codec per array. */
export function arrayToBytesEntry(Codec: ArrayBytesCodec, defaultConfig: unknown) {
  return {
    fromConfig(config: unknown, meta: ChunkMeta) {
      const inner = new Codec(JSON.stringify(config ?? defaultConfig), meta.dataType, JSON.stringify(meta.shape));
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
