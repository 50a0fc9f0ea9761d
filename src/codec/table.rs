//! Every codec this package knows, one row each: its names in zarr v3 and v2 metadata, its
//! kind, and how (and in which wasm module) the package runs it. The chain, the layout's split
//! of a codec list, the order check, the zarr v2 translation and the error messages all read
//! this table; adding a codec is its kernel file and a row here.

/// A bytes -> bytes kernel of the compress module, with what it needs of its configuration
/// (its methods are in [`crate::codec::bytes_to_bytes`], one kernel file each). A row's value
/// holds the configuration's defaults (numcodecs'); `configure` sets what a configuration gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesCodec {
    /// A gzip member (RFC 1952) at this deflate level, 0 to 9.
    Gzip { level: u8 },
    /// A zlib stream (RFC 1950) at this deflate level, 0 to 9.
    Zlib { level: u8 },
    /// A zstd frame at this level (0: the library's default, 3), with or without its checksum.
    Zstd { level: i32, checksum: bool },
    /// numcodecs' lz4: a 4-byte little-endian decoded size, then one lz4 block. (Its
    /// `acceleration` is read and checked; the encoder has one speed.)
    Lz4 { acceleration: i32 },
    /// The blosc 1 container (its header says how it was compressed; the parameters say how
    /// to compress).
    Blosc(BloscParams),
    /// A 32-bit checksum, stored where `Place` says (the row's value: the codec's default).
    Checksum(Checksum, Place),
    /// numcodecs' byte shuffle of elements of this many bytes (its `elementsize`).
    Shuffle(usize),
    /// numcodecs' `delta`, run on a chunk's bytes after `bytes` (see `bytes_to_bytes::delta`).
    Delta(DeltaParams),
    /// numcodecs' `packbits`, run on a bool chunk's bytes after `bytes` (see
    /// `bytes_to_bytes::packbits`).
    PackBits,
    /// numcodecs' `categorize`, run on a unicode chunk's bytes after `bytes` (see
    /// `bytes_to_bytes::categorize`); its labels are the chain's (`BytesChain::labels`).
    Categorize(CategorizeParams),
    /// numcodecs' `bz2` (Python's bz2 module) at this level, 1 to 9.
    Bz2 { level: u8 },
    /// numcodecs' `lzma` (Python's lzma module).
    Lzma(LzmaParams),
    /// imagecodecs' `imagecodecs_lzf`: h5py's LZF filter (HDF5 filter 32000), a liblzf stream,
    /// after its decoded size (4 bytes, little-endian) where `header` is set (imagecodecs'
    /// default). Decoded only.
    Lzf { header: bool },
    /// imagecodecs' `imagecodecs_lz4h5`: the HDF5 LZ4 filter's blocks (HDF5 filter 32004,
    /// hdf5plugin's `LZ4`). Decoded only (its `level`, `hc` and `blocksize` say how to encode).
    Lz4H5,
    /// imagecodecs' `imagecodecs_bz2`: a bzip2 stream, as numcodecs' `bz2` reads it (the HDF5
    /// bzip2 filter's chunks, HDF5 filter 307). Decoded only (its `level` says how to encode).
    ImagecodecsBz2,
}

/// How numcodecs' lzma stores a chunk: its `format`, `check`, `preset` and `filters`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LzmaParams {
    /// FORMAT_XZ (1, numcodecs' default) when true, else FORMAT_ALONE (2) or, with `raw`,
    /// FORMAT_RAW (3).
    pub xz: bool,
    /// An xz stream's check, as Python numbers them: none 0, CRC32 1, CRC64 4 (xz's default,
    /// numcodecs' -1), SHA-256 10.
    pub check: u8,
    /// 0 to 9 (Python's default, 6, where the configuration has none); with a filter chain,
    /// its LZMA2 filter's.
    pub preset: u8,
    /// FORMAT_RAW: a bare LZMA2 stream of the filter chain.
    pub raw: bool,
    /// A filter chain's delta filter's distance (0: none), before its LZMA2 filter.
    pub delta: u16,
    /// A filter chain's LZMA2 dictionary size (0: the preset's).
    pub dict_size: u32,
}

