// One abort listener on each caller's signal, however many reads, chunks, requests and pool jobs
// wait on it: a viewer that shares one AbortSignal among thousands of tile reads would otherwise
// have a listener added for each (Node warns past ten: MaxListenersExceededWarning). The package
// listens on a signal of its own instead (`ownSignal`), aborted with the caller's reason when the
// caller's signal aborts, and passes that one to the store's requests too.
import { builtinNow, isNode } from "./node.js";

type Events = { setMaxListeners(n: number, ...targets: EventTarget[]): void };
/** Node's `events`: the package's own signals take any number of listeners. */
const events = isNode ? builtinNow<Events>("events") : undefined;

/** The package's signal for a caller's, how many of the package's waits listen on it, and how to take its one listener off the caller's. */
interface Own {
  mine: AbortSignal;
  users: number;
  off(): void;
}

const own = new WeakMap<AbortSignal, Own>();

function ownOf(signal: AbortSignal): Own {
  let found = own.get(signal);
  if (found) return found;
  const controller = new AbortController();
  const mine = controller.signal;
  events?.setMaxListeners(0, mine);
  const forward = () => controller.abort(signal.reason);
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", forward, { once: true });
  found = { mine, users: 0, off: () => signal.removeEventListener("abort", forward) };
  own.set(signal, found);
  return found;
}

/**
 * The package's signal for `signal`: one for each caller's signal, made on first use, which
 * aborts (with the same reason) when it does. Its one listener on `signal` is taken off when
 * the last of the package's waits on it (`onAbort`: every read and write holds one for its
 * whole length) ends, so that none is left on a caller's signal after its reads.
 */
export function ownSignal(signal: AbortSignal): AbortSignal {
  return ownOf(signal).mine;
}

/** `ownSignal(signal)`, or undefined without one. */
export function ownSignalOf(signal: AbortSignal | undefined): AbortSignal | undefined {
  return signal && ownSignal(signal);
}

/** Calls `handler` when `signal` aborts (listening on the package's own signal for it); the function returned takes it off. */
export function onAbort(signal: AbortSignal, handler: () => void): () => void {
  const entry = ownOf(signal);
  entry.users++;
  entry.mine.addEventListener("abort", handler, { once: true });
  let on = true;
  return () => {
    if (!on) return;
    on = false;
    entry.mine.removeEventListener("abort", handler);
    if (--entry.users === 0 && own.get(signal) === entry) {
      own.delete(signal);
      entry.off();
    }
  };
}
