//! The bytes -> bytes stage of a chunk's codec chain: decompressors and checksums, decoding
//! the stored bytes of one chunk (or shard index) into the bytes the array -> bytes codec reads.
//!
//! Each codec is one kernel file here and one row of the codec table
//! ([`crate::codec::table::CODECS`]), which gives its names and configuration keys. Decoding
//! is told the size the chunk must decode to where it is known, so that a header declaring
//! another size is refused before anything is allocated for it.

// The zstd module's build (zstd alone) reads no other codec's configuration: what only those
// need is unused there.
#![cfg_attr(
    all(feature = "zstd", not(feature = "compress")),
    allow(dead_code, unused)
)]

// The kernels; the table and the chain's reading are there without them (the core module
// reads layouts with the table, the compress module decodes).
#[cfg(feature = "compress")]
pub mod blosc;
#[cfg(feature = "compress")]
mod blosclz;
#[cfg(feature = "archive")]
pub mod bz2;
// (Its labels are read wherever a chain is: the core module reads layouts with them.)
pub mod categorize;
#[cfg(feature = "compress")]
pub mod checksum32;
#[cfg(feature = "compress")]
pub mod deflate;
#[cfg(feature = "compress")]
pub mod delta;
#[cfg(feature = "compress")]
pub mod lz4;
#[cfg(feature = "compress")]
pub mod lz4h5;
#[cfg(feature = "compress")]
pub mod lzf;
#[cfg(feature = "archive")]
pub mod lzma;
#[cfg(feature = "compress")]
pub mod packbits;
#[cfg(feature = "compress")]
mod shuffle;
#[cfg(feature = "zstd")]
pub mod zstd;

use super::table::{self, CodecRow, Runs};
pub use super::table::{
    BloscCompressor, BloscParams, BloscShuffle, BytesCodec, CategorizeParams, Checksum,
    DeltaParams, LzmaParams, Place,
};
use crate::dtype::DataType;
use crate::error::{quoted, Error, Result};
use crate::json::Value;