/// numcodecs' `categorize`: items of `lanes` UTF-32 code points stored as codes of `width`
/// bytes (its `astype`: an integer type), big-endian or little.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CategorizeParams {
    pub lanes: u32,
    pub width: u8,
    pub big: bool,
}

/// numcodecs' `delta`: values of `dtype` stored as differences of `astype`, each type in its
/// byte order (as the layout hands it over: `dtype` as `bytes` lays it out, `astype` as
/// stored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaParams {
    pub dtype: DataType,
    pub astype: DataType,
    pub dtype_big: bool,
    pub astype_big: bool,
}

/// How blosc compresses: numcodecs' `Blosc` (zarr v2) and zarr v3's `blosc` configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BloscParams {
    pub cname: BloscCompressor,
    /// 0 (stored uncompressed) to 9.
    pub clevel: u8,
    pub shuffle: BloscShuffle,
    /// The element size the shuffle and the block size work with; 0: the item size of what
    /// the codec receives.
    pub typesize: usize,
    /// The decoded size of each block; 0: as c-blosc chooses it (numcodecs' default).
    pub blocksize: usize,
}

/// The compressor inside a blosc chunk (`cname`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BloscCompressor {
    BloscLz,
    Lz4,
    Lz4Hc,
    Zlib,
    Zstd,
}

impl BloscCompressor {
    pub const ALL: [(&'static str, BloscCompressor); 5] = [
        ("blosclz", BloscCompressor::BloscLz),
        ("lz4", BloscCompressor::Lz4),
        ("lz4hc", BloscCompressor::Lz4Hc),
        ("zlib", BloscCompressor::Zlib),
        ("zstd", BloscCompressor::Zstd),
    ];
}

/// blosc's filter before compression: none, byte shuffle, bit shuffle, or numcodecs'
/// AUTOSHUFFLE (-1: bit shuffle for one-byte elements, byte shuffle otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BloscShuffle {
    None,
    Byte,
    Bit,
    Auto,
}

/// The 32-bit checksums of the checksum codecs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    Crc32c,
    Crc32,
    Adler32,
    /// numcodecs' `fletcher32`: HDF5's Fletcher-32 over big-endian 16-bit words, at the end.
    Fletcher32,
}

/// Where a checksum codec stores the checksum (numcodecs' `location`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Start,
    End,
}

impl BytesCodec {
    /// The module that decodes it (the encode module encodes what the compress module decodes;
    /// the archive module decodes bz2 and lzma and every codec of the compress module, the
    /// archive_encode module encodes them).
    pub fn module(self) -> Module {
        match self {
            BytesCodec::Bz2 { .. } | BytesCodec::Lzma(_) | BytesCodec::ImagecodecsBz2 => {
                Module::Archive
            }
            _ => Module::Compress,
        }
    }

    /// Whether the package encodes it: not the codecs it reads HDF5 archives' chunks with in
    /// place (imagecodecs' names for HDF5 filters), which a write is refused for.
    pub fn encodes(self) -> bool {
        !matches!(
            self,
            BytesCodec::Lzf { .. } | BytesCodec::Lz4H5 | BytesCodec::ImagecodecsBz2
        )
    }

    /// Whether two values run the same kernel (whatever their configurations).
    pub fn same_kernel(self, other: Self) -> bool {
        match (self, other) {
            (BytesCodec::Checksum(a, _), BytesCodec::Checksum(b, _)) => a == b,
            _ => std::mem::discriminant(&self) == std::mem::discriminant(&other),
        }
    }
}

/// The three kinds of zarr v3 codecs, in the order a chain has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    ArrayToArray,
    ArrayToBytes,
    BytesToBytes,
}

