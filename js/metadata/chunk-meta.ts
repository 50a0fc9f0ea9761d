// What a registry codec receives, whichever zarrita builds it. zarrita 0.7 hands each codec the
// chunk's representation as the codecs before it leave it (`{ dataType, shape, codecs,
// fillValue }`, each array -> array codec's `getEncodedMeta` applied); zarrita 0.6 and
// fizarrita's workers hand every codec the array's own (`{ data_type, shape, codecs }`), so
// what a codec after a `cast_value` receives is worked out here from the codecs before it.

/** A chunk's representation, as a codec receives it. */
export interface ChunkMeta {
  dataType: string;
  shape: number[];
  codecs: { name: string; configuration?: unknown }[];
  fillValue?: unknown;
}

/** numpy's dtype strings (numcodecs filters' `astype`) as zarr's names. */
const NUMPY = /^[<>|=]?([iuf])(\d)$/;
const KINDS: Record<string, string> = { i: "int", u: "uint", f: "float" };

/** The data type a codec's output has, given its input's. */
function typeAfter(codec: { name: string; configuration?: unknown }, dataType: string): string {
  const config = (codec.configuration ?? {}) as { data_type?: unknown; astype?: unknown };
  if (codec.name === "cast_value" && typeof config.data_type === "string") return config.data_type;
  if (codec.name === "numcodecs.packbits") return "uint8";
  const m = typeof config.astype === "string" ? NUMPY.exec(config.astype) : null;
  return m ? `${KINDS[m[1]]}${Number(m[2]) * 8}` : dataType;
}

/**
 * `meta` as the codec `name` (of configuration `config`) receives it: as given by zarrita 0.7;
 * from zarrita 0.6's and fizarrita's array representation, with the data type the array ->
 * array codecs before this one leave (zarrita 0.6 passes no fill value: none here either).
 */
export function chunkMetaOf(meta: unknown, name: string, config: unknown): ChunkMeta {
  const given = meta as ChunkMeta & { data_type?: string; chunk_shape?: number[]; fill_value?: unknown };
  if (typeof given.dataType === "string") return given;
  const codecs = given.codecs ?? [];
  let at = codecs.findIndex((c) => c.configuration === config && c.name === name);
  if (at < 0) at = codecs.findIndex((c) => c.name === name);
  let dataType = given.data_type ?? "";
  for (let i = 0; i < at; i++) dataType = typeAfter(codecs[i], dataType);
  return { dataType, shape: given.shape ?? given.chunk_shape ?? [], codecs, fillValue: given.fill_value };
}

/** A zarrita 0.6 representation (`data_type`) with the data type `name` receives, for zarrita's own codecs there (its `bytes`). */
export function receivedByZarrita06(meta: unknown, name: string, config: unknown): unknown {
  const given = meta as { dataType?: unknown; data_type?: unknown };
  if (typeof given.dataType === "string" || typeof given.data_type !== "string") return meta;
  return { ...given, data_type: chunkMetaOf(meta, name, config).dataType };
}
