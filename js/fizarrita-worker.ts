// A worker for fizarrita's pool (@fideus-labs/fizarrita, as ngff-zarr uses it) that decodes with
// this package's codecs: fizarrita fetches a chunk's bytes on the page and decodes them in its
// workers, with the codecs of the zarrita registry those workers import, which neither
// `registerCodecs()` on the page nor a wrapped store reaches. This entry registers the package's
// codecs in the worker's registry, then runs fizarrita's own codec worker:
//
//   import workerUrl from "zarr-wasm-codecs/fizarrita-worker?worker&url"; // (Vite)
//   await getWorker(arr, null, { pool, workerUrl });
//
// Its bundle must resolve "zarrita" to the app's zarrita, the one fizarrita's worker imports.
//
// fizarrita's worker hands the page a failure's message alone (the page gets a new Error with
// it): here the codecs of the worker's registry write the code of the package's errors at the
// start of their messages, `[CHUNK_LENGTH] chunk has ...`, which `errorCode(e)` reads on the page.
import * as zarr from "zarrita";
import { codeInMessage } from "./common/errors.js";
import { registerCodecs } from "./index.js";
import { isOurs, markOurs } from "./common/registry.js";

registerCodecs();

/**
 * `target` (a registry entry's codec class, or a codec it builds) whose `methods` rethrow the
 * package's errors with their code in their message (see `codeInMessage`) and hand what they
 * return to `then`; everything else as it is.
 */
function codesInMessages<T extends object>(target: T, methods: readonly string[], then: (value: unknown) => unknown = (v) => v): T {
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop, t);
      // (A frozen property is handed as it is, as a proxy must.)
      const own = Reflect.getOwnPropertyDescriptor(t, prop);
      if (typeof value !== "function" || (own && !own.configurable && own.writable === false)) return value;
      // (Bound, so that a codec's methods reach its private fields.)
      if (!methods.includes(prop as string)) return value.bind(t);
      return (...args: unknown[]) => {
        let out: unknown;
        try {
          out = value.apply(t, args);
        } catch (e) {
          throw codeInMessage(e);
        }
        return out instanceof Promise ? out.then(then, (e) => Promise.reject(codeInMessage(e))) : then(out);
      };
    },
  });
}

/** A codec class (or what a registry entry gives) whose codecs write codes into their errors' messages. */
const codecClass = (found: unknown) =>
  (typeof found === "object" && found !== null) || typeof found === "function"
    ? codesInMessages(found as object, ["fromConfig"], (codec) =>
        typeof codec === "object" && codec !== null ? codesInMessages(codec, ["encode", "decode"]) : codec)
    : found;

type Entry = Parameters<typeof zarr.registry.set>[1];
// Every entry of the worker's registry (the package's and zarrita's: a coded error may come
// through either), each still the package's where it was (see `isOurs`).
for (const [name, load] of [...zarr.registry]) {
  const entry = async () => {
    let found: unknown;
    try {
      found = await (load as () => Promise<unknown>)();
    } catch (e) {
      throw codeInMessage(e);
    }
    return codecClass(found);
  };
  if (isOurs(load)) markOurs(entry);
  zarr.registry.set(name, entry as unknown as Entry);
}

// fizarrita's codec worker is imported for what it does (it listens for the page's messages),
// which a bundler drops from an import whose bindings are unused, for fizarrita says it has no
// side effects: it is imported dynamically, its namespace kept, and the messages that arrive
// before it listens are held and handed to it, in their order, once it does.
const early: MessageEvent[] = [];
const hold = (event: Event) => {
  event.stopImmediatePropagation();
  early.push(event as MessageEvent);
};
self.addEventListener("message", hold);
void import("@fideus-labs/fizarrita/codec-worker").then((module) => {
  // (Its namespace kept, so that no bundler leaves the module out.)
  (self as unknown as Record<symbol, unknown>)[Symbol.for("zarr-wasm-codecs.fizarrita-worker")] = module;
  self.removeEventListener("message", hold);
  for (const event of early.splice(0)) self.dispatchEvent(new MessageEvent("message", { data: event.data, ports: [...event.ports] }));
});
