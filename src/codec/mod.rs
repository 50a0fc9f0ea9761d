//! The codecs and the chain that runs them over one chunk.
//!
//! A chain is built once from array metadata (data type, fill value, codecs, chunk shape), which
//! validates everything; encode and decode then only check the chunk they are given.

pub mod bitround;
pub mod bytes;
pub mod bytes_to_bytes;
pub mod cast_value;
pub mod config;
pub mod fixed_scale_offset;
mod fused;
#[cfg(feature = "grib")]
pub mod grib;
#[cfg(feature = "pcodec")]
pub mod pcodec;
pub mod pipeline;
pub mod quantize;
pub mod region;
pub mod scale_offset;
pub mod table;
pub mod whole_chunk;
#[cfg(feature = "zfp")]
pub mod zfp;
#[cfg(feature = "zfp")]
pub mod zfp_config;
#[cfg(feature = "zfp")]
pub mod zfp_kernel;
#[cfg(feature = "zfp")]
pub mod zfpy;

use std::sync::Arc;

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, shape_text, Error, Result};
use crate::json::Value;

pub use bytes::{Bytes, Endian};
pub use cast_value::{CastValue, OutOfRangeMode, RoundingMode};
pub use fused::FusedDecode;
pub use scale_offset::ScaleOffset;
use table::{Module, Runs};
use whole_chunk::{WholeChunkCodec, WholeChunkSerializer};

/// Splits a codec's metadata, `{"name": ..., "configuration": {...}}`, into its name and
/// configuration. (A bare name string is refused, as the reference refuses it.)
pub fn codec_name_and_config(codec: &Value) -> Result<(&str, Option<&Value>)> {
    match codec {
        Value::Object(map) => {
            let name =
                map.get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| Error::InvalidMetadata {
                        message: format!("codec {codec} has no \"name\" string"),
                    })?;
            if let Some(key) = map
                .keys()
                .find(|k| !matches!(k.as_str(), "name" | "configuration" | "must_understand"))
            {
                return Err(Error::InvalidMetadata {
                    message: format!("codec {name} has unknown key {}", quoted(key)),
                });
            }
            Ok((name, map.get("configuration")))
        }
        other => Err(Error::InvalidMetadata {
            message: format!(
                "a codec must be an object {{\"name\": ..., \"configuration\": ...}}, got {other}"
            ),
        }),
    }
}

/// An array -> array codec, bound to the data type it receives when encoding.
#[derive(Debug, Clone)]
pub enum ArrayCodec {
    ScaleOffset(ScaleOffset),
    CastValue(CastValue),
    BitRound(bitround::BitRound),
    Quantize(quantize::Quantize),
    FixedScaleOffset(fixed_scale_offset::FixedScaleOffset),
}

impl ArrayCodec {
    /// Builds the named array -> array codec for arrays of `dtype`; `None` if `name` is not
    /// an array -> array codec this package implements.
    pub fn new(name: &str, configuration: Option<&Value>, dtype: DataType) -> Option<Result<Self>> {
        match table::by_v3_name(name)?.runs {
            Runs::ScaleOffset => {
                Some(ScaleOffset::new(configuration, dtype).map(Self::ScaleOffset))
            }
            Runs::CastValue => Some(CastValue::new(configuration, dtype).map(Self::CastValue)),
            Runs::BitRound => {
                Some(bitround::BitRound::new(configuration, dtype).map(Self::BitRound))
            }
            Runs::Quantize => {
                Some(quantize::Quantize::new(configuration, dtype).map(Self::Quantize))
            }
            Runs::FixedScaleOffset => Some(
                fixed_scale_offset::FixedScaleOffset::new(configuration, dtype)
                    .map(Self::FixedScaleOffset),
            ),
            _ => None,
        }
    }

