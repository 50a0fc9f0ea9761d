//! `numcodecs.zfpy` (zarr v3) and `zfpy` (a zarr v2 compressor): the zfp codec zarr-python
//! users have. numcodecs hands a chunk, as a C-order array of its own shape, to zfpy 1.0.1's
//! `compress_numpy(..., write_header=True)`: a zfp stream with zfp's full header (magic and
//! codec version, the field's type and sizes, the mode), which `decompress_numpy` reads back
//! without any other configuration.
//!
//! Decoding reads the header (zfp-rs), checks that it describes this array's chunks (type and
//! shape), and decodes what follows with the package's own kernel, as `zfp` does. Encoding
//! writes the header and the stream with zfp-rs in one bit stream, as zfpy does, so that the
//! bytes are zfpy's. numcodecs' configuration: `mode` 4 (fixed accuracy, `tolerance`), 2
//! (fixed rate, `rate`) or 3 (fixed precision, `precision`); the mode's parameter below 0 is
//! zfp's reversible mode (numcodecs' default, `ZFPY()`, is mode 4 with tolerance -1). zfpy
//! sets a rate for no scalar type (`zfp_type_none`): the block's bits are `floor(4^d * rate +
//! 0.5)` with no per-type minimum.

use zfp_rs::{
    ZfpBitStream, ZfpConfig, ZfpField, ZfpFieldMetadata, ZfpHeaderMask, ZfpScalar, ZfpScalarType,
};

use super::whole_chunk::{check_chunk_bytes, WholeChunkCodec};
use super::zfp_kernel::{Decodable, Params};
use crate::array::{ArrayData, Element};
use crate::dtype::DataType;
use crate::error::{shape_text, Error, Result};
use crate::json::Value;

const CODEC: &str = "numcodecs.zfpy";

/// The key zfpy's configuration is wrapped in (see [`super::whole_chunk_configuration`]), so
/// that the zfp module (whose class takes a configuration alone) builds this codec, not `zfp`.
pub const WRAPPED: &str = "numcodecs.zfpy";

/// The zfpy codec bound to an array's data type and chunk shape.
#[derive(Debug, Clone)]
pub struct Zfpy {
    dtype: DataType,
    /// The chunk's zfp field, nx first; unused sizes 0 (as the header holds them).
    dims: [usize; 4],
    ndim: usize,
    len: usize,
    /// How a chunk is encoded, or why numcodecs cannot encode with this configuration.
    encoding: std::result::Result<ZfpConfig, String>,
}

/// zfpy's scalar type of a data type: float32, float64, int32 and int64 only.
fn scalar_type(dtype: DataType) -> Option<ZfpScalarType> {
    match dtype {
        DataType::Float32 => Some(ZfpScalarType::F32),
        DataType::Float64 => Some(ZfpScalarType::F64),
        DataType::Int32 => Some(ZfpScalarType::I32),
        DataType::Int64 => Some(ZfpScalarType::I64),
        _ => None,
    }
}

fn type_name(t: ZfpScalarType) -> &'static str {
    match t {
        ZfpScalarType::F32 => "float32",
        ZfpScalarType::F64 => "float64",
        ZfpScalarType::I32 => "int32",
        ZfpScalarType::I64 => "int64",
    }
}

/// The zfp parameters numcodecs' configuration asks zfpy for (see the module's notes).
fn encoding_of(
    config: Option<&Value>,
    ndim: usize,
) -> Result<std::result::Result<ZfpConfig, String>> {
    let number = |key: &str| -> Result<f64> {
        match config.and_then(|c| c.get(key)) {
            None | Some(Value::Null) => Ok(-1.0),
            Some(v) => v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                Error::config(CODEC, format!("{key} must be a finite number, got {v}"))
            }),
        }
    };
    let mode = match config.and_then(|c| c.get("mode")) {
        None | Some(Value::Null) => 4,
        Some(v) => v
            .as_i64()
            .ok_or_else(|| Error::config(CODEC, format!("mode must be an integer, got {v}")))?,
    };
    let (tolerance, rate, precision) =
        (number("tolerance")?, number("rate")?, number("precision")?);
    // numcodecs hands zfpy the mode's own parameter alone.
    let (tolerance, rate, precision) = match mode {
        4 => (tolerance, -1.0, -1.0),
        2 => (-1.0, rate, -1.0),
        3 => (-1.0, -1.0, precision),
        other => {
            return Ok(Err(format!(
                "mode {other}: numcodecs writes modes 2 (fixed rate), 3 (fixed precision) and 4 \
                 (fixed accuracy) only"
            )))
        }
    };
    Ok(if tolerance >= 0.0 {
        Ok(ZfpConfig::fixed_accuracy(tolerance))
    } else if rate >= 0.0 {
        let bits = ((1u64 << (2 * ndim)) as f64 * rate + 0.5).floor();
        if !(1.0..=f64::from(u32::MAX)).contains(&bits) {
            Err(format!("rate {rate} gives {bits} bits a block"))
        } else {
            ZfpConfig::expert(bits as u32, bits as u32, 64, -1074)
                .map_err(|e| format!("rate {rate} ({bits} bits a block): {e}"))
        }
    } else if precision >= 0.0 {
        if precision.fract() != 0.0 || precision > f64::from(u32::MAX) {
            return Err(Error::config(
                CODEC,
                format!("precision must be an integer, got {precision}"),
            ));
        }
        Ok(ZfpConfig::fixed_precision(precision as u32))
    } else {
        Ok(ZfpConfig::reversible())
    })
}

