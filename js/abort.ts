// One abort listener on each caller's signal, however many reads, chunks, requests and pool jobs
// wait on it: a viewer that shares one AbortSignal among thousands of tile reads would otherwise
// have a listener added for each (Node warns past ten: MaxListenersExceededWarning). The package
// listens on a signal of its own instead (`ownSignal`), aborted with the caller's reason when the
// caller's signal aborts, and passes that one to the store's requests too.
import { builtinNow, isNode } from "./node.js";

type Events = { setMaxListeners(n: number, ...targets: EventTarget[]): void };
/** Node's `events`: the package's own signals take any number of listeners. */
const events = isNode ? builtinNow<Events>("events") : undefined;

const own = new WeakMap<AbortSignal, AbortSignal>();

/**
 * The package's signal for `signal`: one for each caller's signal, made on first use, which
 * aborts (with the same reason) when it does. Its one listener on `signal` stays until `signal`
 * aborts or is collected.
 */
export function ownSignal(signal: AbortSignal): AbortSignal {
  let mine = own.get(signal);
  if (mine) return mine;
  const controller = new AbortController();
  mine = controller.signal;
  events?.setMaxListeners(0, mine);
  own.set(signal, mine);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return mine;
}

/** `ownSignal(signal)`, or undefined without one. */
export function ownSignalOf(signal: AbortSignal | undefined): AbortSignal | undefined {
  return signal && ownSignal(signal);
}

/** Calls `handler` when `signal` aborts (listening on the package's own signal for it); the function returned takes it off. */
export function onAbort(signal: AbortSignal, handler: () => void): () => void {
  const mine = ownSignal(signal);
  mine.addEventListener("abort", handler, { once: true });
  return () => mine.removeEventListener("abort", handler);
}
