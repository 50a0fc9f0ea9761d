// zarr.get's bytes -> bytes codecs on the compress module: registerCodecs() wraps zarrita's
// registry entries so that a bytes -> bytes codec the module's table has (zstd, blosc, lz4,
// gzip, zlib, crc32c) decodes there, with the same kernels and checks as `get` and the pool;
// encoding, sizes and every codec the table does not have stay zarrita's (numcodecs.js).
import { codedError } from "./errors.js";
import { loadCompress, memoryOf } from "./load.js";
import { type Decompressor, unpack } from "./place.js";

interface Codec {
  kind?: string;
  encode(bytes: Uint8Array): unknown;
  /** Absent from the package's gzip (js/gzip.ts), which the module's table has. */
  decode?(bytes: Uint8Array): unknown;
  computeEncodedSize?(size: number): number;
}
type CodecClass = { fromConfig(config: unknown, meta: unknown): Codec };
type Loader = () => Promise<unknown>;

const wrapped = new WeakSet<object>();

/** `original` (a registry entry) with its bytes -> bytes codecs decoding in wasm where they can. */
export function decodingInWasm(name: string, original: Loader): Loader {
  if (wrapped.has(original)) return original;
  const entry = async () => {
    const Original = (await original()) as CodecClass;
    return {
      fromConfig(config: unknown, meta: unknown): Codec {
        const inner = Original.fromConfig(config, meta);
        // (numcodecs.js's codecs carry no kind: zarrita takes them as bytes -> bytes.)
        if (inner.kind === "array_to_array" || inner.kind === "array_to_bytes") return inner;
        return wasmDecode(name, config, inner);
      },
    };
  };
  wrapped.add(entry);
  return entry;
}

function wasmDecode(name: string, config: unknown, inner: Codec): Codec {
  // Undefined until the first decode; null where the module's table lacks the codec.
  let decompressor: Decompressor | null | undefined;
  return {
    kind: inner.kind,
    encode: (bytes) => inner.encode(bytes),
    computeEncodedSize: inner.computeEncodedSize && ((size) => inner.computeEncodedSize!(size)),
    async decode(bytes: Uint8Array) {
      const wasm = await loadCompress();
      if (decompressor === undefined) {
        try {
          decompressor = new wasm.Decompressor(JSON.stringify([{ name, configuration: config ?? undefined }]), -1);
        } catch (e) {
          if ((e as { code?: string }).code !== "UNKNOWN_CODEC") throw codedError("INVALID_CONFIG", String((e as Error).message), e);
          decompressor = null;
        }
      }
      if (!decompressor) return inner.decode!(bytes);
      return unpack(decompressor, memoryOf(wasm), bytes).slice();
    },
  };
}
