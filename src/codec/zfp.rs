//! `zfp`: the array -> bytes codec that stores a chunk as one headerless zfp stream, encoded by
//! `zfp-rs` (pure Rust, bit-identical to the zfp C library) and decoded by the package's own
//! kernel (`zfp_kernel.rs`, tested against zfp-rs).
//!
//! This module's part is the zarr side: the configuration's five modes, the chunk shape as a zfp
//! field (C order reversed to nx, ny, nz, nw; 0-D as nx = 1; size-1 dimensions dropped only
//! when a chunk has more than four), and the data types: int32, int64, float32, float64 as
//! they are; int8, uint8, int16, uint16 promoted to int32 with zfp's own formulas; uint32 and
//! uint64 clamped into the signed type (as zarrs does); float16 through float32.

use crate::json::{Map, Value};
use half::f16;
use zfp_rs::{
    ZfpBitStream, ZfpConfig, ZfpDecompressionError, ZfpDimensionality, ZfpField, ZfpFieldMut,
    ZfpScalar, ZfpScalarType, ZfpStreamAlignment,
};

use super::whole_chunk::{check_chunk_bytes, WholeChunkCodec};
use super::zfp_kernel::{Decodable, Params};
use crate::array::{ArrayData, Element};
use crate::dtype::DataType;
use crate::error::{shape_text, Error, Result};
use crate::widths::{f16_to_f32, f32_to_f16};

const CODEC: &str = "zfp";

pub use super::zfp_config::ZfpMode;

/// A zfp codec bound to an array's data type and chunk shape.
#[derive(Debug, Clone)]
pub struct Zfp {
    dtype: DataType,
    mode: ZfpMode,
    configuration: Value,
    /// The zfp field's sizes, nx first (1 to 4 of them).
    dims: Vec<usize>,
    len: usize,
    config: ZfpConfig,
}

/// How a zarr data type is stored by zfp.
fn zfp_type(dtype: DataType) -> ZfpScalarType {
    match dtype {
        DataType::Float16 | DataType::Float32 => ZfpScalarType::F32,
        DataType::Float64 => ZfpScalarType::F64,
        DataType::Int64 | DataType::UInt64 => ZfpScalarType::I64,
        _ => ZfpScalarType::I32,
    }
}

/// The zfp field for a C-order chunk shape: reversed, with size-1 dimensions dropped only when
/// there are more than four; 0-D is nx = 1.
pub fn zfp_dims(chunk_shape: &[usize]) -> Result<Vec<usize>> {
    let mut dims: Vec<usize> = if chunk_shape.len() > 4 {
        chunk_shape.iter().copied().filter(|&d| d != 1).collect()
    } else {
        chunk_shape.to_vec()
    };
    if dims.len() > 4 {
        return Err(Error::config(
            CODEC,
            format!(
                "chunk shape {} has {} dimensions longer than 1; zfp takes at most 4",
                shape_text(chunk_shape),
                dims.len()
            ),
        ));
    }
    if dims.is_empty() {
        dims.push(1);
    }
    dims.reverse();
    Ok(dims)
}

impl WholeChunkCodec for Zfp {
    fn data_type(&self) -> DataType {
        self.dtype
    }

    fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>> {
        check_chunk_bytes(raw, self.len, self.dtype)?;
        self.encode(&ArrayData::from_le_bytes(self.dtype, raw)?)
    }

    fn decode_into(&self, stream: &[u8], out: &mut ArrayData) -> Result<()> {
        Zfp::decode_into(self, stream, out)
    }
}

