//! The bytes -> bytes stage of a chunk's codec chain: decompressors and checksums, decoding
//! the stored bytes of one chunk (or shard index) into the bytes the array -> bytes codec reads.
//!
//! One table, [`CODECS`], names every bytes -> bytes codec this package decodes, with its zarr
//! v3 names and its numcodecs (zarr v2) id; everything else asks it. Each codec is one file
//! here. Decoding is told the size the chunk must decode to where it is known, so that a
//! header declaring another size is refused before anything is allocated for it.

// The kernels; the table and the chain's reading are there without them (the core module
// reads layouts with the table, the compress module decodes).
#[cfg(feature = "compress")]
pub mod blosc;
#[cfg(feature = "compress")]
mod blosclz;
#[cfg(feature = "compress")]
pub mod crc32c;
#[cfg(feature = "compress")]
pub mod deflate;
#[cfg(feature = "compress")]
pub mod lz4;
#[cfg(feature = "compress")]
mod shuffle;
#[cfg(feature = "compress")]
pub mod zstd;

use crate::error::{quoted, Error, Result};
use crate::json::Value;

/// A bytes -> bytes codec of the table, with what decoding needs of its configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesCodec {
    Gzip,
    Zlib,
    Zstd,
    /// numcodecs' lz4: a 4-byte little-endian decoded size, then one lz4 block.
    Lz4,
    /// The blosc 1 container (its header says how it was compressed).
    Blosc,
    Crc32c,
}

/// One row of the codec table.
pub struct CodecEntry {
    pub codec: BytesCodec,
    /// The name in messages.
    pub name: &'static str,
    /// Names it has in zarr v3 metadata.
    pub v3_names: &'static [&'static str],
    /// Its numcodecs id in a zarr v2 `.zarray` (`compressor` or `filters`), if any.
    pub v2_id: Option<&'static str>,
    /// Configuration keys a writer may give (decoding needs none of them).
    pub keys: &'static [&'static str],
}

/// Every bytes -> bytes codec this package decodes.
pub const CODECS: &[CodecEntry] = &[
    CodecEntry {
        codec: BytesCodec::Gzip,
        name: "gzip",
        v3_names: &["gzip", "numcodecs.gzip"],
        v2_id: Some("gzip"),
        keys: &["level"],
    },
    CodecEntry {
        codec: BytesCodec::Zlib,
        name: "zlib",
        v3_names: &["numcodecs.zlib", "zlib"],
        v2_id: Some("zlib"),
        keys: &["level"],
    },
    CodecEntry {
        codec: BytesCodec::Zstd,
        name: "zstd",
        v3_names: &["zstd", "numcodecs.zstd"],
        v2_id: Some("zstd"),
        keys: &["level", "checksum"],
    },
    CodecEntry {
        codec: BytesCodec::Lz4,
        name: "lz4",
        v3_names: &["numcodecs.lz4", "lz4"],
        v2_id: Some("lz4"),
        keys: &["acceleration"],
    },
    CodecEntry {
        codec: BytesCodec::Blosc,
        name: "blosc",
        v3_names: &["blosc", "numcodecs.blosc"],
        v2_id: Some("blosc"),
        keys: &["cname", "clevel", "shuffle", "typesize", "blocksize"],
    },
    CodecEntry {
        codec: BytesCodec::Crc32c,
        name: "crc32c",
        v3_names: &["crc32c", "numcodecs.crc32c"],
        v2_id: Some("crc32c"),
        keys: &["location"],
    },
];

