// Opening an array from its zarr.json text with 64-bit integers kept exact. zarrita's
// zarr.open reads zarr.json with JSON.parse, which rounds integers beyond 2^53; here the wasm
// reads the text and hands back JSON in which such integers in the fill value and codec
// configurations are decimal strings, which zarrita passes through untouched and this
// package's codecs read exactly.
import * as zarr from "zarrita";
import { type DataType, dataType, type DataTypeInfo, itemised } from "./data-types.js";
import { codedError, codedStore, naming } from "../common/errors.js";
import { CODEC_NAMES } from "../common/registry.js";
import { asked, loadModule, loadWasm } from "../loading/load.js";
import { type MetadataText, metadataText, rememberText } from "./metadata.js";
import { withRanges } from "../stores/store.js";

/** Codec lists read exactly: the adapter trusts the fill values zarrita hands along with them. */
export const exactCodecLists = new WeakSet<object>();

function markExact(codecs: unknown): void {
  if (!Array.isArray(codecs)) return;
  exactCodecLists.add(codecs);
  for (const codec of codecs) {
    const config = (codec as { configuration?: { codecs?: unknown; index_codecs?: unknown } })?.configuration;
    if (config) {
      markExact(config.codecs);
      markExact(config.index_codecs);
    }
  }
}

/**
 * Opens the zarr array at `location` (a zarrita Location or a store) as zarr.open does,
 * but from zarr.json's text with its 64-bit integers exact: the zarrita array it returns
 * carries exact fill values and codec configurations, so it reads and writes exactly through
 * zarr.get / zarr.set with `registerCodecs()` as well as through this package's get and set.
 * A zarr v2 array (.zarray) is zarrita's v2 array; this package's get, set and getDecoded
 * read its metadata exactly (zarr.get on it sees what JSON.parse made of .zarray).
 */
export async function open<Store extends zarr.Readable>(
  location: zarr.Location<Store> | Store,
): Promise<zarr.Array<zarr.DataType, Store>> {
  const loc = location instanceof zarr.Location ? location : zarr.root(location as Store);
  return naming(loc.path, () => openAt(loc));
}

async function openAt<Store extends zarr.Readable>(loc: zarr.Location<Store>): Promise<zarr.Array<zarr.DataType, Store>> {
  const found = await metadataText(loc as never);
  if (found === undefined) return zarr.open.v3(loc, { kind: "array" }) as Promise<zarr.Array<zarr.DataType, Store>>;
  return arrayFromText(loc, found);
}

/** The zarrita array at `loc` whose metadata text (see `metadataText`) is `found`. */
async function arrayFromText<Store extends zarr.Readable>(loc: zarr.Location<Store>, found: MetadataText): Promise<zarr.Array<zarr.DataType, Store>> {
  const text = found.text;
  const wasm = await metadataReader(found);
  // The layout reader refuses what no reader may read as it stands (codecs out of zarr v3's
  // order, an unknown data type or a malformed one, a fill value the type cannot hold); what
  // it leaves to zarrita (its fallback) opens.
  const meta = JSON.parse(wasm.exactMetadataJson(text)) as ZarrJson;
  if (meta.node_type !== "array") {
    throw codedError("INVALID_METADATA", `${loc.path} is not an array (node_type ${JSON.stringify(meta.node_type)})`);
  }
  wasm.check(text);
  const info = JSON.parse(wasm.dataTypeJson(JSON.stringify(meta.data_type), 3)) as DataTypeInfo;
  // (float16 only where the engine has a Float16Array: zarrita makes one.)
  const float16 = info.name !== "float16" || "Float16Array" in globalThis;
  const zarritas = (!itemised(info) && float16) || info.name === "bool" || info.name === "string";
  if (found.zarrFormat === 2 && (zarritas || info.result.endsWith("StringArray"))) {
    // A zarr v2 array of a type zarrita has: zarrita's own v2 array, with its exact metadata
    // text remembered, so that this package's get, set and getDecoded read its .zarray's
    // integers exactly.
    const arr = await zarr.open.v2(loc, { kind: "array" });
    rememberText(arr, found);
    return arr as zarr.Array<zarr.DataType, Store>;
  }
  markExact(meta.codecs);
  // (zarrita makes a sharded array only over a store with getRange.)
  if (JSON.stringify(meta.codecs).includes('"sharding_indexed"')) loc = new zarr.Location(withRanges(loc.store), loc.path);
  if (zarritas) {
    const arr = new zarr.Array(loc.store, loc.path, meta as never) as zarr.Array<zarr.DataType, Store>;
    rememberText(arr, found);
    return arr;
  }
  const arr = standIn(loc, meta, info) as zarr.Array<zarr.DataType, Store>;
  rememberText(arr, found);
  return arr;
}

