// The array -> bytes codecs with modules of their own (the codec table's whole-chunk rows) as
// zarrita codecs: each module's codec class takes the configuration, the data type and the
// chunk shape, and encodes a chunk's typed array to bytes and back.
import { type ChunkMeta, chunkMetaOf } from "../metadata/chunk-meta.js";
import { cOrderStrides } from "../common/strides.js";


/**
 * The shape of the chunk an array -> bytes codec receives: the chunk's, permuted by the
 * `transpose` codecs before it (zarrita lays a transposed chunk's values out in the
 * transpose's order but leaves its shape as it was: a codec that codes a chunk whole by its
 * shape, as zfp does, must see the permuted one, as the spec and the package's own path do).
 */
export function receivedShape(meta: ChunkMeta): number[] {
  let shape = meta.shape;
  for (const codec of meta.codecs ?? []) {
    if (codec.name !== "transpose") continue;
    const given = (codec.configuration as { order?: unknown } | undefined)?.order;
    const order = given === "F" ? shape.map((_, i) => shape.length - 1 - i) : Array.isArray(given) ? (given as number[]) : undefined;
    if (order && order.length === shape.length) shape = order.map((d) => shape[d]);
  }
  return shape;
}

/** A whole-chunk module's codec class (crates/common.rs). */
export type ArrayBytesCodec = new (
  configurationJson: string,
  dataType: string,
  chunkShapeJson: string,
) => { encode(data: unknown): Uint8Array; decode(bytes: Uint8Array): unknown };

/**
 * The zarrita registry entry of `Codec`: an array -> bytes codec per array (`shared`: its
 * codec table row names another codec's module, see below). An absent
 * configuration goes as null, which each codec reads as it defines (numcodecs' defaults, or
 * refused where the codec has none).
 */
export function arrayToBytesEntry(Codec: ArrayBytesCodec, name: string, shared: boolean) {
  return {
    fromConfig(config: unknown, representation: unknown) {
      const meta = chunkMetaOf(representation, name, config);
      // A codec whose row names another codec's module (numcodecs.zfpy, in zfp's) shares that
      // module's class, which tells it by its configuration wrapped under its name (as the
      // layout hands it, see whole_chunk_configuration).
      const given = shared ? { [name]: config ?? null } : (config ?? null);
      const inner = new Codec(JSON.stringify(given), meta.dataType, JSON.stringify(receivedShape(meta)));
      // (A transposed chunk's decoded values are in the transpose's order: zarrita's transpose
      // gives them its strides.)
      const shape = meta.shape;
      const stride = cOrderStrides(shape);
      return {
        kind: "array_to_bytes" as const,
        encode(chunk: { data: unknown }): Uint8Array {
          return inner.encode(chunk.data);
        },
        decode(bytes: Uint8Array) {
          try {
            return { data: inner.decode(bytes), shape, stride };
          } catch (e) {
            // (Every refusal of this codec names it, a chunk of the wrong length too.)
            if (e instanceof Error && (e as { code?: string }).code && (e as { codec?: string }).codec === undefined) (e as { codec?: string }).codec = name;
            throw e;
          }
        },
      };
    },
  };
}
