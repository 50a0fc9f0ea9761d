//! numcodecs' `fixedscaleoffset` on float32 and float16 arrays, exactly as numcodecs 0.17.1
//! (with numpy 2) runs it in both directions: encoding computes `around((x - offset) * scale)`
//! in the array's own type (numpy's rule for an array and a Python number: offset and scale
//! rounded to that type, each operation rounded to it), then stores `astype`; decoding computes
//! `enc / scale + offset` in float64 (an integer array divided by a Python number) and rounds
//! once to the array's type. A chain of zarr-extensions codecs cannot do both: the layout's
//! translation of the filter uses this codec for float32 and float16 (float64's is
//! `scale_offset` and `cast_value`, which is exact both ways).
//!
//! Every operation is done in float64 and rounded to the array's type: for +, - and *, double
//! rounding through float64 gives the correctly rounded result of float32 (and of float16,
//! which numpy computes through float32), since 53 >= 2 * 24 + 2.

use half::f16;

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, Error, Result};
use crate::json::Value;
use crate::widths::{f16_to_f64, f64_to_f16};

const NAME: &str = "fixedscaleoffset";

#[derive(Debug, Clone)]
pub struct FixedScaleOffset {
    dtype: DataType,
    astype: DataType,
    offset: f64,
    scale: f64,
    config: Value,
}

/// `v` rounded to the float type `dt` (to nearest, ties to even), as an f64.
fn round_to(dt: DataType, v: f64) -> f64 {
    match dt {
        DataType::Float32 => f64::from(v as f32),
        DataType::Float16 => f16_to_f64(f64_to_f16(v)),
        _ => v,
    }
}

impl FixedScaleOffset {
    /// From numcodecs' configuration (`offset`, `scale`, `dtype`, `astype`: numpy dtype
    /// strings), for arrays of `input`: a float32 or float16 `dtype` and an integer `astype`.
    pub fn new(configuration: Option<&Value>, input: DataType) -> Result<Self> {
        let config = configuration.and_then(Value::as_object);
        if let Some(key) = config.and_then(|c| {
            c.keys()
                .find(|k| !["offset", "scale", "dtype", "astype"].contains(&k.as_str()))
        }) {
            return Err(Error::config(NAME, format!("unknown key {}", quoted(key))));
        }
        let get = |key: &str| config.and_then(|c| c.get(key));
        let number = |key: &str| {
            get(key)
                .and_then(Value::as_f64)
                .filter(|v| v.is_finite())
                .ok_or_else(|| Error::config(NAME, format!("{key} must be a finite number")))
        };
        let (offset, scale) = (number("offset")?, number("scale")?);
        if scale == 0.0 {
            return Err(Error::config(NAME, "scale must not be 0"));
        }
        let dtype_of = |key: &str| {
            let text = get(key).and_then(Value::as_str).unwrap_or("");
            DataType::from_numpy(text).map(|(t, _)| t).ok_or_else(|| {
                Error::config(
                    NAME,
                    format!("{key} must be a numpy dtype, got {}", quoted(text)),
                )
            })
        };
        let dtype = dtype_of("dtype")?;
        let astype = dtype_of("astype")?;
        if dtype != input {
            return Err(Error::config(
                NAME,
                format!("dtype {dtype} is not the data type it receives, {input}"),
            ));
        }
        if !matches!(dtype, DataType::Float32 | DataType::Float16) || astype.is_float() {
            return Err(Error::Unsupported {
                message: format!(
                    "fixedscaleoffset from {dtype} to {astype} is not run here (float32 and \
                     float16 to an integer type are)"
                ),
            });
        }
        Ok(Self {
            dtype,
            astype,
            offset,
            scale,
            config: configuration.cloned().unwrap_or(Value::Null),
        })
    }

    pub fn encoded_type(&self) -> DataType {
        self.astype
    }

    /// One value's code, wrapped into `astype` (numpy's cast of a value beyond it is
    /// undefined; the translation this replaces wrapped), or `None` for NaN and infinities.
    fn code(&self, x: f64) -> Option<u64> {
        let (o, s) = (
            round_to(self.dtype, self.offset),
            round_to(self.dtype, self.scale),
        );
        let d = round_to(self.dtype, x - o);
        let r = round_to(self.dtype, d * s).round_ties_even();
        if !r.is_finite() {
            return None;
        }
        let bits = 8 * self.astype.size() as u32;
        // The low bits of the integer r, two's complement (r is a multiple of 2^75 beyond
        // 2^127, so its low 64 bits are 0 there).
        let low = if r.abs() < 1.7e38 {
            (r as i128) as u64
        } else {
            0
        };
        Some(if bits == 64 {
            low
        } else {
            low & ((1u64 << bits) - 1)
        })
    }