/**
 * The wasm module `open` reads an array's metadata with (exactly, and refusing what no reader
 * may read): one its reads load anyway, so that opening downloads nothing more. An array its
 * attributes pack (CF `scale_factor` or `add_offset`, in zarr.json's attributes or a zarr v2
 * array's .zattrs) is read by `getDecoded`, which needs the packing module alone: unless the
 * core module is there already, the packing module reads its metadata. Any other array's reads
 * (`get`) need the core module, which reads it.
 */
async function metadataReader(found: MetadataText) {
  // (Told by the text: a false match only costs the choice of module.)
  if (!asked("core") && /"(scale_factor|add_offset)"\s*:/.test(found.text)) {
    const packing = await loadModule("packing");
    return { ...packing, check: packing.checkArrayMetadata };
  }
  const wasm = await loadWasm();
  return { ...wasm, check: (text: string) => new wasm.ArrayReader(text).free() };
}

/**
 * Refuses, as `open` does, the metadata of `arr` that no reader may read (codecs out of zarr
 * v3's order, an unknown or malformed data type, a fill value the type cannot hold), read with
 * the module `open` would read it with (see `metadataReader`).
 */
export async function checkMetadata(arr: zarr.Location<zarr.Readable>): Promise<void> {
  const found = await metadataText(arr);
  if (found) (await metadataReader(found)).check(found.text);
}

/**
 * zarrita's own record of an array (its context: the codec pipeline zarr.set encodes with, ...),
 * under a symbol of zarrita's, which an array extension or stand-in overrides to change how
 * zarrita encodes; undefined where none is found.
 */
export function zarritaContext(arr: object): { key: symbol; context: { codec: { encode?: (chunk: unknown) => Promise<Uint8Array> } } } | undefined {
  for (const key of Object.getOwnPropertySymbols(arr)) {
    const context = (arr as Record<symbol, unknown>)[key];
    if (context && typeof context === "object" && "codec" in context) return { key, context: context as never };
  }
  return undefined;
}

/** Why a float16 array is not read by `get` in an engine with no Float16Array. */
export const FLOAT16_MISSING =
  "float16 values need a Float16Array, which this engine lacks (Node 24 and Chromium 135 have one): " +
  "getDecoded reads them as a Float64Array here";

interface ZarrJson {
  node_type?: string;
  data_type?: unknown;
  fill_value?: unknown;
  codecs?: unknown;
}

/**
 * A zarrita array for a data type zarrita has no class for: built over a type of the same
 * bytes that zarrita reads exactly where there is one (datetime64 and timedelta64: their int64
 * counts; fixed_length_utf32 and null_terminated_bytes: zarrita's v2 string arrays), and
 * answering `dtype` with the type's own name. Where zarrita has no such type (complex, raw
 * bytes), zarr.get and zarr.set on it are refused (UNSUPPORTED_DATA_TYPE) rather than read as
 * bytes of another type; this package's get and set read and write it.
 */