impl Zfp {
    /// Reads the configuration for chunks of `chunk_shape` holding `dtype` values.
    pub fn new(
        configuration: Option<&Value>,
        dtype: DataType,
        chunk_shape: &[usize],
    ) -> Result<Self> {
        let mode = ZfpMode::from_json(configuration)?;
        let dims = zfp_dims(chunk_shape)?;
        // zfp works on 4- or 8-byte values, whatever the array's type.
        let len = super::chunk_len(chunk_shape, dtype.size().max(4))?;
        let ty = zfp_type(dtype);
        if matches!(mode, ZfpMode::FixedAccuracy { .. }) && !dtype.is_float() {
            return Err(Error::UnsupportedDataType {
                codec: CODEC,
                data_type: dtype.name().to_string(),
                reason: "fixed_accuracy mode is for float types; use reversible, fixed_rate or \
                         fixed_precision for integers"
                    .to_string(),
            });
        }
        let dimensionality = match dims.len() {
            1 => ZfpDimensionality::D1,
            2 => ZfpDimensionality::D2,
            3 => ZfpDimensionality::D3,
            _ => ZfpDimensionality::D4,
        };
        let config = match mode {
            ZfpMode::Reversible => ZfpConfig::reversible(),
            ZfpMode::Expert {
                minbits,
                maxbits,
                maxprec,
                minexp,
            } => ZfpConfig::expert(minbits, maxbits, maxprec, minexp).map_err(|e| {
                Error::config(
                    CODEC,
                    format!("expert parameters are invalid ({e}): minbits <= maxbits and maxprec in 1..=64 are required"),
                )
            })?,
            ZfpMode::FixedAccuracy { tolerance } => ZfpConfig::fixed_accuracy(tolerance),
            // The rate's bits per block follow the field's own dimensionality, as zfp defines
            // it (and zfpy does).
            ZfpMode::FixedRate { rate } => {
                ZfpConfig::fixed_rate(rate, ty, dimensionality, ZfpStreamAlignment::Unaligned)
                    .map_err(|e| Error::config(CODEC, format!("rate {rate}: {e}")))?
            }
            ZfpMode::FixedPrecision { precision } => ZfpConfig::fixed_precision(precision),
        };
        Ok(Self {
            dtype,
            mode,
            configuration: configuration.cloned().unwrap_or(Value::Null),
            dims,
            len,
            config,
        })
    }

    pub fn mode(&self) -> ZfpMode {
        self.mode
    }

