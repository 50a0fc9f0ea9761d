// Reads and writes of one array, within this process, in the order of their calls. An array is
// its store object and its path, whatever array object a call came through. A write reads the
// old bytes of the chunks (or shards) it covers in part and writes them back with its values
// laid over, so two writes at once would each write back the other's chunk without the other's
// values; and a read of a sharded array keeps each shard's index, so a read meeting a write
// could take an inner chunk's range in the new shard from the old index. So: a write waits for
// the writes and reads called before it; a read waits for the writes called before it (reads
// go on side by side). The turn is taken at the call, so a later call never goes first, and a
// failed call does not stop the next. The store is the one under any zarrita extensions (see
// js/stores/identity.ts). Two processes, or two store objects over the same files, are not ordered.
import { baseStore } from "./identity.js";

interface Turns {
  /** The end of the last write called. */
  write: Promise<void>;
  /** How many writes called have not ended, and how many were called. */
  writing: number;
  called: number;
  /** The ends of the reads under way. */
  reads: Set<Promise<void>>;
}

const byStore = new WeakMap<object, Map<string, Turns>>();

function turnsOf(given: object, path: string): Turns {
  const store = baseStore(given);
  let paths = byStore.get(store);
  if (!paths) byStore.set(store, (paths = new Map()));
  let turns = paths.get(path);
  if (!turns) paths.set(path, (turns = { write: Promise.resolve(), writing: 0, called: 0, reads: new Set() }));
  return turns;
}

const settled = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, () => undefined);

/** Runs a write of the array at `path` of `store` in its turn (see above). */
export function writeInTurn<T>(store: object, path: string, work: () => Promise<T>): Promise<T> {
  const turns = turnsOf(store, path);
  const mine = Promise.all([turns.write, ...turns.reads]).then(work);
  turns.writing++;
  turns.called++;
  turns.write = settled(mine).then(() => void turns.writing--);
  return mine;
}

/** Runs a read of the array at `path` of `store` in its turn (see above). */
export function readInTurn<T>(store: object, path: string, work: () => Promise<T>): Promise<T> {
  const turns = turnsOf(store, path);
  const mine = turns.write.then(work);
  const end = settled(mine);
  turns.reads.add(end);
  void end.then(() => turns.reads.delete(end));
  return mine;
}

/**
 * Reads of the array at `path` of `store` asked for together taking one turn (see above): the
 * chunks one zarr.get asks zarrita's `getChunk` for, in one loop. The reads asked for in one
 * go (before a microtask runs, and with no write called between) are one read: it waits for the
 * writes called before it (and starts at once, with nothing awaited, where none is under way),
 * and a write called after it waits for all of them. Returns the function that runs a read's `work` in that turn.
 */
export function readsTogether(store: object, path: string) {
  const turns = turnsOf(store, path);
  type Together = { go: Promise<void> | undefined; after: number; pending: number; closed: boolean; end(): void };
  let open: Together | undefined;
  const together = (): Together => {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    turns.reads.add(ended);
    const batch: Together = {
      go: turns.writing ? turns.write : undefined,
      after: turns.called,
      pending: 0,
      closed: false,
      end: () => {
        turns.reads.delete(ended);
        end();
      },
    };
    queueMicrotask(() => close(batch));
    return batch;
  };
  const close = (batch: Together) => {
    if (batch.closed) return;
    if (open === batch) open = undefined;
    batch.closed = true;
    if (!batch.pending) batch.end();
  };
  return <T>(work: () => Promise<T>): Promise<T> => {
    // (A write called since the open reads were asked for: the reads after it wait for it.)
    if (open && open.after !== turns.called) close(open);
    const batch = (open ??= together());
    batch.pending++;
    const leave = () => {
      if (!--batch.pending && batch.closed) batch.end();
    };
    const run = batch.go ? batch.go.then(work) : work();
    run.then(leave, leave);
    return run;
  };
}

/**
 * Notes that the package reads the array at `path` of `store` for zarrita (the wrapped store's
 * arrays), as it notes those it reads and writes itself: see `byThePackage`.
 */
export function noteArray(store: object, path: string): void {
  turnsOf(store, path);
}

/**
 * Whether the store key `key` of `store` is under an array the package reads or writes (one it
 * has taken turns for, or noted): its parent paths looked up, from the nearest.
 */
export function byThePackage(store: object, key: string): boolean {
  const paths = byStore.get(baseStore(store));
  if (!paths) return false;
  for (let at = key.lastIndexOf("/"); at >= 0; at = key.lastIndexOf("/", at - 1)) {
    if (paths.has(key.slice(0, at) || "/")) return true;
    if (at === 0) break;
  }
  return false;
}