impl BytesCodec {
    pub fn entry(self) -> &'static CodecRow {
        table::of_bytes_codec(self)
    }

    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The codec a zarr v3 name stands for, as its row has it (unconfigured).
    pub fn from_v3_name(name: &str) -> Option<Self> {
        match table::by_v3_name(name)?.runs {
            Runs::Compress(c) => Some(c),
            _ => None,
        }
    }

    /// The codec a numcodecs id (zarr v2) stands for, as its row has it (unconfigured).
    pub fn from_v2_id(id: &str) -> Option<Self> {
        match table::by_v2_id(id)?.runs {
            Runs::Compress(c) => Some(c),
            _ => None,
        }
    }

    /// The codec as a configuration sets it (v3 `configuration`, or a v2 codec object less
    /// its `id`), for data whose elements have `item_size` bytes (what it receives: numcodecs'
    /// shuffle takes its element size from that when its configuration has none, as
    /// zarr-python's does).
    pub fn configure(self, config: Option<&Value>, item_size: usize) -> Result<Self> {
        let entry = self.entry();
        let map = match config {
            None | Some(Value::Null) => None,
            Some(Value::Object(map)) => Some(map),
            Some(other) => {
                return Err(Error::config(
                    entry.name,
                    format!("the configuration must be an object, got {other}"),
                ))
            }
        };
        for key in map.into_iter().flat_map(|m| m.keys()) {
            if !entry.keys.contains(&key.as_str()) {
                return Err(Error::config(
                    entry.name,
                    format!("unknown key {}", quoted(key)),
                ));
            }
        }
        let given = |key: &str| map.and_then(|m| m.get(key)).filter(|v| **v != Value::Null);
        // The zstd module reads zstd's configuration alone.
        #[cfg(all(feature = "zstd", not(feature = "compress")))]
        return match self {
            BytesCodec::Zstd { level, checksum } => {
                zstd_configured(entry.name, level, checksum, &given)
            }
            _ => Err(self.elsewhere()),
        };
        #[cfg(not(all(feature = "zstd", not(feature = "compress"))))]
        Ok(match self {
            BytesCodec::Checksum(sum, default) => {
                let place = match given("location") {
                    None => default,
                    Some(v) if v.as_str() == Some("start") => Place::Start,
                    Some(v) if v.as_str() == Some("end") => Place::End,
                    Some(v) => {
                        return Err(Error::config(
                            entry.name,
                            format!("location must be \"start\" or \"end\", got {v}"),
                        ))
                    }
                };
                BytesCodec::Checksum(sum, place)
            }
            BytesCodec::Shuffle(_) => {
                let size = match given("elementsize") {
                    None => item_size,
                    Some(v) => v
                        .as_u64()
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(|| {
                            Error::config(
                                entry.name,
                                format!("elementsize must be a non-negative integer, got {v}"),
                            )
                        })?,
                };
                BytesCodec::Shuffle(size)
            }
            BytesCodec::Gzip { level } => BytesCodec::Gzip {
                level: int_in(entry.name, "level", given("level"), 0, 9)?.unwrap_or(level.into())
                    as u8,
            },
            BytesCodec::Zlib { level } => BytesCodec::Zlib {
                level: int_in(entry.name, "level", given("level"), 0, 9)?.unwrap_or(level.into())
                    as u8,
            },
            BytesCodec::Zstd { level, checksum } => {
                zstd_configured(entry.name, level, checksum, &given)?
            }
            BytesCodec::Lz4 { acceleration } => BytesCodec::Lz4 {
                acceleration: int_in(
                    entry.name,
                    "acceleration",
                    given("acceleration"),
                    i32::MIN.into(),
                    i32::MAX.into(),
                )?
                .map_or(acceleration, |n| n as i32),
            },
            BytesCodec::Delta(_) => {
                let numeric = |key: &str| -> Result<(DataType, bool)> {
                    let text = given(key).and_then(Value::as_str).unwrap_or("");
                    DataType::from_numpy(text).ok_or_else(|| {
                        Error::config(
                            entry.name,
                            format!(
                                "{key} must be a numeric numpy dtype string, got {}",
                                quoted(text)
                            ),
                        )
                    })
                };
                let (dtype, dtype_big) = numeric("dtype")?;
                let (astype, astype_big) = match given("astype") {
                    None => (dtype, dtype_big),
                    Some(_) => numeric("astype")?,
                };
                if astype.is_float() && !dtype.is_float() {
                    return Err(Error::config(
                        entry.name,
                        "float differences of an integer dtype are not read",
                    ));
                }
                BytesCodec::Delta(DeltaParams {
                    dtype,
                    astype,
                    dtype_big,
                    astype_big,
                })
            }
            BytesCodec::PackBits => BytesCodec::PackBits,
            BytesCodec::Categorize(_) => {
                // `dtype`: the items' (numpy's `<U` / `>U` and a length: code points an item);
                // `astype`: the codes' integer type. The labels are the chain's.
                let text = |key: &str| given(key).and_then(Value::as_str).unwrap_or("");
                let dtype = text("dtype");
                // numpy's `<U8` / `>U8` / `|U8` / `=U8` (read here rather than through the
                // data type registry, which would come into the compress module with it).
                let lanes = dtype
                    .strip_prefix(['<', '>', '|', '='])
                    .and_then(|rest| rest.strip_prefix('U'))
                    .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or(0);
                if lanes == 0 {
                    return Err(Error::config(
                        entry.name,
                        format!(
                            "dtype must be a fixed-length unicode type (<U and a length), got {}",
                            quoted(dtype)
                        ),
                    ));
                }
                let astype = text("astype");
                let (code, big) = DataType::from_numpy(astype)
                    .filter(|(t, _)| !t.is_float())
                    .ok_or_else(|| {
                        Error::config(
                            entry.name,
                            format!("astype must be an integer type, got {}", quoted(astype)),
                        )
                    })?;
                BytesCodec::Categorize(CategorizeParams {
                    lanes,
                    width: code.size() as u8,
                    big,
                })
            }
            BytesCodec::Bz2 { level } => BytesCodec::Bz2 {
                level: int_in(entry.name, "level", given("level"), 1, 9)?.unwrap_or(level.into())
                    as u8,
            },
            BytesCodec::Lzma(p) => BytesCodec::Lzma(lzma_params(entry.name, p, &given)?),
            BytesCodec::Lzf { header } => BytesCodec::Lzf {
                header: bool_of(entry.name, "header", given("header"))?.unwrap_or(header),
            },
            BytesCodec::Lz4H5 => {
                // (How to encode: checked as imagecodecs reads them, unused in decoding.)
                int_in(
                    entry.name,
                    "level",
                    given("level"),
                    i32::MIN.into(),
                    i32::MAX.into(),
                )?;
                bool_of(entry.name, "hc", given("hc"))?;
                // (LZ4_MAX_INPUT_SIZE.)
                int_in(entry.name, "blocksize", given("blocksize"), 1, 0x7E00_0000)?;
                BytesCodec::Lz4H5
            }
            BytesCodec::ImagecodecsBz2 => {
                // (imagecodecs clamps the level to 1 to 9; unused in decoding.)
                int_in(
                    entry.name,
                    "level",
                    given("level"),
                    i32::MIN.into(),
                    i32::MAX.into(),
                )?;
                BytesCodec::ImagecodecsBz2
            }
            BytesCodec::Blosc(p) => {
                let mut p = blosc_params(entry.name, p, &given)?;
                // zarr-python's blosc takes the type size of what it receives.
                if p.typesize == 0 {
                    p.typesize = item_size.max(1);
                }
                BytesCodec::Blosc(p)
            }
        })
    }

    /// A numcodecs (zarr v2) configuration with numcodecs' defaults written out where a zarr
    /// v3 reader's differ: numcodecs' `Shuffle()` has element size 4, where zarr-python's v3
    /// codec takes the size of what it receives.
    pub fn numcodecs_defaults(self, mut config: crate::json::Map) -> crate::json::Map {
        if let BytesCodec::Shuffle(_) = self {
            if config.get("elementsize").is_none_or(|v| *v == Value::Null) {
                config.insert("elementsize".into(), Value::from(4u64));
            }
        }
        config
    }

    /// The decoded size for an encoded one, where the codec fixes it (a checksum's 4 bytes).
    #[cfg(feature = "zstd")]
    fn decoded_size(self, encoded: usize) -> Option<usize> {
        match self {
            BytesCodec::Checksum(..) => encoded.checked_sub(4),
            BytesCodec::Shuffle(_) => Some(encoded),
            BytesCodec::Delta(p) => (encoded / p.astype.size()).checked_mul(p.dtype.size()),
            BytesCodec::Categorize(p) => {
                (encoded / usize::from(p.width)).checked_mul(p.lanes as usize * 4)
            }
            _ => None,
        }
    }

    /// The encoded size for a decoded one, where the codec fixes it.
    fn encoded_size(self, decoded: usize) -> Option<usize> {
        match self {
            BytesCodec::Checksum(..) => decoded.checked_add(4),
            BytesCodec::Shuffle(_) => Some(decoded),
            BytesCodec::Delta(p) => (decoded / p.dtype.size()).checked_mul(p.astype.size()),
            BytesCodec::PackBits => Some(1 + decoded.div_ceil(8)),
            BytesCodec::Categorize(p) => {
                (decoded / (p.lanes as usize * 4)).checked_mul(usize::from(p.width))
            }
            _ => None,
        }
    }

    /// The error of a write that needs a codec the package decodes only (see
    /// [`BytesCodec::encodes`]).
    #[cfg(feature = "compress")]
    fn decoded_only(self) -> Error {
        Error::Unsupported {
            message: format!(
                "{} is decoded, not encoded: the package reads HDF5 archives' chunks with it in \
                 place, and does not write it",
                self.name()
            ),
        }
    }

    /// The error of a build without this codec's kernel (the archive module's codecs in the
    /// compress and encode modules: the JavaScript side loads the module of the codec's row).
    #[cfg(all(feature = "zstd", not(feature = "archive")))]
    fn elsewhere(self) -> Error {
        Error::Unsupported {
            message: format!(
                "{} runs in the {} module, not this one",
                self.name(),
                self.module().name()
            ),
        }
    }

    /// Encodes `input`.
    #[cfg(feature = "compress")]
    pub fn encode(self, input: &[u8]) -> Result<Vec<u8>> {
        match self {
            BytesCodec::Gzip { level } => Ok(deflate::gzip(input, level)),
            BytesCodec::Zlib { level } => Ok(deflate::zlib(input, level)),
            BytesCodec::Zstd { level, checksum } => zstd::encode(input, level, checksum),
            BytesCodec::Lz4 { .. } => lz4::encode_numcodecs(input),
            BytesCodec::Blosc(p) => blosc::encode(input, p),
            BytesCodec::Checksum(sum, place) => Ok(checksum32::append(sum, place, input)),
            BytesCodec::Shuffle(size) => shuffle::numcodecs_shuffle(size, input),
            BytesCodec::Delta(p) => delta::encode(p, input),
            BytesCodec::PackBits => Ok(packbits::encode(input)),
            BytesCodec::Categorize(_) => Err(Error::Unsupported {
                message: "categorize encodes with its chain's labels (BytesChain)".into(),
            }),
            #[cfg(feature = "archive")]
            BytesCodec::Bz2 { level } => bz2::encode(input, level),
            #[cfg(feature = "archive")]
            BytesCodec::Lzma(p) => lzma::encode(input, p),
            #[cfg(not(feature = "archive"))]
            BytesCodec::Bz2 { .. } | BytesCodec::Lzma(_) => Err(self.elsewhere()),
            BytesCodec::Lzf { .. } | BytesCodec::Lz4H5 | BytesCodec::ImagecodecsBz2 => {
                Err(self.decoded_only())
            }
        }
    }

    /// Decodes `input`. `expected`: the size the output must have, where it is known; without
    /// it the output may not exceed `limit` bytes.
    #[cfg(feature = "zstd")]
    pub fn decode(self, input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
        let out = match self {
            BytesCodec::Zstd { .. } => zstd::decode(input, expected, limit)?,
            #[cfg(feature = "compress")]
            BytesCodec::Gzip { .. } => deflate::gunzip(input, expected, limit)?,
            #[cfg(feature = "compress")]
            BytesCodec::Zlib { .. } => deflate::unzlib(input, expected, limit)?,
            #[cfg(feature = "compress")]
            BytesCodec::Lz4 { .. } => lz4::decode_numcodecs(input, expected, limit)?,
            #[cfg(feature = "compress")]
            BytesCodec::Blosc(_) => blosc::decode(input, expected, limit)?,
            #[cfg(feature = "compress")]
            BytesCodec::Checksum(sum, place) => {
                checksum32::strip(sum, place, input, self.name())?.to_vec()
            }
            #[cfg(feature = "compress")]
            BytesCodec::Shuffle(size) => shuffle::numcodecs_unshuffle(size, input)?,
            #[cfg(feature = "compress")]
            BytesCodec::Delta(p) => delta::decode(p, input)?,
            #[cfg(feature = "compress")]
            BytesCodec::PackBits => packbits::decode(input)?,
            BytesCodec::Categorize(_) => {
                return Err(Error::Unsupported {
                    message: "categorize decodes with its chain's labels (BytesChain)".into(),
                })
            }
            #[cfg(feature = "compress")]
            BytesCodec::Lzf { header } => lzf::decode(input, header, expected, limit)?,
            #[cfg(feature = "compress")]
            BytesCodec::Lz4H5 => lz4h5::decode(input, expected, limit)?,
            #[cfg(feature = "archive")]
            BytesCodec::Bz2 { .. } => bz2::decode(input, bz2::NAME, expected, limit)?,
            #[cfg(feature = "archive")]
            BytesCodec::ImagecodecsBz2 => bz2::decode(input, self.name(), expected, limit)?,
            #[cfg(feature = "archive")]
            BytesCodec::Lzma(p) => lzma::decode(input, p, expected, limit)?,
            #[cfg(not(feature = "archive"))]
            BytesCodec::Bz2 { .. } | BytesCodec::Lzma(_) | BytesCodec::ImagecodecsBz2 => {
                return Err(self.elsewhere())
            }
            // The zstd module decodes zstd alone: the JavaScript side loads it only for
            // chains of that one codec (js/modules.ts).
            #[cfg(not(feature = "compress"))]
            _ => return Err(self.elsewhere()),
        };
        of_size(out, expected)
    }
}

