// Lazy initialisation of the wasm modules (the table in modules.ts): nothing is compiled until a
// codec needs it, and a failed start is not cached, so a later call can try again. Each module
// is loaded from its .wasm file, or, once "zarr-wasm-codecs/inline" is imported, from its
// base64 copy; every module but the core is reached only through a dynamic import, so readers
// that do not need it never load it.
import { codedError } from "../common/errors.js";
import { type GlueOf, MODULES, type ModuleName } from "../modules.js";
import { builtin } from "../common/node.js";

export type Bindings = GlueOf<"core">;
export type PackingBindings = GlueOf<"packing">;

export function decodeBase64(text: string): Uint8Array {
  const fromBase64 = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (fromBase64) return fromBase64(text);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Starts a module once; a failure is forgotten so that the next call tries again. */
function once<T>(start: () => Promise<T>): () => Promise<T> {
  let ready: Promise<T> | undefined;
  return () => {
    ready ??= start().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
}

/** A module's memory, for views of what it decoded. */
const memories = new WeakMap<object, WebAssembly.Memory>();

export function memoryOf(module: object): WebAssembly.Memory {
  const memory = memories.get(module);
  if (!memory) throw new Error("the wasm module is not started");
  return memory;
}

/** Each started module's compiled wasm, which the worker pool hands to its workers. */
const compiled = new WeakMap<object, WebAssembly.Module>();

export function compiledOf(module: object): WebAssembly.Module {
  const found = compiled.get(module);
  if (!found) throw new Error("the wasm module is not started");
  return found;
}

/** A module's base64 copy, as its ES module (see "zarr-wasm-codecs/inline"). */
export type InlineCopy = () => Promise<{ default: string }>;

/** Each module's base64 copy, by the module's name. */
export type InlineCopies = Record<ModuleName, InlineCopy>;

/** The base64 copies the modules load from instead of their .wasm files (see `useInlineWasm`). */
let inlineCopies: InlineCopies | undefined;

/**
 * Makes the modules load from the base64 copies inside the package's ES modules, never from
 * the .wasm files (what "zarr-wasm-codecs/inline" does on import, handing in its imports of
 * the copies): for environments that cannot fetch or read files, or bundlers that do not copy
 * them. Nothing else refers to the copies, so a build that does not import
 * "zarr-wasm-codecs/inline" emits none of them.
 */
export function useInlineWasm(copies: InlineCopies): void {
  inlineCopies = copies;
}

/**
 * A module's wasm, compiled: from its base64 copy after `useInlineWasm`; otherwise from its
 * .wasm file beside this module, read from disk (Node) or fetched (browsers with no bundler,
 * and bundlers that copy the files `new URL(..., import.meta.url)` names, as Vite and webpack 5
 * do), streaming where the server says application/wasm. A file that cannot be had is
 * WASM_UNAVAILABLE, naming it and "zarr-wasm-codecs/inline"; one the page's
 * Content-Security-Policy refuses is WASM_FORBIDDEN.
 */
async function compileWasm(name: keyof InlineCopies, file: () => URL): Promise<WebAssembly.Module> {
  try {
    return await compileFrom(name, file);
  } catch (e) {
    if (!forbidden(e)) throw e;
    throw codedError(
      "WASM_FORBIDDEN",
      "the page's Content-Security-Policy does not allow WebAssembly: add 'wasm-unsafe-eval' to its script-src " +
        `(the browser said: ${e.message})`,
      e,
    );
  }
}

/** Whether a compile failed because the page's Content-Security-Policy refused it (script-src without 'wasm-unsafe-eval'). */
function forbidden(e: unknown): e is Error {
  return e instanceof Error && /Content Security Policy|unsafe-eval/i.test(e.message);
}

async function compileFrom(name: keyof InlineCopies, file: () => URL): Promise<WebAssembly.Module> {
  if (inlineCopies) {
    return WebAssembly.compile(decodeBase64((await inlineCopies[name]()).default) as Uint8Array<ArrayBuffer>);
  }
  let url: URL | undefined;
  let failure: unknown;
  try {
    url = file();
    if (url.protocol === "file:") {
      const fs = await builtin<{ readFile(path: URL): Promise<Uint8Array<ArrayBuffer>> }>("fs/promises");
      return await WebAssembly.compile(await fs.readFile(url));
    }
    const response = await fetch(url);
    if (response.ok) {
      if (/^application\/wasm\b/.test(response.headers.get("content-type") ?? "")) {
        return await WebAssembly.compileStreaming(response);
      }
      return await WebAssembly.compile(await response.arrayBuffer());
    }
    failure = `HTTP ${response.status}`;
  } catch (e) {
    if (forbidden(e)) throw e;
    failure = e;
  }
  const reason = failure instanceof Error ? failure.message : String(failure);
  throw codedError(
    "WASM_UNAVAILABLE",
    `the package's ${name} wasm module could not be loaded from ${url ?? "its .wasm file"} (${reason}). ` +
      "A bundler that does not copy the package's .wasm files (esbuild) needs them copied beside the bundle " +
      '(as wasm/*.wasm), or import from "zarr-wasm-codecs/inline", which loads them from the base64 copies of ' +
      "the zarr-wasm-codecs-inline package (installed beside this one)",
    failure,
  );
}

/** A wasm-bindgen module's glue: its `default` instantiates the module. */
interface Glue {
  default(options: { module_or_path: WebAssembly.Module }): Promise<{ memory: WebAssembly.Memory }>;
}

/** Each module's start, once (see `loadModule`). */
const starts = new Map<ModuleName, () => Promise<object>>();

/**
 * A module of the table, started on first use: its glue and its compiled wasm (its .wasm
 * file, or its base64 copy) fetched together, then instantiated once; every caller gets the
 * same instance.
 */
export function loadModule<M extends ModuleName>(name: M): Promise<GlueOf<M>> {
  let start = starts.get(name);
  if (!start) {
    const row = MODULES[name];
    start = once(async () => {
      const [bindings, module] = await Promise.all([row.glue() as Promise<object>, compileWasm(name, row.file)]);
      const exports = await (bindings as Glue).default({ module_or_path: module });
      memories.set(bindings, exports.memory);
      compiled.set(bindings, module);
      return bindings;
    });
    starts.set(name, start);
  }
  return start() as Promise<GlueOf<M>>;
}

/** Whether a module has been asked for already (started, or starting). */
export const asked = (name: ModuleName): boolean => starts.has(name);

/** The core module (scale_offset, cast_value, chains). */
export const loadWasm = (): Promise<Bindings> => loadModule("core");