    /// Whether decoding gives back what is stored, unchanged (bitround's).
    pub fn decodes_as_stored(&self) -> bool {
        match self {
            ArrayCodec::BitRound(_) => true,
            ArrayCodec::Quantize(q) => q.decodes_as_stored(),
            _ => false,
        }
    }

    /// The data type this codec's encode output has.
    pub fn encoded_type(&self) -> DataType {
        match self {
            ArrayCodec::ScaleOffset(c) => c.data_type(),
            ArrayCodec::CastValue(c) => c.target(),
            ArrayCodec::BitRound(c) => c.data_type(),
            ArrayCodec::Quantize(c) => c.encoded_type(),
            ArrayCodec::FixedScaleOffset(c) => c.encoded_type(),
        }
    }

    pub fn encode(&self, data: &ArrayData) -> Result<ArrayData> {
        match self {
            ArrayCodec::ScaleOffset(c) => c.encode(data),
            ArrayCodec::CastValue(c) => c.encode(data),
            ArrayCodec::BitRound(c) => c.encode(data),
            ArrayCodec::Quantize(c) => c.encode(data),
            ArrayCodec::FixedScaleOffset(c) => c.encode(data),
        }
    }

    pub fn decode(&self, data: &ArrayData) -> Result<ArrayData> {
        match self {
            ArrayCodec::ScaleOffset(c) => c.decode(data),
            ArrayCodec::CastValue(c) => c.decode(data),
            ArrayCodec::BitRound(c) => c.decode(data),
            ArrayCodec::Quantize(c) => c.decode(data),
            ArrayCodec::FixedScaleOffset(c) => c.decode(data),
        }
    }

    /// The fill value as this codec passes it to the next one.
    pub fn encode_fill(&self, fill: Scalar) -> Result<Scalar> {
        let name = self.name();
        match self {
            ArrayCodec::ScaleOffset(c) => c.encode_scalar(fill),
            ArrayCodec::CastValue(c) => c.encode_scalar(fill),
            ArrayCodec::BitRound(c) => c.encode_scalar(fill),
            ArrayCodec::Quantize(c) => c.encode_scalar(fill),
            ArrayCodec::FixedScaleOffset(c) => c.encode_scalar(fill),
        }
        .map_err(|e| Error::InvalidMetadata {
            message: format!(
                "the fill value {} cannot pass through {name}: {e}",
                fill.to_json()
            ),
        })
    }

    pub fn name(&self) -> &'static str {
        let runs = match self {
            ArrayCodec::ScaleOffset(_) => Runs::ScaleOffset,
            ArrayCodec::CastValue(_) => Runs::CastValue,
            ArrayCodec::BitRound(_) => Runs::BitRound,
            ArrayCodec::Quantize(_) => Runs::Quantize,
            ArrayCodec::FixedScaleOffset(_) => Runs::FixedScaleOffset,
        };
        table::CODECS
            .iter()
            .find(|r| r.runs == runs)
            .map_or("array -> array codec", |r| r.name)
    }

    pub fn to_json(&self) -> Value {
        match self {
            ArrayCodec::ScaleOffset(c) => c.to_json(),
            ArrayCodec::CastValue(c) => c.to_json(),
            ArrayCodec::BitRound(c) => c.to_json(),
            ArrayCodec::Quantize(c) => c.to_json(),
            ArrayCodec::FixedScaleOffset(c) => c.to_json(),
        }
    }
}

/// The array -> bytes codec of a chain.
#[derive(Clone)]
pub enum Serializer {
    Bytes(Bytes),
    /// A codec that codes the chunk as one stream (its metadata kept as written).
    WholeChunk(WholeChunkSerializer),
}

impl std::fmt::Debug for Serializer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Serializer::Bytes(b) => f.debug_tuple("Bytes").field(b).finish(),
            Serializer::WholeChunk(w) => write!(f, "WholeChunk({})", w.meta()),
        }
    }
}

