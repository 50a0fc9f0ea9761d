//! `numcodecs.pcodec`: an array -> bytes codec whose stored chunk is one standalone pco stream
//! of the chunk's values in C order (numcodecs 0.17.1 over PyPI's pcodec 1.1.0, whose core is the
//! `pco` crate used here). Decoding needs no configuration (the stream describes itself);
//! encoding reads numcodecs' keys with numcodecs' defaults and rules.
//!
//! Both directions work on the values' little-endian bytes, which is what the `bytes` codec
//! (little-endian) holds: a chain `[..., numcodecs.pcodec, ...]` reads as `[..., bytes,
//! <pco stream -> bytes>, ...]`.

use half::f16;
use pco::standalone::{simple_compress, simple_decompress_into};
use pco::{ChunkConfig, DeltaSpec, ModeSpec, PagingSpec};

use super::whole_chunk::{check_chunk_bytes, WholeChunkCodec};
use crate::array::ArrayData;
use crate::dtype::DataType;
use crate::error::{Error, Result};
use crate::json::Value;

const NAME: &str = "numcodecs.pcodec";

/// numcodecs' default page size (`DEFAULT_MAX_PAGE_N`), pco's too.
const DEFAULT_PAGE: u64 = 262_144;
/// The configuration keys numcodecs' PCodec takes (zarr-python refuses others).
const KEYS: [&str; 6] = [
    "level",
    "mode_spec",
    "delta_spec",
    "paging_spec",
    "delta_encoding_order",
    "equal_pages_up_to",
];

/// One array's pcodec: its data type and the configuration its chunks are written with.
#[derive(Clone, Debug)]
pub struct Pcodec {
    data_type: DataType,
    config: ChunkConfig,
}

impl Pcodec {
    /// The codec for values of `data_type` from its zarr metadata configuration (an absent
    /// one, or `{}`, is numcodecs' defaults). Refuses what numcodecs would refuse when it
    /// encodes, and data types pco does not take (8-bit integers, as numcodecs does).
    pub fn new(configuration: Option<&Value>, data_type: DataType) -> Result<Self> {
        if matches!(data_type, DataType::Int8 | DataType::UInt8) {
            return Err(Error::UnsupportedDataType {
                codec: NAME,
                data_type: data_type.name().to_string(),
                reason: "pcodec takes 16-, 32- and 64-bit integers and floats".to_string(),
            });
        }
        Ok(Self {
            data_type,
            config: chunk_config(configuration)?,
        })
    }

    /// The `count` values in the pco stream `stored`. A stream of more or fewer values, or one
    /// that is not a pco stream of this data type, is refused.
    pub fn decode_values(&self, stored: &[u8], count: usize) -> Result<ArrayData> {
        Ok(match self.data_type {
            DataType::UInt16 => ArrayData::UInt16(decode_as(stored, count)?),
            DataType::UInt32 => ArrayData::UInt32(decode_as(stored, count)?),
            DataType::UInt64 => ArrayData::UInt64(decode_as(stored, count)?),
            DataType::Int16 => ArrayData::Int16(decode_as(stored, count)?),
            DataType::Int32 => ArrayData::Int32(decode_as(stored, count)?),
            DataType::Int64 => ArrayData::Int64(decode_as(stored, count)?),
            DataType::Float16 => ArrayData::Float16(decode_as(stored, count)?),
            DataType::Float32 => ArrayData::Float32(decode_as(stored, count)?),
            DataType::Float64 => ArrayData::Float64(decode_as(stored, count)?),
            DataType::Int8 | DataType::UInt8 => unreachable!("refused by Pcodec::new"),
        })
    }

    /// The little-endian bytes of the `count` values in the pco stream `stored` (see
    /// [`Pcodec::decode_values`]).
    pub fn decode(&self, stored: &[u8], count: usize) -> Result<Vec<u8>> {
        Ok(self.decode_values(stored, count)?.to_le_bytes())
    }

    /// The pco stream of the values whose little-endian bytes are `raw`, as numcodecs writes it.
    pub fn encode(&self, raw: &[u8]) -> Result<Vec<u8>> {
        match self.data_type {
            DataType::UInt16 => encode_as::<u16>(raw, &self.config),
            DataType::UInt32 => encode_as::<u32>(raw, &self.config),
            DataType::UInt64 => encode_as::<u64>(raw, &self.config),
            DataType::Int16 => encode_as::<i16>(raw, &self.config),
            DataType::Int32 => encode_as::<i32>(raw, &self.config),
            DataType::Int64 => encode_as::<i64>(raw, &self.config),
            DataType::Float16 => encode_as::<f16>(raw, &self.config),
            DataType::Float32 => encode_as::<f32>(raw, &self.config),
            DataType::Float64 => encode_as::<f64>(raw, &self.config),
            DataType::Int8 | DataType::UInt8 => unreachable!("refused by Pcodec::new"),
        }
    }
}

impl Pcodec {
    /// The codec for chunks of `count` values (what the chain and the module's class use).
    pub fn for_chunks(self, count: usize) -> PcodecChunks {
        PcodecChunks {
            pcodec: self,
            count,
        }
    }
}

/// [`Pcodec`] for chunks of a fixed count of values.
#[derive(Clone, Debug)]
pub struct PcodecChunks {
    pcodec: Pcodec,
    count: usize,
}

impl WholeChunkCodec for PcodecChunks {
    fn data_type(&self) -> DataType {
        self.pcodec.data_type
    }

    fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>> {
        check_chunk_bytes(raw, self.count, self.pcodec.data_type)?;
        self.pcodec.encode(raw)
    }

    fn decode_into(&self, stream: &[u8], out: &mut ArrayData) -> Result<()> {
        *out = self.pcodec.decode_values(stream, self.count)?;
        Ok(())
    }
}

