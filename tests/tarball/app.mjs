// A Node ESM app using the installed package: write a packed array, read it back, a chain.
import * as zarr from "zarrita";
import { createChain, errorCode, get, registerCodecs, set } from "zarr-wasm-codecs";

registerCodecs();
const arr = await zarr.create(zarr.root(new Map()), {
  shape: [4], chunkShape: [4], dtype: "float64", fillValue: 0,
  codecs: [
    { name: "scale_offset", configuration: { offset: 0, scale: 4 } },
    { name: "cast_value", configuration: { data_type: "int16" } },
    { name: "bytes", configuration: { endian: "little" } },
  ],
});
await set(arr, null, { data: Float64Array.of(0.25, 0.5, 1, -2), shape: [4], stride: [1] });
const { data } = await get(arr);
const chain = await createChain({ data_type: "float64", fill_value: 0, chunk_shape: [2], codecs: [{ name: "cast_value", configuration: { data_type: "int8" } }, { name: "bytes" }] });
const bytes = chain.encode(Float64Array.of(3, -4));
chain.free();
let code;
try {
  await zarr.set(arr, null, { data: Float64Array.of(1e6, 0, 0, 0), shape: [4], stride: [1] });
} catch (e) {
  code = errorCode(e);
}
console.log(JSON.stringify({ data: Array.from(data), bytes: Array.from(bytes), code }));