impl Serializer {
    fn encode(&self, data: &ArrayData) -> Result<Vec<u8>> {
        match self {
            Serializer::Bytes(b) => Ok(b.encode(data)),
            Serializer::WholeChunk(w) => w.encode(data),
        }
    }

    fn decode(&self, bytes: &[u8], len: usize) -> Result<ArrayData> {
        match self {
            Serializer::Bytes(b) => b.decode(bytes, len),
            Serializer::WholeChunk(w) => w.decode(bytes),
        }
    }

    fn to_json(&self) -> Value {
        match self {
            Serializer::Bytes(b) => b.to_json(),
            Serializer::WholeChunk(w) => w.meta().clone(),
        }
    }
}

/// The codecs of one array, ready to encode and decode its chunks.
#[derive(Debug, Clone)]
pub struct Chain {
    data_type: DataType,
    fill_value: Scalar,
    chunk_shape: Vec<usize>,
    len: usize,
    array_codecs: Vec<ArrayCodec>,
    serializer: Serializer,
    encoded_fill_value: Scalar,
    fill_round_trips: bool,
    fused: Option<FusedDecode>,
}

impl Chain {
    /// Builds a chain from array metadata: `data_type`, `fill_value`, the `codecs` list and
    /// the chunk shape.
    pub fn new(
        data_type: &Value,
        fill_value: &Value,
        codecs: &Value,
        chunk_shape: &[usize],
    ) -> Result<Self> {
        let data_type = DataType::from_json(data_type).map_err(|e| match e {
            // Say which codec cannot take the type.
            Error::UnsupportedDataType {
                data_type, reason, ..
            } => Error::UnsupportedDataType {
                codec: first_codec_name(codecs),
                data_type,
                reason,
            },
            other => other,
        })?;
        let fill_value = match fill_value {
            Value::Null => data_type.default_scalar(),
            v => Scalar::from_json(data_type, v).map_err(|e| {
                e.in_context("fill_value ", |e| Error::InvalidMetadata {
                    message: format!("fill_value: {e}"),
                })
            })?,
        };
        let len = chunk_len(chunk_shape, data_type.size())?;
        let Value::Array(list) = codecs else {
            return Err(Error::InvalidMetadata {
                message: format!("codecs must be a list, got {codecs}"),
            });
        };

        let mut array_codecs = Vec::new();
        let mut dtype = data_type;
        let mut fill = fill_value;
        let mut bytes = None;
        for codec in list {
            let (name, config) = codec_name_and_config(codec)?;
            if let Some(built) = ArrayCodec::new(name, config, dtype) {
                if bytes.is_some() {
                    return Err(Error::InvalidMetadata {
                        message: format!("array -> array codec {name} comes after the bytes codec"),
                    });
                }
                let built = built?;
                fill = built.encode_fill(fill)?;
                dtype = built.encoded_type();
                array_codecs.push(built);
            } else if let Some(runs @ (Runs::Bytes | Runs::WholeChunk(_))) =
                table::by_v3_name(name).map(|r| r.runs)
            {
                if bytes.is_some() {
                    return Err(Error::InvalidMetadata {
                        message: "codecs has more than one array -> bytes codec".into(),
                    });
                }
                bytes = Some(match runs {
                    Runs::WholeChunk(module) => {
                        let config = whole_chunk_configuration(name, config);
                        match whole_chunk_serializer(
                            codec,
                            module,
                            config.as_ref(),
                            dtype,
                            chunk_shape,
                        ) {
                            Some(built) => Serializer::WholeChunk(built?),
                            None => {
                                return Err(Error::UnknownCodec {
                                    name: format!(
                                        "{name} (in the package's {} module)",
                                        module.name()
                                    ),
                                })
                            }
                        }
                    }
                    _ => Serializer::Bytes(Bytes::new(config, dtype)?),
                });
            } else {
                return Err(Error::UnknownCodec {
                    name: name.to_string(),
                });
            }
        }
        let serializer = bytes.ok_or_else(|| Error::InvalidMetadata {
            message: "codecs has no array -> bytes codec (such as bytes)".into(),
        })?;
        // Every intermediate chunk must fit too (a cast to a wider type makes a larger one).
        for codec in &array_codecs {
            chunk_len(chunk_shape, codec.encoded_type().size())?;
        }
        let fused = match &serializer {
            Serializer::Bytes(b) => FusedDecode::plan(data_type, &array_codecs, b),
            Serializer::WholeChunk(..) => None,
        };
        let mut chain = Self {
            data_type,
            fill_value,
            chunk_shape: chunk_shape.to_vec(),
            len,
            array_codecs,
            serializer,
            encoded_fill_value: fill,
            fill_round_trips: false,
            fused,
        };
        chain.fill_round_trips = chain
            .decode_array(ArrayData::filled(fill, 1))
            .ok()
            .and_then(|back| back.get(0))
            .is_some_and(|back| same_value(back, fill_value));
        Ok(chain)
    }