/// A wasm module of the package (one crate under `crates/` each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    /// scale_offset, cast_value, bytes: the chain and the tile reader.
    Core,
    /// The bytes -> bytes codecs.
    Compress,
    /// The bytes -> bytes codecs again, with bz2 and lzma (older archives' compressors, loaded
    /// only for chains that have them; the archive_encode module encodes them).
    Archive,
    Zfp,
    Pcodec,
    /// GRIB2 messages (read only).
    Grib,
}

impl Module {
    /// Its name in the layout JSON, which the JavaScript module table is keyed by.
    pub fn name(self) -> &'static str {
        match self {
            Module::Core => "core",
            Module::Compress => "compress",
            Module::Archive => "archive",
            Module::Zfp => "zfp",
            Module::Pcodec => "pcodec",
            Module::Grib => "grib",
        }
    }
}

/// How the package runs a codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// An array -> array codec of the core chain.
    ScaleOffset,
    CastValue,
    /// numcodecs' `bitround`: rounds float mantissas on encode, nothing to undo on decode.
    BitRound,
    /// numcodecs' `quantize`: rounds to a power-of-two fraction, stored as `astype`.
    Quantize,
    /// numcodecs' `fixedscaleoffset` on float32 and float16 arrays (the layout's translation
    /// of the filter; float64's is scale_offset and cast_value).
    FixedScaleOffset,
    /// `transpose`: moves elements only, so the layout reads it as an order of dimensions.
    Transpose,
    /// zarr-extensions' `reshape`: keeps the elements in C order and changes only the shape the
    /// codecs after it see, so the layout reads it as that shape.
    Reshape,
    /// `bytes`: the core chain's array -> bytes codec.
    Bytes,
    /// An array -> bytes codec whose stream is decoded whole in a module of its own, into the
    /// chunk's values as little-endian bytes (which the core then reads as `bytes`).
    WholeChunk(Module),
    /// A bytes -> bytes codec of the compress module (its configured form is built by
    /// [`BytesCodec::configure`]).
    Compress(BytesCodec),
    /// `sharding_indexed`: read by the layout (inner chunks, shard index).
    Sharding,
    /// A codec whose kind is known but which the package does not run: zarrita's registry
    /// runs it (array -> array and array -> bytes ones through `zarr.get`).
    Elsewhere,
}

/// One codec.
#[derive(Debug)]
pub struct CodecRow {
    /// Its name in messages.
    pub name: &'static str,
    /// Its names in zarr v3 metadata; the first is what a zarr v2 id translates to.
    pub v3_names: &'static [&'static str],
    /// Its numcodecs id in a zarr v2 `.zarray` (`compressor` or `filters`), if any.
    pub v2_id: Option<&'static str>,
    pub kind: Kind,
    pub runs: Runs,
    /// The configuration keys a writer may give (checked for the codecs configured from the
    /// table, the bytes -> bytes ones; the others' kernels check their own).
    pub keys: &'static [&'static str],
}

const fn row(
    name: &'static str,
    v3_names: &'static [&'static str],
    v2_id: Option<&'static str>,
    kind: Kind,
    runs: Runs,
    keys: &'static [&'static str],
) -> CodecRow {
    CodecRow {
        name,
        v3_names,
        v2_id,
        kind,
        runs,
        keys,
    }
}

use crate::dtype::DataType;
use Kind::{ArrayToArray as AA, ArrayToBytes as AB, BytesToBytes as BB};