/// A codec's output, where it must have the `expected` size (CHUNK_LENGTH otherwise).
#[cfg(feature = "zstd")]
fn of_size(out: Vec<u8>, expected: Option<usize>) -> Result<Vec<u8>> {
    match expected {
        Some(n) if out.len() != n => Err(Error::ChunkLength {
            what: "bytes after decompression",
            expected: n,
            actual: out.len(),
        }),
        _ => Ok(out),
    }
}

/// zstd's configuration: `level` in zstd's own range, `checksum` a boolean (the row's defaults
/// where absent).
fn zstd_configured<'a>(
    name: &'static str,
    level: i32,
    checksum: bool,
    given: &impl Fn(&str) -> Option<&'a Value>,
) -> Result<BytesCodec> {
    Ok(BytesCodec::Zstd {
        // zstd's own range (ZSTD_minCLevel() is -(1 << 17)).
        level: int_in(name, "level", given("level"), -(1 << 17), 22)?.map_or(level, |n| n as i32),
        checksum: match given("checksum") {
            None => checksum,
            Some(Value::Bool(b)) => *b,
            Some(v) => {
                return Err(Error::config(
                    name,
                    format!("checksum must be true or false, got {v}"),
                ))
            }
        },
    })
}

/// A boolean configuration value, if given.
fn bool_of(codec: &'static str, key: &str, v: Option<&Value>) -> Result<Option<bool>> {
    match v {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(Error::config(
            codec,
            format!("{key} must be true or false, got {v}"),
        )),
    }
}