impl Zfpy {
    /// numcodecs' configuration (as written in zarr.json, or a v2 compressor's without `id`)
    /// for chunks of `chunk_shape` holding `dtype` values.
    pub fn new(
        configuration: Option<&Value>,
        dtype: DataType,
        chunk_shape: &[usize],
    ) -> Result<Self> {
        if scalar_type(dtype).is_none() {
            return Err(Error::UnsupportedDataType {
                codec: CODEC,
                data_type: dtype.name().to_string(),
                reason: "zfpy codes float32, float64, int32 and int64 values".to_string(),
            });
        }
        if chunk_shape.is_empty() || chunk_shape.len() > 4 {
            return Err(Error::config(
                CODEC,
                format!(
                    "chunk shape {}: zfpy codes arrays of 1 to 4 dimensions",
                    shape_text(chunk_shape)
                ),
            ));
        }
        let mut dims = [0usize; 4];
        for (d, &n) in dims.iter_mut().zip(chunk_shape.iter().rev()) {
            *d = n;
        }
        Ok(Self {
            dtype,
            dims,
            ndim: chunk_shape.len(),
            len: super::chunk_len(chunk_shape, dtype.size())?,
            encoding: encoding_of(configuration, chunk_shape.len())?,
        })
    }

    fn corrupt(message: String) -> Error {
        Error::CorruptChunk {
            codec: CODEC,
            message,
        }
    }

    /// A stream's header, checked against this array's chunks: the kernel's parameters and
    /// the bits the header takes.
    fn header(&self, stream: &[u8]) -> Result<(Params, usize)> {
        // (zfp reads the stream a 64-bit word at a time: a header needs at most three.)
        let mut head = stream[..stream.len().min(24)].to_vec();
        head.resize(24, 0);
        let mut bits =
            ZfpBitStream::from_bytes(&head).map_err(|e| Self::corrupt(format!("{e}")))?;
        let header = bits.read_header(ZfpHeaderMask::FULL).map_err(|e| {
            Self::corrupt(format!(
                "not a zfp stream with a full header, as zfpy writes: {e}"
            ))
        })?;
        let (Some(meta), Some(config)) = (header.metadata, header.config) else {
            return Err(Self::corrupt("the zfp header is incomplete".into()));
        };
        if header.bits_read > 8 * stream.len() {
            return Err(Error::ChunkLength {
                what: "zfp stream bytes",
                expected: header.bits_read.div_ceil(8),
                actual: stream.len(),
            });
        }
        let expected = scalar_type(self.dtype).expect("checked when made");
        if meta.scalar_type != expected || meta.dims != self.dims {
            let dims = |d: &[usize; 4]| {
                let mut c: Vec<usize> = d.iter().copied().filter(|&n| n != 0).collect();
                c.reverse();
                shape_text(&c)
            };
            return Err(Self::corrupt(format!(
                "the zfp header says {} values of shape {}, but the array's chunks are {} of shape {}",
                type_name(meta.scalar_type),
                dims(&meta.dims),
                type_name(expected),
                dims(&self.dims)
            )));
        }
        let params = Params {
            minbits: config.min_bits(),
            maxbits: config.max_bits(),
            maxprec: config.max_prec(),
            minexp: config.min_exp(),
        };
        Ok((params, header.bits_read))
    }

    /// Decodes a stream with its header into `out` (this chunk's count of values).
    fn decode_values<T: Decodable>(&self, stream: &[u8], out: &mut [T]) -> Result<()> {
        let (params, skip) = self.header(stream)?;
        let payload = after_bits(stream, skip);
        super::zfp_kernel::decode(&payload, &params, &self.dims[..self.ndim], out)
    }