    /// Builds a chain from a JSON object with `data_type`, `fill_value`, `codecs` and either
    /// `chunk_shape` or zarr v3's `chunk_grid` (a regular grid).
    pub fn from_metadata(meta: &Value) -> Result<Self> {
        let field = |name: &str| {
            meta.get(name).ok_or_else(|| Error::InvalidMetadata {
                message: format!("array metadata has no {}", quoted(name)),
            })
        };
        let shape = match meta.get("chunk_shape") {
            Some(shape) => shape,
            None => meta
                .at(&["chunk_grid", "configuration", "chunk_shape"])
                .ok_or_else(|| Error::InvalidMetadata {
                    message: "array metadata has neither chunk_shape nor a regular chunk_grid"
                        .into(),
                })?,
        };
        let chunk_shape = parse_shape(shape)?;
        Self::new(
            field("data_type")?,
            meta.get("fill_value").unwrap_or(&Value::Null),
            field("codecs")?,
            &chunk_shape,
        )
    }

    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    pub fn fill_value(&self) -> Scalar {
        self.fill_value
    }

    pub fn chunk_shape(&self) -> &[usize] {
        &self.chunk_shape
    }

    /// Elements per chunk.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The data type the array -> bytes codec stores.
    pub fn encoded_data_type(&self) -> DataType {
        self.array_codecs
            .last()
            .map_or(self.data_type, ArrayCodec::encoded_type)
    }

    /// The fill value after every array -> array codec (what a chunk of fill values stores).
    pub fn encoded_fill_value(&self) -> Scalar {
        self.encoded_fill_value
    }

    /// Whether the encoded fill value decodes back to the fill value. When it does not, a
    /// chunk written full of fill values reads back differently from a missing chunk.
    pub fn fill_value_round_trips(&self) -> bool {
        self.fill_round_trips
    }

    pub fn array_codecs(&self) -> &[ArrayCodec] {
        &self.array_codecs
    }

    /// Whether decode takes the one-pass path.
    pub fn is_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// The codecs' metadata as this package writes it.
    pub fn codecs_json(&self) -> Value {
        let mut list: Vec<Value> = self.array_codecs.iter().map(ArrayCodec::to_json).collect();
        list.push(self.serializer.to_json());
        Value::Array(list)
    }

    /// Encodes a chunk of the array's values to stored bytes. Either every element encodes or
    /// an error is returned and nothing is produced.
    pub fn encode(&self, values: &ArrayData) -> Result<Vec<u8>> {
        if values.data_type() != self.data_type {
            return Err(Error::WrongArrayType {
                expected: self.data_type.name().into(),
                actual: values.data_type().name().into(),
            });
        }
        if values.len() != self.len {
            return Err(Error::ChunkLength {
                what: "elements",
                expected: self.len,
                actual: values.len(),
            });
        }
        let mut current: Option<ArrayData> = None;
        for (k, codec) in self.array_codecs.iter().enumerate() {
            let input = current.as_ref().unwrap_or(values);
            let next = codec.encode(input).map_err(|e| match k {
                0 => e,
                _ => given_value(e, codec, values, input),
            })?;
            current = Some(next);
        }
        self.serializer.encode(current.as_ref().unwrap_or(values))
    }