/// Every codec the package knows. For a bytes -> bytes kernel, the row's value is its
/// configuration's default (numcodecs' checksum location, a shuffle's element size: 0 = the
/// item size of what it receives).
#[rustfmt::skip]
pub const CODECS: &[CodecRow] = &[
    // Array -> array.
    row("scale_offset", &["scale_offset"], None, AA, Runs::ScaleOffset, &[]),
    row("cast_value", &["cast_value"], None, AA, Runs::CastValue, &[]),
    row("transpose", &["transpose"], None, AA, Runs::Transpose, &["order"]),
    row("reshape", &["reshape"], None, AA, Runs::Reshape, &["shape"]),
    row("bitround", &["numcodecs.bitround", "bitround"], Some("bitround"), AA, Runs::BitRound, &["keepbits"]),
    // Array -> array, but run on bytes in the compress module (the layout moves them after `bytes`).
    row("delta", &["numcodecs.delta", "delta"], Some("delta"), AA, Runs::Compress(BytesCodec::Delta(DeltaParams {
        dtype: DataType::Float64, astype: DataType::Float64, dtype_big: false, astype_big: false })), &["dtype", "astype"]),
    row("packbits", &["numcodecs.packbits", "packbits"], Some("packbits"), AA, Runs::Compress(BytesCodec::PackBits), &[]),
    // (zarr-python writes it for zarr v2 arrays only; the v3 name is the v2 filter's here.)
    row("categorize", &["numcodecs.categorize"], Some("categorize"), AA, Runs::Compress(BytesCodec::Categorize(
        CategorizeParams { lanes: 0, width: 1, big: false })), &["labels", "dtype", "astype"]),
    row("fixedscaleoffset", &["numcodecs.fixedscaleoffset"], Some("fixedscaleoffset"), AA, Runs::FixedScaleOffset, &[]),
    row("astype", &["numcodecs.astype"], Some("astype"), AA, Runs::Elsewhere, &[]),
    row("quantize", &["numcodecs.quantize"], Some("quantize"), AA, Runs::Quantize, &["digits", "dtype", "astype"]),
    // Array -> bytes.
    row("bytes", &["bytes"], None, AB, Runs::Bytes, &["endian"]),
    row("zfp", &["zfp"], None, AB, Runs::WholeChunk(Module::Zfp), &[]),
    row("pcodec", &["numcodecs.pcodec"], Some("pcodec"), AB, Runs::WholeChunk(Module::Pcodec), &[]),
    // GRIB2 messages read in place (decoded only): kerchunk's codec (a zarr v2 filter that
    // takes the message's bytes; the same name in v3) and gribberish's.
    row("grib", &["grib", "numcodecs.grib"], Some("grib"), AB, Runs::WholeChunk(Module::Grib), &[]),
    row("gribberish", &["gribberish"], None, AB, Runs::WholeChunk(Module::Grib), &[]),
    row("sharding_indexed", &["sharding_indexed"], None, AB, Runs::Sharding, &[]),
    row("zfpy", &["numcodecs.zfpy"], Some("zfpy"), AB, Runs::WholeChunk(Module::Zfp), &[]),
    row("vlen-utf8", &["vlen-utf8"], None, AB, Runs::Elsewhere, &[]),
    row("vlen-bytes", &["vlen-bytes"], None, AB, Runs::Elsewhere, &[]),
    row("json2", &["json2"], None, AB, Runs::Elsewhere, &[]),
    // Bytes -> bytes.
    row("gzip", &["gzip", "numcodecs.gzip"], Some("gzip"), BB, Runs::Compress(BytesCodec::Gzip { level: 1 }), &["level"]),
    row("zlib", &["numcodecs.zlib", "zlib"], Some("zlib"), BB, Runs::Compress(BytesCodec::Zlib { level: 1 }), &["level"]),
    row("zstd", &["zstd", "numcodecs.zstd"], Some("zstd"), BB, Runs::Compress(BytesCodec::Zstd { level: 0, checksum: false }), &["level", "checksum"]),
    row("lz4", &["numcodecs.lz4", "lz4"], Some("lz4"), BB, Runs::Compress(BytesCodec::Lz4 { acceleration: 1 }), &["acceleration"]),
    row("blosc", &["blosc", "numcodecs.blosc"], Some("blosc"), BB, Runs::Compress(BytesCodec::Blosc(BloscParams {
        cname: BloscCompressor::Lz4, clevel: 5, shuffle: BloscShuffle::Byte, typesize: 0, blocksize: 0 })),
        &["cname", "clevel", "shuffle", "typesize", "blocksize"]),
    row("crc32c", &["crc32c", "numcodecs.crc32c"], Some("crc32c"), BB,
        Runs::Compress(BytesCodec::Checksum(Checksum::Crc32c, Place::End)), &["location"]),
    row("crc32", &["numcodecs.crc32"], Some("crc32"), BB,
        Runs::Compress(BytesCodec::Checksum(Checksum::Crc32, Place::Start)), &["location"]),
    row("adler32", &["numcodecs.adler32"], Some("adler32"), BB,
        Runs::Compress(BytesCodec::Checksum(Checksum::Adler32, Place::Start)), &["location"]),
    row("shuffle", &["numcodecs.shuffle"], Some("shuffle"), BB, Runs::Compress(BytesCodec::Shuffle(0)), &["elementsize"]),
    row("bz2", &["numcodecs.bz2"], Some("bz2"), BB, Runs::Compress(BytesCodec::Bz2 { level: 1 }), &["level"]),
    row("lzma", &["numcodecs.lzma"], Some("lzma"), BB, Runs::Compress(BytesCodec::Lzma(LzmaParams {
        xz: true, check: 4, preset: 6, raw: false, delta: 0, dict_size: 0 })), &["format", "check", "preset", "filters"]),
    row("fletcher32", &["numcodecs.fletcher32"], Some("fletcher32"), BB,
        Runs::Compress(BytesCodec::Checksum(Checksum::Fletcher32, Place::End)), &[]),
    // HDF5 filters as VirtualiZarr names them (imagecodecs' codecs), for netCDF4/HDF5 files
    // read in place through references; decoded only. v3: imagecodecs' own zarr codecs'
    // names, and the `numcodecs.` prefix VirtualiZarr gives a numcodecs id.
    row("imagecodecs_lzf", &["imagecodecs_lzf", "numcodecs.imagecodecs_lzf"], Some("imagecodecs_lzf"), BB,
        Runs::Compress(BytesCodec::Lzf { header: true }), &["header"]),
    row("imagecodecs_lz4h5", &["imagecodecs_lz4h5", "numcodecs.imagecodecs_lz4h5"], Some("imagecodecs_lz4h5"), BB,
        Runs::Compress(BytesCodec::Lz4H5), &["level", "hc", "blocksize"]),
    row("imagecodecs_bz2", &["imagecodecs_bz2", "numcodecs.imagecodecs_bz2"], Some("imagecodecs_bz2"), BB,
        Runs::Compress(BytesCodec::ImagecodecsBz2), &["level"]),
];

