//! One array -> array codec of an array's codec list as a codec pipeline (zarrita's) runs it:
//! built alone, with the data type and fill value the codecs before it hand it.
//!
//! When a scale_offset is followed by a cast_value that stores floats as integers, the pair
//! decodes in one pass: the cast_value runs both steps and the scale_offset passes its chunk
//! through. Both sides reach that decision through [`fused_pair`], so they always agree.

use super::table::Runs;
use super::{codec_name_and_config, ArrayCodec, Bytes, CastValue, FusedDecode, ScaleOffset};
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};
use crate::json::Value;

/// How a pipeline codec decodes.
#[derive(Debug, Clone)]
pub enum DecodeMode {
    /// On its own.
    Codec,
    /// Passes chunks through: the cast_value after it decodes both.
    PassThrough,
    /// Decodes the scale_offset before it too, in one pass.
    Fused(FusedDecode),
}

/// One array -> array codec, ready for a pipeline.
#[derive(Debug, Clone)]
pub struct PipelineCodec {
    pub codec: ArrayCodec,
    /// The data type it receives when encoding.
    pub input: DataType,
    /// The fill value after it.
    pub encoded_fill: Scalar,
    pub decode: DecodeMode,
}

impl PipelineCodec {
    /// The codec at `index` of `codecs`, receiving `input` values with fill value `fill`
    /// (`Null` for the type's default).
    pub fn new(codecs: &[Value], index: usize, input: DataType, fill: &Value) -> Result<Self> {
        let this = codecs.get(index).ok_or_else(|| Error::InvalidMetadata {
            message: format!("codec index {index} is outside the codec list"),
        })?;
        let fill = match fill {
            Value::Null => input.default_scalar(),
            v => Scalar::from_json(input, v).map_err(|e| e.in_context("fill_value ", |e| e))?,
        };
        let (name, config) = codec_name_and_config(this)?;
        let codec = ArrayCodec::new(name, config, input).unwrap_or_else(|| {
            Err(Error::UnknownCodec {
                name: name.to_string(),
            })
        })?;
        let encoded_fill = codec.encode_fill(fill)?;
        let decode = match codec {
            ArrayCodec::ScaleOffset(_) if fused_pair(codecs, index, input).is_some() => {
                DecodeMode::PassThrough
            }
            ArrayCodec::CastValue(_) => match index.checked_sub(1) {
                Some(prev) => {
                    fused_pair(codecs, prev, input).map_or(DecodeMode::Codec, DecodeMode::Fused)
                }
                None => DecodeMode::Codec,
            },
            _ => DecodeMode::Codec,
        };
        Ok(Self {
            codec,
            input,
            encoded_fill,
            decode,
        })
    }
}

/// The fused decode of the scale_offset at `index` and the cast_value after it, if any.
fn fused_pair(codecs: &[Value], index: usize, dtype: DataType) -> Option<FusedDecode> {
    let (so_name, so_config) = codec_name_and_config(codecs.get(index)?).ok()?;
    let (cv_name, cv_config) = codec_name_and_config(codecs.get(index + 1)?).ok()?;
    let runs = |name| super::table::by_v3_name(name).map(|r| r.runs);
    if runs(so_name) != Some(Runs::ScaleOffset) || runs(cv_name) != Some(Runs::CastValue) {
        return None;
    }
    let so = ScaleOffset::new(so_config, dtype).ok()?;
    let cv = CastValue::new(cv_config, dtype).ok()?;
    let little = Value::object([("endian", Value::from("little"))]);
    let bytes = Bytes::new(Some(&little), cv.target()).ok()?;
    FusedDecode::plan(
        dtype,
        &[ArrayCodec::ScaleOffset(so), ArrayCodec::CastValue(cv)],
        &bytes,
    )
}