function standIn(loc: zarr.Location<zarr.Readable>, meta: ZarrJson, info: DataTypeInfo): zarr.Array<zarr.DataType, zarr.Readable> {
  const sameBytes: Record<string, string | undefined> = {
    BigInt64Array: "int64",
    UnicodeStringArray: `v2:U${info.lanes}`,
    ByteStringArray: `v2:S${info.lanes}`,
  };
  const like = sameBytes[info.result];
  const zarritaMeta = like
    ? { ...meta, data_type: like, fill_value: like === "int64" ? timeFill(meta.fill_value) : standInFill(meta.fill_value, info) }
    : { ...meta, data_type: "uint8", fill_value: 0 };
  const target = new zarr.Array(loc.store, loc.path, zarritaMeta as never);
  const overrides: Record<PropertyKey, unknown> = { dtype: info.name, fillValue: meta.fill_value };
  if (!like) {
    const refuse = () => {
      throw codedError(
        "UNSUPPORTED_DATA_TYPE",
        info.name === "float16"
          ? FLOAT16_MISSING
          : `zarrita has no ${info.name} data type: read and write this array with get and set from zarr-wasm-codecs`,
      );
    };
    overrides.getChunk = async () => refuse();
    // zarr.set encodes through the array's context, not getChunk.
    const found = zarritaContext(target);
    if (found) overrides[found.key] = { ...found.context, codec: { encode: refuse, decode: refuse } };
  }
  return new Proxy(target, {
    get(t, prop) {
      if (prop in overrides) return overrides[prop];
      const value = Reflect.get(t, prop, t);
      return typeof value === "function" ? value.bind(t) : value;
    },
    has: (t, prop) => prop in overrides || Reflect.has(t, prop),
  });
}

/** A datetime's fill value as zarrita's int64 takes it: "NaT" is the smallest int64. */
function timeFill(fill: unknown): unknown {
  return fill === "NaT" ? "-9223372036854775808" : fill;
}

/** A string type's fill value as zarrita's v2 string arrays take it (fixed bytes: base64 to text). */
function standInFill(fill: unknown, info: DataTypeInfo): unknown {
  if (info.result !== "ByteStringArray" || typeof fill !== "string") return fill ?? "";
  return new TextDecoder().decode(Uint8Array.from(atob(fill), (c) => c.charCodeAt(0)));
}

type Readable = zarr.Array<zarr.DataType, zarr.Readable>;

/**
 * The names of the codecs zarrita looks up in its registry to read an array from its metadata
 * text (see `metadataText`): a zarr.json's codecs, nested ones included; for a zarr v2 array,
 * its filters and compressor as zarrita names them (`numcodecs.<id>`; fixedscaleoffset, which
 * zarrita turns into scale_offset and cast_value, aside).
 */
export function codecNames(text: string | undefined): string[] {
  const names = new Set<string>();
  const walk = (codecs: unknown) => {
    if (!Array.isArray(codecs)) return;
    for (const c of codecs as { name?: unknown; configuration?: { codecs?: unknown; index_codecs?: unknown } }[]) {
      if (typeof c?.name === "string" && c.name !== "sharding_indexed") names.add(c.name);
      walk(c?.configuration?.codecs);
      walk(c?.configuration?.index_codecs);
    }
  };
  try {
    const meta = JSON.parse(text ?? "{}") as { codecs?: unknown; zarray?: { filters?: unknown; compressor?: unknown } };
    walk(meta.codecs);
    const zarray = meta.zarray;
    if (zarray) {
      const steps = [...(Array.isArray(zarray.filters) ? zarray.filters : []), zarray.compressor] as { id?: unknown }[];
      for (const step of steps) {
        if (typeof step?.id !== "string" || /^(numcodecs\.)?fixedscaleoffset$/.test(step.id)) continue;
        names.add(`numcodecs.${step.id}`);
      }
    }
  } catch {
    // Not JSON: zarrita says what is wrong.
  }
  return [...names];
}