/// The row of a zarr v3 codec name.
pub fn by_v3_name(name: &str) -> Option<&'static CodecRow> {
    CODECS.iter().find(|r| r.v3_names.contains(&name))
}

/// The row of a numcodecs id (zarr v2).
pub fn by_v2_id(id: &str) -> Option<&'static CodecRow> {
    CODECS.iter().find(|r| r.v2_id == Some(id))
}

/// The row that runs a bytes -> bytes kernel.
pub fn of_bytes_codec(codec: BytesCodec) -> &'static CodecRow {
    CODECS
        .iter()
        .find(|r| matches!(r.runs, Runs::Compress(c) if c.same_kernel(codec)))
        .expect("every bytes -> bytes kernel has a row")
}

/// The kind of a zarr v3 codec name, where the table knows it.
pub fn kind_of(name: &str) -> Option<Kind> {
    by_v3_name(name).map(|r| r.kind)
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::ArrayToArray => "array_to_array",
            Kind::ArrayToBytes => "array_to_bytes",
            Kind::BytesToBytes => "bytes_to_bytes",
        }
    }
}

/// How `registerCodecs` puts a codec into zarrita's registry: as the package's array -> array
/// codec, as its whole-chunk module's codec, as zarrita's own codec decoding in the compress
/// module; or not at all.
fn zarrita(r: &CodecRow) -> Option<&'static str> {
    match r.runs {
        Runs::ScaleOffset | Runs::CastValue => Some("array_to_array"),
        Runs::WholeChunk(_) => Some("whole_chunk"),
        Runs::Compress(_) => Some("compress"),
        _ => None,
    }
}

