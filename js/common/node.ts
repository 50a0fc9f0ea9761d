// Node's built-ins, reached without a static import that a bundler would try to resolve.

type NodeBuiltin = (name: string) => unknown;

const proc = (globalThis as { process?: { versions?: { node?: string }; getBuiltinModule?: NodeBuiltin } }).process;

/** Whether this is Node (worker threads, and SharedArrayBuffer with no isolation needed). */
export const isNode = typeof proc?.versions?.node === "string";

/** A Node built-in module. */
export async function builtin<T>(name: string): Promise<T> {
  if (proc?.getBuiltinModule) return proc.getBuiltinModule(name) as T;
  return (await import(/* @vite-ignore */ /* webpackIgnore: true */ `node:${name}`)) as T;
}

/** A Node built-in module now, where Node can give one synchronously (20.16 and later); else undefined. */
export function builtinNow<T>(name: string): T | undefined {
  return proc?.getBuiltinModule?.(name) as T | undefined;
}
