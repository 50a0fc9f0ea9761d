// Random arrays and selections for the property tests (a helper, not a test file): arrays of
// the package's chains, with or without compressors, some chunks missing, some sharded.
import * as zarr from "zarrita";

const CTORS = {
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, uint16: Uint16Array, uint32: Uint32Array, uint64: BigUint64Array,
  float32: Float32Array, float64: Float64Array,
};

export function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The chains the property test draws from: [array type, codecs, fill, value generator]. */
const CHAINS = [
  ["float64", [{ name: "scale_offset", configuration: { offset: -10, scale: 10 } }, { name: "cast_value", configuration: { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } }], "NaN", (r) => (r() < 0.1 ? NaN : -10 + r() * 25)],
  ["float32", [{ name: "scale_offset", configuration: { offset: 0, scale: 100 } }, { name: "cast_value", configuration: { data_type: "int16", out_of_range: "clamp" } }], 0, (r) => (r() - 0.5) * 600],
  ["float64", [{ name: "cast_value", configuration: { data_type: "int32", rounding: "towards-zero" } }], 7, (r) => (r() - 0.5) * 1e6],
  ["int16", [{ name: "scale_offset", configuration: { offset: 3, scale: 2 } }], 3, (r) => Math.round((r() - 0.5) * 30000) | 1],
  ["uint16", [{ name: "cast_value", configuration: { data_type: "uint8", out_of_range: "wrap" } }], 0, (r) => Math.floor(r() * 65536)],
  ["float64", [], "NaN", (r) => (r() - 0.5) * 1e3],
  ["int64", [{ name: "scale_offset", configuration: { offset: 5 } }], 5, (r) => BigInt(Math.floor((r() - 0.5) * 2 ** 52))],
];
const COMPRESSORS = [[], [{ name: "gzip", configuration: { level: 1 } }], [{ name: "zstd", configuration: { level: 1, checksum: false } }]];

/** A random array written by zarr.set (unsharded), or assembled into shards by hand. */
export async function randomArray(r, round) {
  const [dtype, codecs, fill, value] = CHAINS[Math.floor(r() * CHAINS.length)];
  const rank = 1 + Math.floor(r() * 3);
  const shape = Array.from({ length: rank }, () => 1 + Math.floor(r() * 13));
  const chunkShape = shape.map((d) => 1 + Math.floor(r() * d));
  const compressors = COMPRESSORS[Math.floor(r() * COMPRESSORS.length)];
  const endian = r() < 0.2 ? "big" : "little";
  const chain = [...codecs, { name: "bytes", configuration: { endian } }, ...compressors];
  const sharded = r() < 0.3;
  const store = new Map();
  const data = CTORS[dtype].from({ length: shape.reduce((a, b) => a * b, 1) }, () => value(r));
  const meta = {
    zarr_format: 3, node_type: "array", shape, data_type: dtype, fill_value: fill, attributes: {},
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunkShape } },
    chunk_key_encoding: { name: "default", configuration: { separator: r() < 0.5 ? "/" : "." } },
    codecs: chain,
  };
  const encode = (m) => new TextEncoder().encode(JSON.stringify(m, (_, v) => (typeof v === "bigint" ? Number(v) : v)));
  store.set("/zarr.json", encode(meta));
  const arr = await zarr.open.v3(zarr.root(store), { kind: "array" });
  const stride = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  // Some chunks stay missing.
  if (r() < 0.7) await zarr.set(arr, null, { data, shape, stride });
  else await zarr.set(arr, shape.map((d) => zarr.slice(0, Math.ceil(d / 2))), await zarr.get(await zarr.open.v3(zarr.root(new Map([...store, ["/zarr.json", encode(meta)]])), { kind: "array" }), shape.map((d) => zarr.slice(0, Math.ceil(d / 2)))));
  if (!sharded) return { arr, desc: JSON.stringify({ round, dtype, shape, chunkShape, chain: chain.map((c) => c.name) }) };
  // Shards of 1-2 inner chunks per dimension, assembled from the chunks just written:
  // inner chunks in C order, then the index (offset, nbytes as uint64 little-endian) and its
  // CRC-32C (zarrita 0.7 neither writes nor checks it; the package checks it).
  const perShard = shape.map((d, i) => 1 + Math.floor(r() * Math.min(2, Math.ceil(d / chunkShape[i]))));
  const shardShape = chunkShape.map((c, i) => c * perShard[i]);
  const grid = shape.map((d, i) => Math.ceil(d / shardShape[i]));
  const sep = meta.chunk_key_encoding.configuration.separator;
  const shardedStore = new Map();
  const each = (dims) => dims.reduce((acc, n) => acc.flatMap((a) => Array.from({ length: n }, (_, i) => [...a, i])), [[]]);
  for (const s of each(grid)) {
    const parts = [];
    const index = new DataView(new ArrayBuffer(16 * perShard.reduce((a, b) => a * b, 1) + 4));
    let offset = 0;
    each(perShard).forEach((inner, k) => {
      const coords = inner.map((c, i) => s[i] * perShard[i] + c);
      const bytes = store.get(`/c${sep}${coords.join(sep)}`);
      if (!bytes || r() < 0.15) {
        index.setBigUint64(16 * k, 2n ** 64n - 1n, true);
        index.setBigUint64(16 * k + 8, 2n ** 64n - 1n, true);
        return;
      }
      index.setBigUint64(16 * k, BigInt(offset), true);
      index.setBigUint64(16 * k + 8, BigInt(bytes.length), true);
      parts.push(bytes);
      offset += bytes.length;
    });
    const out = new Uint8Array(offset + index.byteLength);
    let at = 0;
    for (const p of parts) out.set(p, (at += p.length) - p.length);
    index.setUint32(index.byteLength - 4, crc32c(new Uint8Array(index.buffer, 0, index.byteLength - 4)), true);
    out.set(new Uint8Array(index.buffer), offset);
    if (r() < 0.9) shardedStore.set(`/c${sep}${s.join(sep)}`, out);
  }
  const shardedMeta = {
    ...meta,
    chunk_grid: { name: "regular", configuration: { chunk_shape: shardShape } },
    codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: chunkShape, codecs: chain, index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }], index_location: "end" } }],
  };
  shardedStore.set("/zarr.json", encode(shardedMeta));
  // A store with range reads, which sharding needs.
  const ranged = {
    get: async (key) => shardedStore.get(key),
    getRange: async (key, range) => {
      const bytes = shardedStore.get(key);
      if (!bytes) return undefined;
      return "suffixLength" in range ? bytes.slice(bytes.length - range.suffixLength) : bytes.slice(range.offset, range.offset + range.length);
    },
  };
  const sharr = await zarr.open.v3(zarr.root(ranged), { kind: "array" });
  return { arr: sharr, desc: JSON.stringify({ round, dtype, shape, chunkShape, shardShape, chain: chain.map((c) => c.name) }) };
}

export function randomSelection(r, shape) {
  return shape.map((d) => {
    const k = r();
    if (k < 0.2) return null;
    if (k < 0.35) return Math.floor(r() * d) - (r() < 0.3 ? d : 0);
    const a = Math.floor(r() * (d + 2)) - 1;
    const b = Math.floor(r() * (d + 2)) - 1;
    return zarr.slice(r() < 0.2 ? null : a, r() < 0.2 ? null : b, 1 + Math.floor(r() * 3));
  });
}

/** CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), bit by bit: for shard indexes. */
export function crc32c(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
// RFC 3720, B.4: 32 bytes of zeros give 0x8a9136aa.
if (crc32c(new Uint8Array(32)) !== 0x8a9136aa) throw new Error("crc32c is wrong");