/// A number pco reads and writes, and how it is read from its little-endian bytes.
trait LeNumber: pco::data_types::Number {
    const SIZE: usize;
    fn read(bytes: &[u8]) -> Self;
}

macro_rules! le_number {
    ($($t:ty),*) => {$(
        impl LeNumber for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one value's bytes"))
            }
        }
    )*};
}
le_number!(u16, u32, u64, i16, i32, i64, f16, f32, f64);

fn decode_as<T: LeNumber + Default>(stored: &[u8], count: usize) -> Result<Vec<T>> {
    // One value more than the chunk holds: a stream with more is then seen as one.
    let mut values = vec![T::default(); count + 1];
    let progress =
        simple_decompress_into(stored, &mut values).map_err(|e| Error::corrupt(NAME, e.message))?;
    if !progress.finished || progress.n_processed != count {
        let many = if progress.finished {
            progress.n_processed.to_string()
        } else {
            "more".to_string()
        };
        return Err(Error::corrupt(
            NAME,
            format!("the stream holds {many} values, not the chunk's {count}"),
        ));
    }
    values.truncate(count);
    Ok(values)
}

fn encode_as<T: LeNumber>(raw: &[u8], config: &ChunkConfig) -> Result<Vec<u8>> {
    if !raw.len().is_multiple_of(T::SIZE) {
        return Err(Error::ChunkLength {
            what: "bytes",
            expected: raw.len() / T::SIZE * T::SIZE,
            actual: raw.len(),
        });
    }
    let values: Vec<T> = raw.chunks_exact(T::SIZE).map(T::read).collect();
    simple_compress(&values, config).map_err(|e| Error::config(NAME, e.message))
}

/// pco's chunk configuration from numcodecs' keys, with numcodecs' defaults and its rules for
/// `delta_encoding_order` (with `delta_spec` "auto" it asks for consecutive deltas of that
/// order, as before delta_spec existed; with "try_consecutive" it is required; with any
/// other it is an error).
fn chunk_config(configuration: Option<&Value>) -> Result<ChunkConfig> {
    let empty = crate::json::Map::new();
    let map = match configuration {
        None => &empty,
        Some(v) => v
            .as_object()
            .ok_or_else(|| Error::config(NAME, "the configuration must be an object"))?,
    };
    if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(Error::config(
            NAME,
            format!("unknown configuration key {key:?} (numcodecs' PCodec takes {KEYS:?})"),
        ));
    }
    let text = |key: &str, default: &'static str| -> Result<String> {
        match map.get(key) {
            None => Ok(default.to_string()),
            Some(v) => v
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| Error::config(NAME, format!("{key} must be a string"))),
        }
    };
    let integer = |key: &str| -> Result<Option<u64>> {
        match map.get(key) {
            None => Ok(None),
            Some(v) if v.is_null() => Ok(None),
            Some(v) => v.as_u64().map(Some).ok_or_else(|| {
                Error::config(NAME, format!("{key} must be a non-negative integer"))
            }),
        }
    };
    let level = integer("level")?.unwrap_or(8);
    if level > 12 {
        return Err(Error::config(
            NAME,
            format!("level must be 0 to 12, got {level}"),
        ));
    }
    let mode_spec = match text("mode_spec", "auto")?.as_str() {
        "auto" => ModeSpec::Auto,
        "classic" => ModeSpec::Classic,
        other => {
            return Err(Error::config(
                NAME,
                format!("mode_spec {other:?} is not supported (\"auto\" or \"classic\")"),
            ))
        }
    };
    let order = integer("delta_encoding_order")?;
    if let Some(order) = order {
        if order > 7 {
            return Err(Error::config(
                NAME,
                format!("delta_encoding_order must be 0 to 7, got {order}"),
            ));
        }
    }
    let delta = text("delta_spec", "auto")?;
    let delta_spec = match (delta.as_str(), order) {
        ("auto", Some(order)) | ("try_consecutive", Some(order)) => DeltaSpec::TryConsecutive(order as usize),
        ("try_consecutive", None) => {
            return Err(Error::config(
                NAME,
                "delta_spec \"try_consecutive\" needs a delta_encoding_order",
            ))
        }
        (_, Some(_)) => {
            return Err(Error::config(
                NAME,
                "delta_encoding_order can only be set with delta_spec \"try_consecutive\" (or \"auto\")",
            ))
        }
        ("auto", None) => DeltaSpec::Auto,
        ("no_op", None) | ("none", None) => DeltaSpec::NoOp,
        ("try_lookback", None) => DeltaSpec::TryLookback,
        (other, None) => {
            return Err(Error::config(
                NAME,
                format!("delta_spec {other:?} is not supported (\"auto\", \"no_op\", \"none\", \"try_consecutive\", \"try_lookback\")"),
            ))
        }
    };
    let paging = text("paging_spec", "equal_pages_up_to")?;
    if paging != "equal_pages_up_to" {
        return Err(Error::config(
            NAME,
            format!("paging_spec {paging:?} is not supported (\"equal_pages_up_to\")"),
        ));
    }
    let page = integer("equal_pages_up_to")?.unwrap_or(DEFAULT_PAGE);
    if page == 0 {
        // (pco 1.1.0 would divide by zero.)
        return Err(Error::config(NAME, "equal_pages_up_to must be at least 1"));
    }
    let page =
        usize::try_from(page).map_err(|_| Error::config(NAME, "equal_pages_up_to is too large"))?;
    let mut config = ChunkConfig::default();
    config.compression_level = level as usize;
    config.mode_spec = mode_spec;
    config.delta_spec = delta_spec;
    config.paging_spec = PagingSpec::EqualPagesUpTo(page);
    Ok(config)
}
