// Writes that land whole or not at all. zarr.set encodes and stores chunk by chunk, so a value
// that fails to encode in a later chunk leaves the earlier chunks already written. setAtomic
// runs the same zarr.set against a staging store that keeps every write in memory (reads fall
// through to the array's store), and writes to the array's store only once every chunk has
// encoded.
import * as zarr from "zarrita";

type Writable = zarr.Array<zarr.DataType, zarr.Mutable>;

/**
 * `zarr.set(arr, selection, value)`, all or nothing: when any chunk fails to encode (a value
 * out of range, NaN with no mapping, ...), it throws and no chunk in the store has changed.
 */
export async function setAtomic(
  arr: Writable,
  selection: Parameters<typeof zarr.set>[1],
  value: Parameters<typeof zarr.set>[2],
): Promise<void> {
  const store = arr.store;
  const staged = new Map<zarr.AbsolutePath, Uint8Array>();
  const staging: zarr.AsyncMutable = {
    get: (key: zarr.AbsolutePath, opts?: unknown) =>
      staged.has(key) ? Promise.resolve(staged.get(key)) : (store.get as (k: zarr.AbsolutePath, o?: unknown) => Promise<Uint8Array | undefined>)(key, opts),
    set: async (key: zarr.AbsolutePath, bytes: Uint8Array) => {
      staged.set(key, bytes);
    },
  };
  const twin = await zarr.open.v3(new zarr.Location(staging, arr.path), { kind: "array" });
  await zarr.set(twin as Writable, selection, value);
  for (const [key, bytes] of staged) await store.set(key, bytes);
}
