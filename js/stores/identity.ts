// Which store a store object is: the object under every zarrita extension around it. An array
// is its store and its path, whether it was opened over the store itself or over a store
// extension (withWasmCodecs, zarrita's consolidated metadata, caches, range coalescing), so its
// reads and writes are ordered, and what is kept of it dropped, by the store under them all.

const BASE = Symbol.for("zarr-wasm-codecs.base-store");

/**
 * The store under any zarrita store extensions around `store` (itself where there are none).
 * zarrita's extensions are proxies that pass what they do not override to the store they wrap,
 * a getter run with that store as `this`: so a getter the package defines on the innermost
 * store once (through every proxy) answers, read through any of them, with the innermost
 * store. A store that takes no property (frozen) is its own.
 */
export function baseStore(store: object): object {
  const found = read(store);
  if (found) return found;
  try {
    Object.defineProperty(store, BASE, {
      get(this: object) {
        return this;
      },
      configurable: true,
      enumerable: false,
    });
  } catch {
    return store;
  }
  return read(store) ?? store;
}

function read(store: object): object | undefined {
  try {
    const found = (store as Record<symbol, unknown>)[BASE];
    return typeof found === "object" && found !== null ? found : undefined;
  } catch {
    return undefined;
  }
}

