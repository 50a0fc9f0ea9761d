//! numcodecs' `quantize` (zarr v2 filter `quantize`, zarr v3 `numcodecs.quantize`): float
//! values rounded to a power-of-two fraction that keeps `digits` decimal digits, then stored
//! as `astype`. As numcodecs 0.17.1: `bits = ceil(log2(10^-e))` with `e` the decimal exponent
//! of `10^-digits` (floor below 1, ceil above), `scale = 2^bits`, `enc = around(scale * arr) /
//! scale` in the array's float type (ties to even), then `enc.astype(astype)`; decoding is
//! `astype` converted to `dtype`.

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, Error, Result};
use crate::json::Value;
use crate::widths::{f16_to_f64, f64_to_f16, f64_to_f32};

const QUANTIZE: &str = "quantize";

#[derive(Debug, Clone)]
pub struct Quantize {
    digits: i64,
    dtype: DataType,
    astype: DataType,
    scale: f64,
}

impl Quantize {
    /// From `{"digits", "dtype", "astype"}` (numpy dtype strings), for arrays of `dtype`.
    pub fn new(configuration: Option<&Value>, input: DataType) -> Result<Self> {
        let config = configuration.and_then(Value::as_object);
        if let Some(key) = config.and_then(|c| {
            c.keys()
                .find(|k| !["digits", "dtype", "astype"].contains(&k.as_str()))
        }) {
            return Err(Error::config(
                QUANTIZE,
                format!("unknown key {}", quoted(key)),
            ));
        }
        let get = |key: &str| config.and_then(|c| c.get(key));
        let digits = get("digits")
            .and_then(Value::as_i64)
            .ok_or_else(|| Error::config(QUANTIZE, "digits must be an integer"))?;
        let float = |key: &str| -> Result<Option<DataType>> {
            let Some(v) = get(key) else { return Ok(None) };
            let text = v.as_str().unwrap_or("");
            match DataType::from_numpy(text) {
                Some((dt, false)) if dt.is_float() => Ok(Some(dt)),
                _ => Err(Error::config(
                    QUANTIZE,
                    format!("{key} must be a little-endian float dtype, got {v}"),
                )),
            }
        };
        let dtype = float("dtype")?.ok_or_else(|| Error::config(QUANTIZE, "dtype is required"))?;
        if dtype == DataType::Float16 {
            // (numpy's float16 arithmetic with a Python float scale is not modelled here.)
            return Err(Error::UnsupportedDataType {
                codec: QUANTIZE,
                data_type: dtype.name().to_string(),
                reason: "quantize is read for float32 and float64".to_string(),
            });
        }
        if dtype != input {
            return Err(Error::config(
                QUANTIZE,
                format!("dtype {dtype} is not the data type it receives, {input}"),
            ));
        }
        let astype = float("astype")?.unwrap_or(dtype);
        // numcodecs: e = floor or ceil of log10(10^-digits), which is -digits; bits =
        // ceil(log2(10^-e)) = ceil(digits * log2(10)) (never an integer but at 0; checked
        // against Python's math for digits -30 to 30, the range read). No libm: its pow and
        // log cost every module several KB.
        if !(-30..=30).contains(&digits) {
            return Err(Error::config(
                QUANTIZE,
                format!("digits {digits} is not from -30 to 30"),
            ));
        }
        let bits = (digits as f64 * std::f64::consts::LOG2_10).ceil() as i64;
        let scale = f64::from_bits(((1023 + bits) as u64) << 52);
        Ok(Self {
            digits,
            dtype,
            astype,
            scale,
        })
    }

    pub fn encoded_type(&self) -> DataType {
        self.astype
    }

    /// Whether decoding gives back what is stored (`astype` is `dtype`).
    pub fn decodes_as_stored(&self) -> bool {
        self.astype == self.dtype
    }

    /// One value rounded in `dtype`, then converted to `astype` (as f64).
    fn round(&self, v: f64) -> f64 {
        let s = self.scale;
        match self.dtype {
            DataType::Float64 => (s * v).round_ties_even() / s,
            DataType::Float32 => {
                let (v, s) = (v as f32, s as f32);
                f64::from((s * v).round_ties_even() / s)
            }
            _ => v,
        }
    }

