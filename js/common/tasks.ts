// A later task of the event loop (not a microtask): where work waits for what the same task
// still asks (merged range reads) or leaves the event loop its turn (the read's slices).

/** Resolvers waiting for a task of their own (browsers: one message each on `taskChannel`). */
const waitingTasks: (() => void)[] = [];
let taskChannel: MessageChannel | undefined;

/** A promise that resolves in a later task of the event loop (not a microtask). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const immediate = (globalThis as { setImmediate?: (f: () => void) => void }).setImmediate;
    if (immediate) return void immediate(resolve);
    if (!taskChannel) {
      taskChannel = new MessageChannel();
      taskChannel.port1.onmessage = () => waitingTasks.shift()?.();
    }
    waitingTasks.push(resolve);
    taskChannel.port2.postMessage(null);
  });
}