    /// Decodes stored bytes to the array's values.
    pub fn decode(&self, bytes: &[u8]) -> Result<ArrayData> {
        if let Some(fused) = &self.fused {
            return fused.decode(bytes, self.len);
        }
        self.decode_unfused(bytes)
    }

    /// Decodes codec by codec, with an intermediate array per codec (the reference's order).
    pub fn decode_unfused(&self, bytes: &[u8]) -> Result<ArrayData> {
        let stored = self.serializer.decode(bytes, self.len)?;
        self.decode_array(stored)
    }

    fn decode_array(&self, mut data: ArrayData) -> Result<ArrayData> {
        for codec in self.array_codecs.iter().rev() {
            data = codec.decode(&data)?;
        }
        Ok(data)
    }
}

/// A codec after the first refused a value the earlier codecs made: the message also gives the
/// element, the value the caller gave and what it became (every codec is element-wise, so the
/// first element the codec refuses on its own is the one).
fn given_value(e: Error, codec: &ArrayCodec, given: &ArrayData, input: &ArrayData) -> Error {
    let refused = (0..input.len()).find(|&i| {
        input
            .get(i)
            .is_some_and(|v| codec.encode(&ArrayData::filled(v, 1)).is_err())
    });
    let (Some(i), Some(before), Some(after)) = (
        refused,
        refused.and_then(|i| given.get(i)),
        refused.and_then(|i| input.get(i)),
    ) else {
        return e;
    };
    let note = format!(
        " (element {i}: the value given was {}, which the codecs before {} made {})",
        before.to_json(),
        codec.name(),
        after.to_json()
    );
    match e {
        Error::Cast { codec, message } => Error::Cast {
            codec,
            message: message + &note,
        },
        Error::Overflow { codec, message } => Error::Overflow {
            codec,
            message: message + &note,
        },
        other => other,
    }
}

/// The configuration a whole-chunk module's class takes for the codec `name`: its own, but
/// for `numcodecs.zfpy`, which shares the zfp module with `zfp`, and `gribberish`, which shares
/// the grib module with `grib`: each is told apart by its configuration wrapped under its name
/// (`{"numcodecs.zfpy": ...}`).
pub fn whole_chunk_configuration(name: &str, config: Option<&Value>) -> Option<Value> {
    if name == "gribberish" {
        return Some(Value::object([(
            "gribberish",
            config.cloned().unwrap_or(Value::Null),
        )]));
    }
    if name == "numcodecs.zfpy" {
        return Some(Value::object([(
            "numcodecs.zfpy",
            config.cloned().unwrap_or(Value::Null),
        )]));
    }
    config.cloned()
}

/// Builds a whole-chunk codec of `module` for chunks of `chunk_shape` holding `dtype` values;
/// `None` where this build does not have the module's kernel (its cargo feature).
pub fn whole_chunk_codec(
    module: Module,
    configuration: Option<&Value>,
    dtype: DataType,
    chunk_shape: &[usize],
) -> Option<Result<Arc<dyn WholeChunkCodec>>> {
    // A configuration given as null is none (numcodecs' defaults where the codec has them).
    let configuration = configuration.filter(|c| !matches!(c, Value::Null));
    match module {
        #[cfg(feature = "zfp")]
        // (numcodecs.zfpy's configuration comes wrapped, see `zfpy::WRAPPED`.)
        Module::Zfp => Some(match configuration.and_then(|c| c.get(zfpy::WRAPPED)) {
            Some(inner) => shared(zfpy::Zfpy::new(
                Some(inner).filter(|c| !matches!(c, Value::Null)),
                dtype,
                chunk_shape,
            )),
            None => shared(zfp::Zfp::new(configuration, dtype, chunk_shape)),
        }),
        #[cfg(feature = "pcodec")]
        Module::Pcodec => Some(shared((|| {
            let count = chunk_len(chunk_shape, dtype.size())?;
            Ok(pcodec::Pcodec::new(configuration, dtype)?.for_chunks(count))
        })())),
        #[cfg(feature = "grib")]
        Module::Grib => Some(shared((|| {
            let count = chunk_len(chunk_shape, dtype.size())?;
            grib::Grib::new(configuration, dtype, count)
        })())),
        _ => {
            let _ = (configuration, dtype, chunk_shape);
            None
        }
    }
}