    /// A chunk's values as zfpy writes them: the full header, then the stream.
    fn compress<T: ZfpScalar>(&self, values: &[T]) -> Result<Vec<u8>> {
        let config = self
            .encoding
            .as_ref()
            .map_err(|why| Error::config(CODEC, why.clone()))?;
        let failed = |what: String| Error::InvalidMetadata {
            message: format!("zfpy could not compress the chunk: {what}"),
        };
        let field = match self.ndim {
            1 => ZfpField::new(values, [self.dims[0]]),
            2 => ZfpField::new(values, [self.dims[0], self.dims[1]]),
            3 => ZfpField::new(values, [self.dims[0], self.dims[1], self.dims[2]]),
            _ => ZfpField::new(values, self.dims),
        }
        .map_err(|e| failed(e.to_string()))?;
        // The stream, and the header's at most 148 bits.
        let capacity = config
            .maximum_size(T::SCALAR_TYPE, field.dims())
            .and_then(|n| n.checked_add(24))
            .ok_or_else(|| failed("the chunk is too large".into()))?;
        let mut stream = ZfpBitStream::new(capacity).map_err(|e| failed(e.to_string()))?;
        let meta = ZfpFieldMetadata {
            scalar_type: T::SCALAR_TYPE,
            dims: self.dims,
        };
        stream
            .write_header(config, &meta, ZfpHeaderMask::FULL)
            .map_err(|e| failed(e.to_string()))?;
        let size = stream
            .compress(config, &field)
            .map_err(|e| failed(e.to_string()))?;
        let mut bytes = stream.as_bytes().to_vec();
        bytes.truncate(size);
        Ok(bytes)
    }

    /// zfp's lossy modes cannot hold NaN or the infinities (as for `zfp`): refused.
    fn check_finite(&self, data: &ArrayData) -> Result<()> {
        if !self.encoding.as_ref().is_ok_and(|c| c.min_exp() >= -1074) {
            return Ok(());
        }
        let found = match data {
            ArrayData::Float32(v) => v
                .iter()
                .position(|x| !x.is_finite())
                .map(|i| (i, f64::from(v[i]))),
            ArrayData::Float64(v) => v.iter().position(|x| !x.is_finite()).map(|i| (i, v[i])),
            _ => None,
        };
        match found {
            None => Ok(()),
            Some((index, value)) => Err(Error::NonFinite {
                codec: CODEC,
                index,
                value: if value.is_nan() {
                    "NaN".into()
                } else {
                    format!("{value}")
                },
                reason: "zfp's lossy modes (numcodecs.zfpy's fixed accuracy, rate and precision) \
                         cannot hold NaN or infinities; use a tolerance below 0 (reversible), or \
                         replace them",
            }),
        }
    }
}

/// The bits of `stream` from bit `skip` on (zfp's streams are read least significant bit
/// first), as bytes, with zero bits to a whole 64-bit word.
fn after_bits(stream: &[u8], skip: usize) -> Vec<u8> {
    let (bytes, shift) = (skip / 8, (skip % 8) as u32);
    let rest = &stream[bytes.min(stream.len())..];
    let mut out = Vec::with_capacity(rest.len().div_ceil(8) * 8);
    if shift == 0 {
        out.extend_from_slice(rest);
    } else {
        for i in 0..rest.len() {
            let next = rest.get(i + 1).copied().unwrap_or(0);
            out.push((rest[i] >> shift) | (next << (8 - shift)));
        }
    }
    out.resize(out.len().div_ceil(8) * 8, 0);
    out
}

impl WholeChunkCodec for Zfpy {
    fn data_type(&self) -> DataType {
        self.dtype
    }

    fn encode_bytes(&self, raw: &[u8]) -> Result<Vec<u8>> {
        check_chunk_bytes(raw, self.len, self.dtype)?;
        let data = ArrayData::from_le_bytes(self.dtype, raw)?;
        self.check_finite(&data)?;
        match &data {
            ArrayData::Float32(v) => self.compress(v),
            ArrayData::Float64(v) => self.compress(v),
            ArrayData::Int32(v) => self.compress(v),
            ArrayData::Int64(v) => self.compress(v),
            _ => unreachable!("zfpy's types are checked when it is made"),
        }
    }

    fn decode_into(&self, stream: &[u8], out: &mut ArrayData) -> Result<()> {
        fn into<T: Decodable + Element>(
            z: &Zfpy,
            stream: &[u8],
            out: &mut ArrayData,
        ) -> Result<()> {
            let mut values = match T::from_array(out) {
                Some(v) if v.len() == z.len => std::mem::replace(out, ArrayData::UInt8(Vec::new())),
                _ => T::into_array(vec![T::default(); z.len]),
            };
            let result = match &mut values {
                ArrayData::Float32(v) => with(z, stream, v),
                ArrayData::Float64(v) => with(z, stream, v),
                ArrayData::Int32(v) => with(z, stream, v),
                ArrayData::Int64(v) => with(z, stream, v),
                _ => unreachable!("zfpy's types are checked when it is made"),
            };
            *out = values;
            result
        }
        fn with<T: Decodable>(z: &Zfpy, stream: &[u8], v: &mut [T]) -> Result<()> {
            z.decode_values(stream, v)
        }
        match self.dtype {
            DataType::Float32 => into::<f32>(self, stream, out),
            DataType::Float64 => into::<f64>(self, stream, out),
            DataType::Int32 => into::<i32>(self, stream, out),
            _ => into::<i64>(self, stream, out),
        }
    }
}
