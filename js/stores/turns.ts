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
  /** The ends of the reads under way. */
  reads: Set<Promise<void>>;
}

const byStore = new WeakMap<object, Map<string, Turns>>();

function turnsOf(given: object, path: string): Turns {
  const store = baseStore(given);
  let paths = byStore.get(store);
  if (!paths) byStore.set(store, (paths = new Map()));
  let turns = paths.get(path);
  if (!turns) paths.set(path, (turns = { write: Promise.resolve(), reads: new Set() }));
  return turns;
}

const settled = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, () => undefined);

/** Runs a write of the array at `path` of `store` in its turn (see above). */
export function writeInTurn<T>(store: object, path: string, work: () => Promise<T>): Promise<T> {
  const turns = turnsOf(store, path);
  const mine = Promise.all([turns.write, ...turns.reads]).then(work);
  turns.write = settled(mine);
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