/// The chain's serializer of a whole-chunk row (see [`whole_chunk_codec`]).
fn whole_chunk_serializer(
    meta: &Value,
    module: Module,
    configuration: Option<&Value>,
    dtype: DataType,
    chunk_shape: &[usize],
) -> Option<Result<WholeChunkSerializer>> {
    #[cfg(feature = "whole-chunk")]
    {
        let built = whole_chunk_codec(module, configuration, dtype, chunk_shape)?;
        Some(built.map(|c| WholeChunkSerializer::new(c, meta.clone())))
    }
    #[cfg(not(feature = "whole-chunk"))]
    {
        let _ = (meta, module, configuration, dtype, chunk_shape);
        None
    }
}

#[cfg(any(feature = "zfp", feature = "pcodec", feature = "grib"))]
fn shared<C: WholeChunkCodec + 'static>(c: Result<C>) -> Result<Arc<dyn WholeChunkCodec>> {
    c.map(|c| Arc::new(c) as Arc<dyn WholeChunkCodec>)
}

/// The most bytes one chunk may take in any of its data types, checked when a chain or codec
/// is built, before anything is allocated: 2 GiB, more than a typed array holds in every
/// JavaScript engine and more than a wasm32 module could hold twice.
pub const MAX_CHUNK_BYTES: usize = 1 << 31;

/// Elements in a chunk of `chunk_shape`, refusing chunks whose `itemsize`-byte values would
/// take more than [`MAX_CHUNK_BYTES`].
pub(crate) fn chunk_len(chunk_shape: &[usize], itemsize: usize) -> Result<usize> {
    chunk_shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .filter(|&n| {
            n.checked_mul(itemsize)
                .is_some_and(|b| b <= MAX_CHUNK_BYTES)
        })
        .ok_or_else(|| Error::InvalidMetadata {
            message: format!(
                "chunk shape {} of {itemsize}-byte values is larger than the 2 GiB a chunk may \
                 take; use smaller chunks",
                shape_text(chunk_shape)
            ),
        })
}

/// The name of the first codec of the core chain in a codec list, for error messages.
fn first_codec_name(codecs: &Value) -> &'static str {
    codecs
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| table::by_v3_name(c.get("name")?.as_str()?))
        .find(|r| matches!(r.runs, Runs::ScaleOffset | Runs::CastValue | Runs::Bytes))
        .map_or("codec chain", |r| r.name)
}

/// Equal values, with every NaN equal to every NaN of the same type.
fn same_value(a: Scalar, b: Scalar) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if x.is_nan() && y.is_nan() => a.data_type() == b.data_type(),
        _ => a == b,
    }
}

/// A shape: a list of non-negative integers.
pub fn parse_shape(value: &Value) -> Result<Vec<usize>> {
    let Value::Array(dims) = value else {
        return Err(Error::InvalidMetadata {
            message: format!("a shape must be a list of integers, got {value}"),
        });
    };
    dims.iter()
        .map(|d| {
            d.as_u64()
                .and_then(|d| usize::try_from(d).ok())
                .ok_or_else(|| Error::InvalidMetadata {
                    message: format!("shape entry {d} is not a non-negative integer"),
                })
        })
        .collect()
}