/// An integer configuration value in `[min, max]`, if given.
fn int_in(
    codec: &'static str,
    key: &str,
    v: Option<&Value>,
    min: i64,
    max: i64,
) -> Result<Option<i64>> {
    match v {
        None => Ok(None),
        Some(v) => match v.as_i64() {
            Some(n) if (min..=max).contains(&n) => Ok(Some(n)),
            _ => Err(Error::config(
                codec,
                format!("{key} must be an integer from {min} to {max}, got {v}"),
            )),
        },
    }
}

/// numcodecs' lzma configuration (`format`, `check`, `preset`, `filters`) over the defaults
/// in `p`: the formats numcodecs writes by default and on request (xz, alone) with Python's
/// checks and presets 0 to 9; FORMAT_RAW, a filter chain and PRESET_EXTREME are refused as
/// unsupported, anything else as invalid.
fn lzma_params<'a>(
    codec: &'static str,
    mut p: LzmaParams,
    given: &dyn Fn(&str) -> Option<&'a Value>,
) -> Result<LzmaParams> {
    let unsupported = |what: String| Error::Unsupported {
        message: format!(
            "lzma: {what} is not read (the formats read are xz, alone and raw, with filters \
             [delta,] lzma2)"
        ),
    };
    match int_in(codec, "format", given("format"), 0, 3)? {
        None | Some(1) => p.xz = true,
        Some(2) => p.xz = false,
        Some(3) => {
            p.xz = false;
            p.raw = true;
        }
        _ => {
            return Err(unsupported(
                "format 0 (FORMAT_AUTO, which numcodecs cannot write)".into(),
            ))
        }
    }
    let filters = given("filters");
    match (int_in(codec, "check", given("check"), -1, 10)?, p.xz) {
        (None | Some(-1), true) => p.check = 4,
        (Some(c @ (0 | 1 | 4 | 10)), true) => p.check = c as u8,
        (None | Some(-1), false) => {}
        (Some(c), _) => {
            return Err(Error::config(
                codec,
                format!("check {c} is not one of xz's (-1, 0, 1, 4, 10), or the format is not xz"),
            ))
        }
    }
    if let Some(v) = given("preset") {
        if filters.is_some() {
            // (Python's lzma takes one or the other.)
            return Err(Error::config(codec, "preset and filters are both given"));
        }
        p.preset = lzma_preset(codec, v)?;
    }
    match filters {
        None if p.raw => Err(Error::config(codec, "format 3 (FORMAT_RAW) needs filters")),
        None => Ok(p),
        // (Python's lzma decodes filter chains in FORMAT_RAW alone: numcodecs cannot read
        // an xz or .lzma stream it wrote with filters.)
        Some(_) if !p.raw => Err(Error::config(
            codec,
            "filters are given with a format other than 3 (FORMAT_RAW), which numcodecs cannot \
             decode",
        )),
        Some(list) => lzma_filters(codec, p, list),
    }
}