/// The table as JSON, for the JavaScript side (scripts/build.mjs writes it into the package as
/// `wasm/tables.js`, through examples/tables.rs): each row's names, kind, the module that runs
/// it (null for a codec zarrita's registry runs, or the layout reads). `registerCodecs` and the zarr.get
/// wrappers take their names from it.
pub fn to_json() -> crate::json::Value {
    use crate::json::Value;
    let module = |r: &CodecRow| match r.runs {
        Runs::ScaleOffset
        | Runs::CastValue
        | Runs::BitRound
        | Runs::Quantize
        | Runs::FixedScaleOffset
        | Runs::Bytes
        | Runs::Transpose
        | Runs::Reshape => Some(Module::Core),
        Runs::WholeChunk(m) => Some(m),
        Runs::Compress(c) => Some(c.module()),
        Runs::Sharding | Runs::Elsewhere => None,
    };
    Value::Array(
        CODECS
            .iter()
            .map(|r| {
                Value::object([
                    ("name", Value::from(r.name)),
                    (
                        "v3_names",
                        Value::Array(r.v3_names.iter().map(|&n| Value::from(n)).collect()),
                    ),
                    ("v2_id", r.v2_id.map_or(Value::Null, Value::from)),
                    ("kind", Value::from(r.kind.name())),
                    (
                        "module",
                        module(r).map_or(Value::Null, |m| Value::from(m.name())),
                    ),
                    ("zarrita", zarrita(r).map_or(Value::Null, Value::from)),
                ])
            })
            .collect(),
    )
}

/// The tables the JavaScript side takes from the library, as JSON: the codec table
/// ([`to_json`]) and, for each data type, the typed array a read returns
/// (`DataType::typed_arrays`) and its item size. Committed as js/tables.json (written by
/// `cargo run --example tables`), which scripts/build.mjs puts into the package; tests/tables.rs
/// holds the file to this.
pub fn javascript_tables() -> crate::json::Value {
    use crate::json::{Map, Value};
    let mut data_types = Map::new();
    let mut sizes = Map::new();
    for dt in crate::dtype::ALL_DATA_TYPES {
        data_types.insert(dt.name().to_string(), Value::from(dt.typed_arrays()[0]));
        sizes.insert(dt.name().to_string(), Value::from(dt.size() as u64));
    }
    Value::object([
        ("codecs", to_json()),
        ("data_types", Value::Object(data_types)),
        ("data_type_sizes", Value::Object(sizes)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids_are_unique() {
        let mut names: Vec<&str> = CODECS
            .iter()
            .flat_map(|r| r.v3_names.iter().copied())
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a v3 name is in two rows");
        let mut ids: Vec<&str> = CODECS.iter().filter_map(|r| r.v2_id).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "a v2 id is in two rows");
    }

    #[test]
    fn every_bytes_kernel_has_its_row() {
        for r in CODECS {
            if let Runs::Compress(c) = r.runs {
                assert_eq!(of_bytes_codec(c).name, r.name);
                // (delta takes values, but the layout runs it on the bytes `bytes` lays out.)
                let kind = match c {
                    BytesCodec::Delta(_) | BytesCodec::PackBits | BytesCodec::Categorize(_) => {
                        Kind::ArrayToArray
                    }
                    _ => Kind::BytesToBytes,
                };
                assert_eq!(r.kind, kind);
            }
        }
    }
}
