// zarr.get's bytes -> bytes codecs on the compress module: registerCodecs() wraps zarrita's
// registry entries of the codecs the codec table runs in that module, so that they decode
// there, with the same kernels and checks as `get` and the pool; encoding, sizes and every
// other codec stay zarrita's (numcodecs.js).
import { chunkMetaOf } from "../metadata/chunk-meta.js";
import { codedError } from "../common/errors.js";
import { loadModule, memoryOf } from "../loading/load.js";
import { bytesModuleOf } from "../modules.js";
import { type Decompressor, unpack } from "../kernels/place.js";
import { DATA_TYPE_SIZES } from "../wasm/tables.js";

interface Codec {
  kind?: string;
  encode(bytes: Uint8Array): unknown;
  /** Absent from the package's gzip (js/zarrita/gzip.ts), which the module's table has. */
  decode?(bytes: Uint8Array): unknown;
  computeEncodedSize?(size: number): number;
}
type CodecClass = { fromConfig(config: unknown, meta: unknown): Codec };
type Loader = () => Promise<unknown>;

const wrapped = new WeakSet<object>();

/**
 * Refuses (UNSUPPORTED) a configuration zarrita's own codec of `name` reads as something it
 * does not say, rather than let zarr.get answer wrong: zarrita's numcodecs.delta takes the
 * array's type for its differences and ignores `astype` (numcodecs stores them as astype).
 * The package's `get` reads such arrays itself.
 */
function refuseWhatZarritaMisreads(name: string, config: unknown): void {
  if (name !== "numcodecs.delta") return;
  const c = (config ?? {}) as { dtype?: unknown; astype?: unknown };
  if (c.astype === undefined || c.astype === null || c.astype === c.dtype) return;
  throw codedError(
    "UNSUPPORTED",
    `zarrita's numcodecs.delta ignores astype (${JSON.stringify(c.astype)}, dtype ${JSON.stringify(c.dtype)}) and would read other values: read this array with the package's get`,
  );
}

/** `original` (a registry entry) with its bytes -> bytes codecs decoding in wasm where they can. */
export function decodingInWasm(name: string, original: Loader): Loader {
  if (wrapped.has(original)) return original;
  const entry = async () => {
    const Original = (await original()) as CodecClass;
    return {
      fromConfig(config: unknown, meta: unknown): Codec {
        const inner = Original.fromConfig(config, meta);
        // (numcodecs.js's codecs carry no kind: zarrita takes them as bytes -> bytes.)
        if (inner.kind === "array_to_array" || inner.kind === "array_to_bytes") {
          refuseWhatZarritaMisreads(name, config);
          return inner;
        }
        // What the codec receives: its items' size is a shuffle's default element size.
        const dataType = (meta ? chunkMetaOf(meta, name, config).dataType : undefined) || "uint8";
        return wasmDecode(name, config, DATA_TYPE_SIZES[dataType] ?? 1, inner);
      },
    };
  };
  wrapped.add(entry);
  return entry;
}

function wasmDecode(name: string, config: unknown, itemSize: number, inner: Codec): Codec {
  // Built at the first decode; a configuration the module refuses is the decode's error.
  let decompressor: Decompressor | undefined;
  return {
    kind: inner.kind,
    encode: (bytes) => inner.encode(bytes),
    computeEncodedSize: inner.computeEncodedSize && ((size) => inner.computeEncodedSize!(size)),
    async decode(bytes: Uint8Array) {
      const wasm = await loadModule(bytesModuleOf([{ name }]));
      decompressor ??= new wasm.Decompressor(JSON.stringify([{ name, configuration: config ?? undefined }]), itemSize);
      return unpack(decompressor, memoryOf(wasm), bytes).slice();
    },
  };
}