    fn floats(&self, data: &ArrayData) -> Result<Vec<f64>> {
        match (self.dtype, data) {
            (DataType::Float32, ArrayData::Float32(v)) => {
                Ok(v.iter().map(|&x| f64::from(x)).collect())
            }
            (DataType::Float16, ArrayData::Float16(v)) => {
                Ok(v.iter().map(|&x| f16_to_f64(x)).collect())
            }
            (_, other) => Err(Error::WrongArrayType {
                expected: self.dtype.name().into(),
                actual: other.data_type().name().into(),
            }),
        }
    }

    pub fn encode(&self, data: &ArrayData) -> Result<ArrayData> {
        let values = self.floats(data)?;
        let mut codes = Vec::with_capacity(values.len());
        for (index, &x) in values.iter().enumerate() {
            codes.push(self.code(x).ok_or_else(|| Error::NonFinite {
                codec: NAME,
                index,
                value: if x.is_nan() {
                    "NaN".into()
                } else if x.is_infinite() {
                    (if x > 0.0 { "Infinity" } else { "-Infinity" }).into()
                } else {
                    crate::decimal::json_f64(x)
                },
                reason: "numcodecs stores no integer for it",
            })?);
        }
        Ok(ints(self.astype, codes))
    }

    pub fn decode(&self, data: &ArrayData) -> Result<ArrayData> {
        let codes: Vec<f64> = match data {
            ArrayData::Int8(v) => v.iter().map(|&c| f64::from(c)).collect(),
            ArrayData::Int16(v) => v.iter().map(|&c| f64::from(c)).collect(),
            ArrayData::Int32(v) => v.iter().map(|&c| f64::from(c)).collect(),
            ArrayData::Int64(v) => v.iter().map(|&c| c as f64).collect(),
            ArrayData::UInt8(v) => v.iter().map(|&c| f64::from(c)).collect(),
            ArrayData::UInt16(v) => v.iter().map(|&c| f64::from(c)).collect(),
            ArrayData::UInt32(v) => v.iter().map(|&c| f64::from(c)).collect(),
            ArrayData::UInt64(v) => v.iter().map(|&c| c as f64).collect(),
            other => {
                return Err(Error::WrongArrayType {
                    expected: self.astype.name().into(),
                    actual: other.data_type().name().into(),
                })
            }
        };
        let values = codes.into_iter().map(|c| c / self.scale + self.offset);
        Ok(match self.dtype {
            DataType::Float16 => ArrayData::Float16(values.map(f64_to_f16).collect::<Vec<f16>>()),
            _ => ArrayData::Float32(values.map(|v| v as f32).collect()),
        })
    }

    /// The fill value's code. A NaN or infinite fill (numcodecs' C cast of it is undefined)
    /// passes as 0, as the translation this replaces stored it; a missing chunk still reads as
    /// the fill value.
    pub fn encode_scalar(&self, fill: Scalar) -> Result<Scalar> {
        let x = fill.as_f64().unwrap_or(f64::NAN);
        let code = self.code(x).unwrap_or(0);
        Ok(ints(self.astype, vec![code]).get(0).unwrap_or(fill))
    }

    pub fn to_json(&self) -> Value {
        Value::object([
            ("name", Value::from("numcodecs.fixedscaleoffset")),
            ("configuration", self.config.clone()),
        ])
    }
}

/// Codes (two's complement bits) as an array of the integer type `dt`.
fn ints(dt: DataType, codes: Vec<u64>) -> ArrayData {
    let it = codes.into_iter();
    match dt {
        DataType::Int8 => ArrayData::Int8(it.map(|c| c as i8).collect()),
        DataType::Int16 => ArrayData::Int16(it.map(|c| c as i16).collect()),
        DataType::Int32 => ArrayData::Int32(it.map(|c| c as i32).collect()),
        DataType::Int64 => ArrayData::Int64(it.map(|c| c as i64).collect()),
        DataType::UInt8 => ArrayData::UInt8(it.map(|c| c as u8).collect()),
        DataType::UInt16 => ArrayData::UInt16(it.map(|c| c as u16).collect()),
        DataType::UInt32 => ArrayData::UInt32(it.map(|c| c as u32).collect()),
        _ => ArrayData::UInt64(it.collect()),
    }
}
