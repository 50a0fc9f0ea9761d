// A one-chunk zarr v3 array whose only chunk is a zfp fixture's stream, in a Map store: shared
// by the Node test and the browser page (no Node-only imports here).

/** The zarr.json of a fixture case's array: one chunk of `c.shape`, the case's zfp config. */
export function zfpArrayMeta(c) {
  return {
    zarr_format: 3,
    node_type: "array",
    shape: c.shape,
    data_type: c.data_type,
    chunk_grid: { name: "regular", configuration: { chunk_shape: c.shape } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 0,
    codecs: [{ name: "zfp", configuration: c.configuration }],
    attributes: {},
  };
}

/** The store key of that one chunk (`c` for a 0-d array). */
export function zfpChunkKey(c) {
  return c.shape.length === 0 ? "/c" : `/c/${c.shape.map(() => 0).join("/")}`;
}

/** A Map store holding the array's metadata and, if given, its chunk. */
export function zfpStore(c, stream) {
  const store = new Map([["/zarr.json", new TextEncoder().encode(JSON.stringify(zfpArrayMeta(c)))]]);
  if (stream) store.set(zfpChunkKey(c), stream);
  return store;
}