/// An lzma preset: 0 to 9, with or without PRESET_EXTREME (2^31), which changes how hard the
/// encoder searches, not the format: a stream of either is read alike, and this package's
/// encoder (another than liblzma's, see `lzma::encode`) writes the preset's level.
fn lzma_preset(codec: &'static str, v: &Value) -> Result<u8> {
    const EXTREME: i64 = 1 << 31;
    match v.as_i64() {
        Some(n) if (0..=9).contains(&(n & !EXTREME)) => Ok((n & !EXTREME) as u8),
        _ => Err(Error::config(
            codec,
            format!("preset must be 0 to 9 (with PRESET_EXTREME or not), got {v}"),
        )),
    }
}

/// Python's lzma filter chain (each filter a dict with its numeric `id`): an optional delta
/// filter (FILTER_DELTA, 3: `dist` 1 to 256) then an LZMA2 filter (FILTER_LZMA2, 33: a
/// `preset`, a `dict_size`, and settings the decoder reads from the stream). Other filters
/// (the branch converters, LZMA1) are refused.
fn lzma_filters(codec: &'static str, mut p: LzmaParams, list: &Value) -> Result<LzmaParams> {
    let bad = |what: String| Error::config(codec, format!("filters: {what}"));
    let items = list
        .as_array()
        .filter(|l| !l.is_empty())
        .ok_or_else(|| bad(format!("a list of filters, got {list}")))?;
    let (last, before) = items.split_last().unwrap_or((&Value::Null, &[]));
    let id = |f: &Value| f.get("id").and_then(Value::as_u64);
    for f in before {
        match id(f) {
            Some(3) if p.delta == 0 => {
                if let Some(key) = f
                    .as_object()
                    .and_then(|m| m.keys().find(|k| *k != "id" && *k != "dist"))
                {
                    return Err(bad(format!("the delta filter has no key {}", quoted(key))));
                }
                p.delta = match f.get("dist") {
                    None => 1,
                    Some(v) => v
                        .as_u64()
                        .filter(|d| (1..=256).contains(d))
                        .ok_or_else(|| bad(format!("delta's dist must be 1 to 256, got {v}")))?
                        as u16,
                };
            }
            _ => {
                return Err(Error::Unsupported {
                    message: format!(
                        "lzma: the filter {f} is not read (a delta filter, then LZMA2, is)"
                    ),
                })
            }
        }
    }
    if id(last) != Some(33) {
        return Err(Error::Unsupported {
            message: format!("lzma: a filter chain ending in {last} is not read (LZMA2 is)"),
        });
    }
    const LZMA2_KEYS: [&str; 10] = [
        "id",
        "preset",
        "dict_size",
        "lc",
        "lp",
        "pb",
        "mode",
        "nice_len",
        "mf",
        "depth",
    ];
    if let Some(key) = last
        .as_object()
        .and_then(|m| m.keys().find(|k| !LZMA2_KEYS.contains(&k.as_str())))
    {
        return Err(bad(format!("the LZMA2 filter has no key {}", quoted(key))));
    }
    if let Some(v) = last.get("preset") {
        p.preset = lzma_preset(codec, v)?;
    }
    if let Some(v) = last.get("dict_size") {
        // liblzma's range: 4 KiB to 1.5 GiB.
        p.dict_size = v
            .as_u64()
            .filter(|d| (4096..=1_610_612_736).contains(d))
            .ok_or_else(|| bad(format!("dict_size must be 4 KiB to 1.5 GiB, got {v}")))?
            as u32;
    }
    Ok(p)
}

