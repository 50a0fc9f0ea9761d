// A small app in strict TypeScript that uses every export of the package, type-checked by
// tests/node/package/readme.test.mjs (tsc --strict, bundler resolution) against the built declarations.
// It is only compiled, never run: what it does is run by the other tests.
import * as zarr from "zarrita";
import {
  CODEC_NAMES,
  type ChunkValue,
  type CodecError,
  type CodecRegistry,
  createChain,
  type DataRange,
  type DataType,
  dataType,
  type DataTypeDefinition,
  type DataTypeInfo,
  dataTypeOf,
  type DecodedChunk,
  DEFAULT_MERGE,
  defaultPool,
  ERROR_CODES,
  type ErrorCode,
  errorCode,
  get,
  getDecoded,
  type GetOptions,
  getStored,
  type StoredChunk,
  type StoredResult,
  type GpuDecoder,
  gpuDecoder,
  type GpuDecoderOptions,
  type GpuTextureFormat,
  webgl2Textures,
  type WebGPUResources,
  webgpuResources,
  type GetResult,
  isCodecError,
  type LaneArrays,
  type LaneType,
  loadWasm,
  loadZfp,
  open,
  type PackingPlan,
  planPacking,
  type PlanOptions,
  type PoolOptions,
  registerCodecs,
  registerDataType,
  scalarToJson,
  type Selection,
  set,
  type WasmCodecsOptions,
  withWasmCodecs,
  type WorkerFetchInit,
  type MergeLimits,
  SHARD_INDEX_BYTES,
  validatingFetch,
  type Reference,
  type ReferenceOptions,
  ReferenceStore,
  referenceStore,
  setAtomic,
  type SetOptions,
  WorkerPool,
  writePacked,
  type WritePackedOptions,
} from "zarr-wasm-codecs";

const registry: CodecRegistry = zarr.registry;
registerCodecs(registry);
const names: readonly string[] = CODEC_NAMES;
const codes: readonly ErrorCode[] = ERROR_CODES;

const store = new Map<string, Uint8Array>();
const arr = await zarr.create(zarr.root(store).resolve("t2m"), {
  shape: [2, 8, 8],
  chunkShape: [1, 8, 8],
  dtype: "float32",
  fillValue: NaN,
  codecs: [
    { name: "scale_offset", configuration: { offset: 0, scale: 100 } },
    { name: "cast_value", configuration: { data_type: "int16" } },
    { name: "bytes", configuration: { endian: "little" } },
  ],
});

// set takes the array's own typed array: a Float64Array here would not compile.
const value: ChunkValue<"float32"> = { data: new Float32Array(128), shape: [2, 8, 8], stride: [64, 8, 1] };
const setOptions: SetOptions = { onProgress: (done: number, total: number) => void [done, total], signal: new AbortController().signal };
await set(arr, null, value, setOptions);
await setAtomic(arr, [0, null, null], { data: new Float32Array(64), shape: [8, 8], stride: [8, 1] });
await set(arr, [1, 2, 3], 1.5);

// get's result follows zarr.get's: the chunk of a Float32Array, or one number.
const out = new Float32Array(64);
const options: GetOptions = { out, onProgress: () => {}, signal: AbortSignal.timeout(10_000) };
const selection: Selection = [0, null, null];
// The request options a pool's workers fetch chunks with.
const requests: WorkerFetchInit = { headers: { authorization: "Bearer x" }, credentials: "include" };
const remoteOptions: GetOptions = { pool: true, workerFetch: requests };
void remoteOptions;
// A shard's inner chunks fetched in merged requests (limits in bytes), its indexes kept up to a bound.
const merge: MergeLimits = { gap: DEFAULT_MERGE.gap / 4, size: DEFAULT_MERGE.size };
const viewerOptions: GetOptions = { mergeRanges: merge, shardIndexBytes: SHARD_INDEX_BYTES / 4 };
// A FetchStore whose responses' validators the package sees (ETag, Last-Modified).
const validated = new zarr.FetchStore("https://example.com/data.zarr", { fetch: validatingFetch() });
void validated;
// netCDF4 archives read in place through a kerchunk reference set.
const referenceOptions: ReferenceOptions = { mergeRanges: merge, target: "https://example.com/archive/" };
const references: ReferenceStore = await referenceStore({ version: 1, refs: { ".zgroup": '{"zarr_format":2}' } }, referenceOptions);
const firstKey: string | undefined = references.keys().next().value;
const inline: Reference = { bytes: new Uint8Array(1) };
void [firstKey, inline, await references.get("/.zgroup"), (await open(zarr.root(references))).shape];
void viewerOptions;
const chunk: zarr.Chunk<"float32"> = await get(arr, selection, options);
const plane: Float32Array = chunk.data;
const one: number = await get(arr, [1, 2, 3]);
const strip: GetResult<"float32", [number, zarr.Slice, null]> = await get(arr, [1, zarr.slice(0, 4), null]);
const whole = await get(arr);
const shape: number[] = whole.shape;

