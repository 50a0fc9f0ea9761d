// Lazy initialisation of the wasm module: nothing is compiled until the first codec is built,
// and a failed start is not cached, so a later call can try again.
import init, * as bindings from "./wasm/zarr_wasm_codecs.js";
import wasmBase64 from "./wasm/inline.js";

export type Bindings = typeof bindings;

let ready: Promise<Bindings> | undefined;

function decodeBase64(text: string): Uint8Array {
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (fromBase64) return fromBase64(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Compiles and instantiates the wasm module once; every caller gets the same instance. */
export function loadWasm(): Promise<Bindings> {
  ready ??= init({ module_or_path: decodeBase64(wasmBase64) }).then(
    () => bindings,
    (error: unknown) => {
      ready = undefined;
      throw error;
    },
  );
  return ready;
}