/// blosc's configuration: zarr v3's (`shuffle` a name, `typesize`) or numcodecs' (`shuffle`
/// -1 to 2), over the defaults in `p`.
fn blosc_params<'a>(
    codec: &'static str,
    mut p: BloscParams,
    given: &dyn Fn(&str) -> Option<&'a Value>,
) -> Result<BloscParams> {
    if let Some(v) = given("cname") {
        p.cname = BloscCompressor::ALL
            .iter()
            .find(|(name, _)| v.as_str() == Some(name))
            .map(|(_, c)| *c)
            .ok_or_else(|| {
                Error::config(
                    codec,
                    format!("cname must be one of blosclz, lz4, lz4hc, zlib, zstd; got {v}"),
                )
            })?;
    }
    if let Some(n) = int_in(codec, "clevel", given("clevel"), 0, 9)? {
        p.clevel = n as u8;
    }
    if let Some(v) = given("shuffle") {
        p.shuffle = match (v.as_str(), v.as_i64()) {
            (Some("noshuffle"), _) | (_, Some(0)) => BloscShuffle::None,
            (Some("shuffle"), _) | (_, Some(1)) => BloscShuffle::Byte,
            (Some("bitshuffle"), _) | (_, Some(2)) => BloscShuffle::Bit,
            (_, Some(-1)) => BloscShuffle::Auto,
            _ => {
                return Err(Error::config(
                    codec,
                    format!(
                        "shuffle must be \"noshuffle\", \"shuffle\", \"bitshuffle\" or -1 to 2, got {v}"
                    ),
                ))
            }
        };
    }
    if let Some(n) = int_in(codec, "typesize", given("typesize"), 1, i32::MAX.into())? {
        p.typesize = n as usize;
    }
    if let Some(n) = int_in(codec, "blocksize", given("blocksize"), 0, i32::MAX.into())? {
        p.blocksize = n as usize;
    }
    Ok(p)
}