/**
 * Refuses, with UNKNOWN_CODEC, an array whose codecs (`names`, see `codecNames`) are not all in
 * zarrita's registry, before zarrita is asked to read or write it (zarrita keeps a failed
 * lookup for the life of the array object). The package's own codecs get a hint to call
 * registerCodecs().
 */
export function requireRegistered(names: string[]): void {
  for (const name of names) {
    if (!zarr.registry.get(name)) {
      const hint = (CODEC_NAMES as readonly string[]).includes(name)
        ? `${name} is this package's codec, which is not in zarrita's registry: call registerCodecs() (from zarr-wasm-codecs)`
        : `no codec "${name}" in zarrita's registry`;
      throw codedError("UNKNOWN_CODEC", hint);
    }
  }
}

/** A zarrita twin of an array, its codec names, and the registry entries they were looked up from. */
const twins = new WeakMap<object, { twin: Promise<Readable>; names: string[]; entries: unknown[] }>();

/**
 * Runs `read` (zarr.get, say) on a zarrita twin of `arr`, opened from its exact metadata text
 * over the same store with every store failure coded (STORE_FAILED). Codecs are looked up as
 * the read runs: a codec missing from zarrita's registry is refused (UNKNOWN_CODEC) before
 * zarrita tries it, and the twin is opened again whenever the registry's entries for the
 * array's codecs have changed (e.g. registerCodecs() called after open), so neither an earlier
 * failed read nor the order of open and registerCodecs() leaves an array unreadable.
 */
export async function readByZarrita<T>(arr: Readable, read: (twin: Readable) => Promise<T>): Promise<T> {
  const found = await metadataText(arr);
  if (found?.zarrFormat === 2 && roundedFill(found.text)) {
    throw codedError(
      "INEXACT_NUMBER",
      "this zarr v2 array's codecs are read by zarr.get, and zarrita reads .zarray's fill value " +
        "(an integer beyond 2^53) rounded: its missing chunks would read wrong",
    );
  }
  let known = twins.get(arr);
  const names = known?.names ?? codecNames(found?.text);
  requireRegistered(names);
  const entries = names.map((n) => zarr.registry.get(n));
  if (!known || known.entries.some((e, i) => e !== entries[i])) {
    const loc = new zarr.Location(codedStore(arr.store), arr.path);
    const twin = found === undefined ? Promise.resolve(arr) : arrayFromText(loc, found);
    twin.catch(() => twins.delete(arr));
    known = { twin: twin as Promise<Readable>, names, entries };
    twins.set(arr, known);
  }
  return read(await known.twin);
}

/** Whether a zarr v2 metadata text's fill value is an integer JSON.parse rounds (beyond 2^53). */
function roundedFill(text: string): boolean {
  const found = /"fill_value"\s*:\s*(-?\d+)\s*[,}]/.exec(text);
  if (!found) return false;
  const v = BigInt(found[1]);
  return (v < 0n ? -v : v) > 2n ** 53n;
}

/**
 * The registry's description of an opened array's data type (its zarr.json's, or a zarr v2
 * array's `.zarray` dtype as zarr v3 names it), with the fill value conversions.
 */
export function dataTypeOf(arr: zarr.Array<zarr.DataType, zarr.Readable>): Promise<DataType> {
  return naming(arr.path, async () => {
    const found = await metadataText(arr);
    if (!found) throw codedError("INVALID_METADATA", "no zarr.json or .zarray");
    const wasm = await loadWasm();
    const meta = JSON.parse(wasm.exactMetadataJson(found.text)) as { data_type?: unknown };
    const handed = meta.data_type as { name?: string; configuration?: { name?: string } } | null;
    // A registered type, as the wasm was handed it: described under its own name.
    if (handed?.name === "zarr-wasm-codecs.registered") return dataType(handed.configuration?.name ?? null, 3);
    return dataType((meta.data_type ?? null) as never, 3);
  });
}
