// A Node CommonJS app: zarrita is ESM-only (import), so both packages come through import();
// the package itself also loads with require() where Node can require ES modules.
async function main() {
  const zarr = await import("zarrita");
  const { get, registerCodecs, set } = await import("zarr-wasm-codecs");
  registerCodecs();
  const arr = await zarr.create(zarr.root(new Map()), {
    shape: [3], chunkShape: [3], dtype: "float32", fillValue: 0,
    codecs: [{ name: "cast_value", configuration: { data_type: "uint8", rounding: "nearest-even" } }, { name: "bytes" }],
  });
  await set(arr, null, { data: Float32Array.of(1.5, 2.5, 7), shape: [3], stride: [1] });
  const { data } = await get(arr);
  let required = "unsupported";
  if (process.features.require_module) required = typeof require("zarr-wasm-codecs").get;
  console.log(JSON.stringify({ data: Array.from(data), required }));
}
main();