// Pooled reads.
const poolOptions: PoolOptions = { size: 2, workerUrl: new URL("https://example.org/assets/worker.js") };
const pool = new WorkerPool(2);
void new WorkerPool(poolOptions).terminate();
const pooled: Float32Array = (await get(arr, null, { pool })).data;
await pool.terminate();
const shared: boolean = defaultPool().terminated;

// Decoded reads, packing.
const decoded: DecodedChunk = await getDecoded(arr, null);
const floats: Float64Array = decoded.data;
const range: DataRange = { min: -40, max: 50 };
const planOptions: PlanOptions = { target: "uint8" };
const plan: PackingPlan = await planPacking(range, planOptions);
const writeOptions: WritePackedOptions = { shape: [4, 4], target: "uint8" };
const packed = await writePacked(zarr.root(new Map<string, Uint8Array>()).resolve("packed"), new Float64Array(16), writeOptions);
const reopened = await open(packed.array.store);

// Stored values, decoded on the GPU (the texture helpers only type-checked here).
const stored: StoredChunk = await getStored(arr, [0, null, null]);
const storedOne: StoredResult<[number, number, number]> = await getStored(arr, [0, 1, 2]);
void storedOne;
const decoderOptions: GpuDecoderOptions = { prefix: "t2m", group: 0, binding: 0 };
const decoder: GpuDecoder = await gpuDecoder(arr, decoderOptions);
const format: GpuTextureFormat = decoder.storedFormat;
const glsl: string = decoder.glsl;
const table: Float32Array = decoder.table;
declare const gl: WebGL2RenderingContext;
const makeTextures = () => webgl2Textures(gl, decoder, stored, { unit: 0 });
declare const device: Parameters<typeof webgpuResources>[0];
const makeResources = (): WebGPUResources => webgpuResources(device, decoder, stored, { binding: 0 });
void [format, glsl, table, makeTextures, makeResources];

// Errors carry a code.
try {
  await get(reopened, [99, 0]);
} catch (e) {
  const code: ErrorCode | undefined = errorCode(e);
  if (isCodecError(e)) {
    const error: CodecError = e;
    void [code, error.code];
  }
}

// Data types: the registry's descriptions, and an app's own type (RGB triples of uint16 lanes).
const c64: DataType = await dataType("<c8", 2);
const info: DataTypeInfo = await dataTypeOf(arr);
const bits: Uint8Array = c64.fillToBytes([1, 2]);
const lane: LaneType = "uint16";
const rgb: DataTypeDefinition<"uint16"> = {
  name: "rgb16",
  lane,
  lanes: 3,
  fillToBytes: (fill) => new Uint8Array(new Uint16Array(Array.isArray(fill) ? fill.map(Number) : [0, 0, 0]).buffer),
  fillToJson: (bytes) => Array.from(new Uint16Array(bytes.buffer, bytes.byteOffset, 3)),
  toItems: (lanes: LaneArrays["uint16"], count: number) => Array.from({ length: count }, (_, i) => lanes.subarray(3 * i, 3 * i + 3)),
  fromItems: (items, count) => Uint16Array.from({ length: 3 * count }, (_, k) => Number((items[Math.floor(k / 3)] as number[])[k % 3])),
};
await registerDataType(rgb);

// An app that calls zarrita itself: the store wrapped, and zarr.get reads on the package's path.
const wrapOptions: WasmCodecsOptions = { pool: true, concurrency: 16, mergeRanges: { gap: 0 }, shardIndexBytes: 1 << 20 };
const wrapped = withWasmCodecs(new zarr.FetchStore("https://example.com/data.zarr"), wrapOptions);
const viaZarrita = await zarr.open(zarr.root(wrapped), { kind: "array" });
const viewed = await zarr.get(viaZarrita, null);

// The low-level pieces.
const wasm = await loadWasm();
const zfp = await loadZfp();
const chain = await createChain({ data_type: "float64", codecs: [{ name: "bytes", configuration: { endian: "little" } }] });
const json: string = scalarToJson(1n);

export { bits, chain, viewed, codes, floats, info, json, names, one, plan, plane, pooled, shape, shared, strip, wasm, zfp };