/// Reads a streaming decoder to its end: exactly `expected` bytes where that is known (one
/// more is an error, found without reading the rest), else at most `limit`. Any error of the
/// decoder (a bad header, a damaged block, a failed check) is the chunk's: `format` names
/// the stream in the message.
#[cfg(feature = "archive")]
pub(crate) fn read_stream(
    reader: impl std::io::Read,
    codec: &'static str,
    format: &str,
    expected: Option<usize>,
    limit: usize,
) -> Result<Vec<u8>> {
    use std::io::Read;
    let cap = expected.unwrap_or(limit);
    let mut out = Vec::with_capacity(expected.unwrap_or(0));
    match reader.take(cap as u64 + 1).read_to_end(&mut out) {
        Ok(_) if out.len() > cap => Err(Error::corrupt(
            codec,
            match expected {
                Some(n) => format!("the data decode to more than the chunk's {n} bytes"),
                None => format!("the data decode to more than {limit} bytes"),
            },
        )),
        Ok(_) => Ok(out),
        Err(_) => Err(Error::corrupt(
            codec,
            format!("the {format} data are damaged or truncated"),
        )),
    }
}

/// The most bytes a decompressor with no known output size may produce (1 GiB): a damaged or
/// hostile header cannot make it allocate more.
pub const DEFAULT_LIMIT: usize = 1 << 30;

/// A chunk's bytes -> bytes codecs, in encode order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BytesChain {
    pub codecs: Vec<BytesCodec>,
    /// A `categorize` codec's labels, as code points (the codec value holds no list).
    pub labels: Vec<Vec<u32>>,
}

impl BytesChain {
    /// Reads a list of v3 codec metadata (`{"name", "configuration"}`), every one a bytes ->
    /// bytes codec of the table, for bytes whose elements have `item_size` bytes (what the
    /// array -> bytes codec before them lays out).
    pub fn from_v3(list: &[Value], item_size: usize) -> Result<Self> {
        let mut codecs = Vec::with_capacity(list.len());
        let mut labels = Vec::new();
        for codec in list {
            let (name, config) = crate::codec::codec_name_and_config(codec)?;
            let c = BytesCodec::from_v3_name(name).ok_or_else(|| Error::UnknownCodec {
                name: name.to_string(),
            })?;
            let c = c.configure(config, item_size)?;
            if let BytesCodec::Categorize(p) = c {
                labels = categorize_labels(config, p)?;
            }
            codecs.push(c);
        }
        Ok(Self { codecs, labels })
    }

    /// Why a v3 list cannot run in the compress module (a codec the table has no kernel
    /// for), or `None` when it can, from the names alone: the compress module reads the
    /// configurations when it builds the chain, and one it refuses is the read's error.
    pub fn not_in_wasm(list: &[Value]) -> Result<Option<String>> {
        for codec in list {
            let (name, _) = crate::codec::codec_name_and_config(codec)?;
            if BytesCodec::from_v3_name(name).is_none() {
                let why = match table::by_v3_name(name) {
                    Some(row) => format!("the package has no kernel for the {} codec", row.name),
                    None => format!("{} is not in the package's codec table", quoted(name)),
                };
                return Ok(Some(why));
            }
        }
        Ok(None)
    }

