// The zfp array -> bytes codec for zarrita, backed by the separate zfp wasm module.
import type { ZfpBindings } from "./load.js";
import { cOrderStrides } from "./strides.js";

interface ChunkMeta {
  dataType: string;
  shape: number[];
}

export function zfpCodecEntry(zfp: ZfpBindings) {
  return {
    fromConfig(config: unknown, meta: ChunkMeta) {
      const inner = new zfp.ZfpCodec(JSON.stringify(config ?? null), meta.dataType, JSON.stringify(meta.shape));
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