    pub fn encode(&self, data: &ArrayData) -> Result<ArrayData> {
        let values: Vec<f64> = match data {
            ArrayData::Float64(v) => v.iter().map(|&x| self.round(x)).collect(),
            ArrayData::Float32(v) => v.iter().map(|&x| self.round(f64::from(x))).collect(),
            ArrayData::Float16(v) => v.iter().map(|&x| self.round(f16_to_f64(x))).collect(),
            other => {
                return Err(Error::WrongArrayType {
                    expected: self.dtype.name().into(),
                    actual: other.data_type().name().into(),
                })
            }
        };
        Ok(floats(self.astype, values))
    }

    pub fn decode(&self, data: &ArrayData) -> Result<ArrayData> {
        let values: Vec<f64> = match data {
            ArrayData::Float64(v) => v.clone(),
            ArrayData::Float32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            ArrayData::Float16(v) => v.iter().map(|&x| f16_to_f64(x)).collect(),
            other => {
                return Err(Error::WrongArrayType {
                    expected: self.astype.name().into(),
                    actual: other.data_type().name().into(),
                })
            }
        };
        Ok(floats(self.dtype, values))
    }

    /// The fill value, converted to `astype` (numcodecs quantizes chunks, not the fill value).
    pub fn encode_scalar(&self, fill: Scalar) -> Result<Scalar> {
        let v = fill.as_f64().unwrap_or(f64::NAN);
        Ok(match floats(self.astype, vec![v]).get(0) {
            Some(s) => s,
            None => fill,
        })
    }

    pub fn to_json(&self) -> Value {
        let numpy = |dt: DataType| match dt {
            DataType::Float16 => "<f2",
            DataType::Float32 => "<f4",
            _ => "<f8",
        };
        Value::object([
            ("name", Value::from("numcodecs.quantize")),
            (
                "configuration",
                Value::object([
                    ("digits", Value::from(self.digits)),
                    ("dtype", Value::from(numpy(self.dtype))),
                    ("astype", Value::from(numpy(self.astype))),
                ]),
            ),
        ])
    }
}

/// f64 values as an array of the float type `dt` (rounded to nearest).
fn floats(dt: DataType, values: Vec<f64>) -> ArrayData {
    match dt {
        DataType::Float16 => ArrayData::Float16(values.into_iter().map(f64_to_f16).collect()),
        DataType::Float32 => ArrayData::Float32(values.into_iter().map(f64_to_f32).collect()),
        _ => ArrayData::Float64(values),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quantize(digits: i64, dtype: &str) -> Quantize {
        let config = format!(r#"{{"digits": {digits}, "dtype": "{dtype}"}}"#);
        let dt = DataType::from_numpy(dtype).unwrap().0;
        Quantize::new(Some(&config.parse().unwrap()), dt).unwrap()
    }

    /// numcodecs.Quantize(digits=d, dtype="<f8").encode([0.1234, 12.3456, -7.777, 2.5/1024])
    /// in numcodecs 0.17.1, and the same at float32 for 2 digits.
    #[test]
    fn encodes_as_numcodecs() {
        let x = ArrayData::Float64(vec![0.1234, 12.3456, -7.777, 2.5 / 1024.0]);
        let cases: [(i64, [f64; 4]); 4] = [
            (0, [0.0, 12.0, -8.0, 0.0]),
            (1, [0.125, 12.375, -7.75, 0.0]),
            (2, [0.125, 12.34375, -7.7734375, 0.0]),
            (3, [0.123046875, 12.345703125, -7.77734375, 0.001953125]),
        ];
        for (digits, want) in cases {
            let got = quantize(digits, "<f8").encode(&x).unwrap();
            assert_eq!(got, ArrayData::Float64(want.to_vec()), "{digits}");
        }
        let x32 = ArrayData::Float32(vec![0.1234, 12.3456, -7.777, 2.5 / 1024.0]);
        let got = quantize(2, "<f4").encode(&x32).unwrap();
        assert_eq!(
            got,
            ArrayData::Float32(vec![0.125, 12.34375, -7.7734375, 0.0])
        );
    }
}