impl BytesCodec {
    pub fn entry(self) -> &'static CodecEntry {
        CODECS
            .iter()
            .find(|e| e.codec == self)
            .expect("every codec has a row")
    }

    pub fn name(self) -> &'static str {
        self.entry().name
    }

    /// The codec a zarr v3 name stands for.
    pub fn from_v3_name(name: &str) -> Option<Self> {
        CODECS
            .iter()
            .find(|e| e.v3_names.contains(&name))
            .map(|e| e.codec)
    }

    /// The codec a numcodecs id (zarr v2) stands for.
    pub fn from_v2_id(id: &str) -> Option<Self> {
        CODECS.iter().find(|e| e.v2_id == Some(id)).map(|e| e.codec)
    }

    /// Checks a configuration's keys (v3 `configuration`, or a v2 codec object less its `id`).
    pub fn check_config(self, config: Option<&Value>) -> Result<()> {
        let entry = self.entry();
        match config {
            None | Some(Value::Null) => Ok(()),
            Some(Value::Object(map)) => {
                for (key, value) in map.iter() {
                    if !entry.keys.contains(&key.as_str()) {
                        return Err(Error::config(
                            entry.name,
                            format!("unknown key {}", quoted(key)),
                        ));
                    }
                    if self == BytesCodec::Crc32c
                        && key == "location"
                        && value.as_str() != Some("end")
                    {
                        return Err(Error::config(
                            entry.name,
                            format!("location {value}: only \"end\" is read"),
                        ));
                    }
                }
                Ok(())
            }
            Some(other) => Err(Error::config(
                entry.name,
                format!("the configuration must be an object, got {other}"),
            )),
        }
    }

    /// The decoded size for an encoded one, where the codec fixes it (a checksum's 4 bytes).
    #[cfg(feature = "compress")]
    fn decoded_size(self, encoded: usize) -> Option<usize> {
        match self {
            BytesCodec::Crc32c => encoded.checked_sub(4),
            _ => None,
        }
    }

    /// The encoded size for a decoded one, where the codec fixes it.
    fn encoded_size(self, decoded: usize) -> Option<usize> {
        match self {
            BytesCodec::Crc32c => decoded.checked_add(4),
            _ => None,
        }
    }

    /// Decodes `input`. `expected`: the size the output must have, where it is known; without
    /// it the output may not exceed `limit` bytes.
    #[cfg(feature = "compress")]
    pub fn decode(self, input: &[u8], expected: Option<usize>, limit: usize) -> Result<Vec<u8>> {
        let out = match self {
            BytesCodec::Gzip => deflate::gunzip(input, expected, limit)?,
            BytesCodec::Zlib => deflate::unzlib(input, expected, limit)?,
            BytesCodec::Zstd => zstd::decode(input, expected, limit)?,
            BytesCodec::Lz4 => lz4::decode_numcodecs(input, expected, limit)?,
            BytesCodec::Blosc => blosc::decode(input, expected, limit)?,
            BytesCodec::Crc32c => crc32c::strip(input)?.to_vec(),
        };
        match expected {
            Some(n) if out.len() != n => Err(Error::ChunkLength {
                what: "bytes after decompression",
                expected: n,
                actual: out.len(),
            }),
            _ => Ok(out),
        }
    }
}

/// The most bytes a decompressor with no known output size may produce (1 GiB): a damaged or
/// hostile header cannot make it allocate more.
pub const DEFAULT_LIMIT: usize = 1 << 30;

/// A chunk's bytes -> bytes codecs, in encode order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BytesChain {
    pub codecs: Vec<BytesCodec>,
}

impl BytesChain {
    /// Reads a list of v3 codec metadata (`{"name", "configuration"}`), every one a bytes ->
    /// bytes codec of the table.
    pub fn from_v3(list: &[Value]) -> Result<Self> {
        let mut codecs = Vec::with_capacity(list.len());
        for codec in list {
            let (name, config) = crate::codec::codec_name_and_config(codec)?;
            let c = BytesCodec::from_v3_name(name).ok_or_else(|| Error::UnknownCodec {
                name: name.to_string(),
            })?;
            c.check_config(config)?;
            codecs.push(c);
        }
        Ok(Self { codecs })
    }

    /// Whether a v3 name is a bytes -> bytes codec of the table.
    pub fn knows_name(name: &str) -> bool {
        BytesCodec::from_v3_name(name).is_some()
    }

    /// Whether every codec of a v3 list is in the table (what a reader can run here).
    pub fn knows_all(list: &[Value]) -> bool {
        list.iter().all(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .and_then(BytesCodec::from_v3_name)
                .is_some()
        })
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

    /// Undoes the codecs, last first. `expected`: the size the result must have, if known.
    #[cfg(feature = "compress")]
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
            bytes = Some(c.decode(input, size, DEFAULT_LIMIT)?);
        }
        Ok(bytes.unwrap_or_else(|| stored.to_vec()))
    }
}

/// A decoded size declared in a header, checked against what the chunk must decode to and
/// the limit, before anything is allocated for it.
#[cfg(feature = "compress")]
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