    /// The stored size of `decoded` bytes under a v3 list of codecs, where each is in the
    /// table and fixes it (a shard index's crc32c), read from the names alone: what the core
    /// module needs of a list (the compress module reads the configurations).
    pub fn encoded_size_of(list: &[Value], decoded: usize) -> Option<usize> {
        list.iter().try_fold(decoded, |n, c| {
            BytesCodec::from_v3_name(c.get("name")?.as_str()?)?.encoded_size(n)
        })
    }

    pub fn is_empty(&self) -> bool {
        self.codecs.is_empty()
    }

    /// Encodes raw bytes through every codec, first first.
    #[cfg(feature = "compress")]
    pub fn encode(&self, raw: &[u8]) -> Result<Vec<u8>> {
        let mut bytes: Option<Vec<u8>> = None;
        for c in &self.codecs {
            let input = bytes.as_deref().unwrap_or(raw);
            bytes = Some(match *c {
                BytesCodec::Categorize(p) => categorize::encode(p, input, &self.labels)?,
                c => c.encode(input)?,
            });
        }
        Ok(bytes.unwrap_or_else(|| raw.to_vec()))
    }

    /// Undoes the codecs, last first. `expected`: the size the result must have, if known.
    #[cfg(feature = "zstd")]
    pub fn decode(&self, stored: &[u8], expected: Option<usize>) -> Result<Vec<u8>> {
        // The size each codec's output must have: known from the end back through codecs
        // that fix their sizes (crc32c), and for the last one decoded, `expected` itself.
        let mut sizes = vec![None; self.codecs.len()];
        let mut want = expected;
        for (i, c) in self.codecs.iter().enumerate() {
            sizes[i] = want;
            want = want.and_then(|n| c.encoded_size(n));
        }
        let mut bytes: Option<Vec<u8>> = None;
        for (i, c) in self.codecs.iter().enumerate().rev() {
            let input = bytes.as_deref().unwrap_or(stored);
            let size = sizes[i].or_else(|| c.decoded_size(input.len()));
            bytes = Some(match *c {
                #[cfg(feature = "compress")]
                BytesCodec::Categorize(p) => {
                    of_size(categorize::decode(p, input, &self.labels)?, size)?
                }
                c => c.decode(input, size, DEFAULT_LIMIT)?,
            });
        }
        Ok(bytes.unwrap_or_else(|| stored.to_vec()))
    }
}

/// A `categorize` configuration's labels: strings, as many as its codes can number (one
/// more than the last label's place).
fn categorize_labels(config: Option<&Value>, p: CategorizeParams) -> Result<Vec<Vec<u32>>> {
    let bad = |message: String| Error::config("categorize", message);
    let list = config
        .and_then(|c| c.get("labels"))
        .and_then(Value::as_array)
        .ok_or_else(|| bad("labels must be a list of strings".into()))?;
    let most = if p.width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * p.width)) - 1
    };
    if list.len() as u64 > most {
        return Err(bad(format!(
            "{} labels do not fit codes of {} bytes",
            list.len(),
            p.width
        )));
    }
    list.iter()
        .map(|l| {
            l.as_str()
                .map(categorize::label_points)
                .ok_or_else(|| bad(format!("a label must be a string, got {l}")))
        })
        .collect()
}

/// A decoded size declared in a header, checked against what the chunk must decode to and
/// the limit, before anything is allocated for it.
#[cfg(feature = "zstd")]
pub(crate) fn check_declared(
    codec: &'static str,
    declared: usize,
    expected: Option<usize>,
    limit: usize,
) -> Result<()> {
    match expected {
        Some(n) if declared != n => Err(Error::corrupt(
            codec,
            format!(
                "the header says the data decode to {declared} bytes, but the chunk must have {n}"
            ),
        )),
        None if declared > limit => Err(Error::corrupt(
            codec,
            format!(
                "the header says the data decode to {declared} bytes, over the limit of {limit}"
            ),
        )),
        _ => Ok(()),
    }
}