    /// The zfp field sizes, nx first.
    pub fn field_dims(&self) -> &[usize] {
        &self.dims
    }

    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("name".into(), Value::from(CODEC));
        out.insert("configuration".into(), self.configuration.clone());
        Value::Object(out)
    }

    /// zfp's modes other than reversible cannot hold NaN or the infinities: zfp encodes them
    /// as numbers and the block around them decodes wrong as well. Refused before encoding.
    fn check_finite(&self, data: &ArrayData) -> Result<()> {
        let first = match data {
            ArrayData::Float16(v) => v
                .iter()
                .position(|&x| !f16_to_f32(x).is_finite())
                .map(|i| (i, f64::from(f16_to_f32(v[i])))),
            ArrayData::Float32(v) => v
                .iter()
                .position(|x| !x.is_finite())
                .map(|i| (i, f64::from(v[i]))),
            ArrayData::Float64(v) => v.iter().position(|x| !x.is_finite()).map(|i| (i, v[i])),
            _ => None,
        };
        match first {
            None => Ok(()),
            Some((index, value)) => Err(Error::NonFinite {
                codec: CODEC,
                index,
                value: if value.is_nan() {
                    "NaN".into()
                } else {
                    format!("{value}")
                },
                reason: "zfp's lossy modes (fixed_accuracy, fixed_rate, fixed_precision, expert) \
                         cannot hold NaN or infinities; use mode reversible, or replace them \
                         (e.g. by a finite fill value)",
            }),
        }
    }

    /// Compresses a chunk into a headerless zfp stream.
    pub fn encode(&self, data: &ArrayData) -> Result<Vec<u8>> {
        if data.data_type() != self.dtype {
            return Err(Error::WrongArrayType {
                expected: self.dtype.name().into(),
                actual: data.data_type().name().into(),
            });
        }
        if data.len() != self.len {
            return Err(Error::ChunkLength {
                what: "elements",
                expected: self.len,
                actual: data.len(),
            });
        }
        if self.len == 0 {
            return Ok(Vec::new());
        }
        // zfp's reversible mode is any minimum exponent below ZFP_MIN_EXP (-1074), also as
        // expert parameters: zfp-rs decodes it.
        if self.config.min_exp() >= -1074 {
            self.check_finite(data)?;
        }
        match data {
            ArrayData::Float32(v) => self.compress(v),
            ArrayData::Float64(v) => self.compress(v),
            ArrayData::Int32(v) => self.compress(v),
            ArrayData::Int64(v) => self.compress(v),
            ArrayData::Float16(v) => {
                self.compress(&v.iter().map(|&x| f16_to_f32(x)).collect::<Vec<_>>())
            }
            ArrayData::Int8(v) => {
                self.compress(&v.iter().map(|&x| i32::from(x) << 23).collect::<Vec<_>>())
            }
            ArrayData::UInt8(v) => self.compress(
                &v.iter()
                    .map(|&x| (i32::from(x) - 0x80) << 23)
                    .collect::<Vec<_>>(),
            ),
            ArrayData::Int16(v) => {
                self.compress(&v.iter().map(|&x| i32::from(x) << 15).collect::<Vec<_>>())
            }
            ArrayData::UInt16(v) => self.compress(
                &v.iter()
                    .map(|&x| (i32::from(x) - 0x8000) << 15)
                    .collect::<Vec<_>>(),
            ),
            ArrayData::UInt32(v) => self.compress(
                &v.iter()
                    .map(|&x| x.min(i32::MAX as u32) as i32)
                    .collect::<Vec<_>>(),
            ),
            ArrayData::UInt64(v) => self.compress(
                &v.iter()
                    .map(|&x| x.min(i64::MAX as u64) as i64)
                    .collect::<Vec<_>>(),
            ),
        }
    }

    /// Decompresses a headerless zfp stream into a chunk. A stream that ends before the field
    /// does is an error; other corruption decodes to whatever values the bits give (zfp cannot
    /// tell). Memory is sized by the chunk shape, never by the stream.
    pub fn decode(&self, bytes: &[u8]) -> Result<ArrayData> {
        if self.len == 0 {
            return ArrayData::from_le_bytes(self.dtype, &[]);
        }
        Ok(match self.dtype {
            DataType::Float32 => f32::into_array(self.decompress(bytes)?),
            DataType::Float64 => f64::into_array(self.decompress(bytes)?),
            DataType::Int32 => i32::into_array(self.decompress(bytes)?),
            DataType::Int64 => i64::into_array(self.decompress(bytes)?),
            DataType::Float16 => f16::into_array(
                self.decompress::<f32>(bytes)?
                    .into_iter()
                    .map(f32_to_f16)
                    .collect(),
            ),
            DataType::Int8 => i8::into_array(demote(self.decompress(bytes)?, 8, true)),
            DataType::UInt8 => u8::into_array(demote(self.decompress(bytes)?, 8, false)),
            DataType::Int16 => i16::into_array(demote(self.decompress(bytes)?, 16, true)),
            DataType::UInt16 => u16::into_array(demote(self.decompress(bytes)?, 16, false)),
            DataType::UInt32 => u32::into_array(
                self.decompress::<i32>(bytes)?
                    .into_iter()
                    .map(|v| v.max(0) as u32)
                    .collect(),
            ),
            DataType::UInt64 => u64::into_array(
                self.decompress::<i64>(bytes)?
                    .into_iter()
                    .map(|v| v.max(0) as u64)
                    .collect(),
            ),
        })
    }

    fn compress<T: ZfpScalar>(&self, values: &[T]) -> Result<Vec<u8>> {
        let failed = |what: String| Error::InvalidMetadata {
            message: format!("zfp could not compress the chunk: {what}"),
        };
        let field = self.field(values).map_err(|e| failed(e.to_string()))?;
        let capacity = self
            .config
            .maximum_size(T::SCALAR_TYPE, field.dims())
            .ok_or_else(|| failed("the chunk is too large".into()))?;
        let mut stream = ZfpBitStream::new(capacity).map_err(|e| failed(e.to_string()))?;
        let size = stream
            .compress(&self.config, &field)
            .map_err(|e| failed(e.to_string()))?;
        let mut bytes = stream.as_bytes().to_vec();
        bytes.truncate(size);
        Ok(bytes)
    }

    fn decompress<T: ZfpScalar + Decodable>(&self, bytes: &[u8]) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len];
        self.decompress_into(bytes, &mut out)?;
        Ok(out)
    }

    /// Decodes into `out`, which holds this chunk's count of values, with the package's own
    /// kernel (every mode; zfp's reversible mode is any minimum exponent below -1074, also as
    /// expert parameters).
    fn decompress_into<T: ZfpScalar + Decodable>(&self, bytes: &[u8], out: &mut [T]) -> Result<()> {
        let params = Params {
            minbits: self.config.min_bits(),
            maxbits: self.config.max_bits(),
            maxprec: self.config.max_prec(),
            minexp: self.config.min_exp(),
        };
        super::zfp_kernel::decode(bytes, &params, &self.dims, out)
    }

    /// [`Zfp::decode`] into `out`, reusing its allocation when it already holds this chunk's
    /// count of values of the type zfp decodes (a reader decoding chunk after chunk of one
    /// shape): no new buffer to allocate and zero for each chunk. After an error, `out`'s
    /// values are unspecified.
    pub fn decode_into(&self, bytes: &[u8], out: &mut ArrayData) -> Result<()> {
        let n = self.len;
        match (self.dtype, &mut *out) {
            (DataType::Float32, ArrayData::Float32(v)) if n > 0 && v.len() == n => {
                self.decompress_into(bytes, v)
            }
            (DataType::Float64, ArrayData::Float64(v)) if n > 0 && v.len() == n => {
                self.decompress_into(bytes, v)
            }
            (DataType::Int32, ArrayData::Int32(v)) if n > 0 && v.len() == n => {
                self.decompress_into(bytes, v)
            }
            (DataType::Int64, ArrayData::Int64(v)) if n > 0 && v.len() == n => {
                self.decompress_into(bytes, v)
            }
            _ => {
                *out = self.decode(bytes)?;
                Ok(())
            }
        }
    }

    /// zfp-rs's decode: the reference the kernel is tested against.
    pub fn decode_with_zfp_rs(&self, bytes: &[u8]) -> Result<ArrayData> {
        Ok(match zfp_type(self.dtype) {
            ZfpScalarType::F32 => {
                f32::into_array(self.decompress_with_zfp_rs(bytes, vec![0.0; self.len])?)
            }
            ZfpScalarType::F64 => {
                f64::into_array(self.decompress_with_zfp_rs(bytes, vec![0.0; self.len])?)
            }
            ZfpScalarType::I32 => {
                i32::into_array(self.decompress_with_zfp_rs(bytes, vec![0; self.len])?)
            }
            ZfpScalarType::I64 => {
                i64::into_array(self.decompress_with_zfp_rs(bytes, vec![0; self.len])?)
            }
        })
    }

    /// The zfp type's values the kernel decodes (the reference's counterpart of
    /// [`Zfp::decode_with_zfp_rs`]), before any promotion back to the array's type.
    pub fn decode_with_kernel(&self, bytes: &[u8]) -> Result<ArrayData> {
        Ok(match zfp_type(self.dtype) {
            ZfpScalarType::F32 => f32::into_array(self.decompress(bytes)?),
            ZfpScalarType::F64 => f64::into_array(self.decompress(bytes)?),
            ZfpScalarType::I32 => i32::into_array(self.decompress(bytes)?),
            ZfpScalarType::I64 => i64::into_array(self.decompress(bytes)?),
        })
    }

    fn decompress_with_zfp_rs<T: ZfpScalar + Default + Clone>(
        &self,
        bytes: &[u8],
        mut out: Vec<T>,
    ) -> Result<Vec<T>> {
        let mut stream = ZfpBitStream::from_bytes(bytes).map_err(|e| Error::InvalidMetadata {
            message: format!("zfp stream: {e}"),
        })?;
        let mut field = self
            .with_dims_mut(&mut out)
            .map_err(|e| Error::InvalidMetadata {
                message: format!("zfp field: {e}"),
            })?;
        stream
            .decompress(&self.config, &mut field)
            .map_err(|e| match e {
                ZfpDecompressionError::Truncated { required, capacity } => Error::ChunkLength {
                    what: "zfp stream bytes",
                    expected: required,
                    actual: capacity.min(bytes.len()),
                },
                other => Error::InvalidMetadata {
                    message: format!("zfp stream: {other}"),
                },
            })?;
        Ok(out)
    }

    fn field<'a, T: ZfpScalar>(
        &self,
        values: &'a [T],
    ) -> std::result::Result<ZfpField<'a>, zfp_rs::ZfpFieldError> {
        match *self.dims.as_slice() {
            [x] => ZfpField::new(values, [x]),
            [x, y] => ZfpField::new(values, [x, y]),
            [x, y, z] => ZfpField::new(values, [x, y, z]),
            [x, y, z, w, ..] => ZfpField::new(values, [x, y, z, w]),
            [] => ZfpField::new(values, [1]),
        }
    }

    fn with_dims_mut<'a, T: ZfpScalar>(
        &self,
        out: &'a mut [T],
    ) -> std::result::Result<ZfpFieldMut<'a>, zfp_rs::ZfpFieldError> {
        match *self.dims.as_slice() {
            [x] => ZfpFieldMut::new(out, [x]),
            [x, y] => ZfpFieldMut::new(out, [x, y]),
            [x, y, z] => ZfpFieldMut::new(out, [x, y, z]),
            [x, y, z, w, ..] => ZfpFieldMut::new(out, [x, y, z, w]),
            [] => ZfpFieldMut::new(out, [1]),
        }
    }
}

/// zfp's demotion from int32 to an N-bit integer: shift back, clamp into range.
fn demote<T: TryFrom<i32> + Default>(values: Vec<i32>, bits: u32, signed: bool) -> Vec<T> {
    let (lo, hi) = if signed {
        (-(1i32 << (bits - 1)), (1i32 << (bits - 1)) - 1)
    } else {
        (0, (1i32 << bits) - 1)
    };
    values
        .into_iter()
        .map(|v| {
            let shifted = v >> (31 - bits);
            let v = if signed {
                shifted
            } else {
                shifted + (1 << (bits - 1))
            };
            T::try_from(v.clamp(lo, hi)).unwrap_or_default()
        })
        .collect()
}
