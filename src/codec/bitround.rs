//! numcodecs' `bitround` (zarr v3 `numcodecs.bitround`, zarr v2 filter `bitround`): a float
//! array's mantissa rounded to `keepbits` bits, to nearest with ties to even on the bit pattern
//! (Klöwer et al. 2021), as numcodecs 0.17.1 encodes it: the pattern as a signed integer of
//! the float's width, plus its lowest kept bit and half a quantum less one, wrapping, then the
//! dropped bits cleared. Decoding gives the stored floats as they are.

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, Error, Result};
use crate::json::Value;

const BITROUND: &str = "bitround";

#[derive(Debug, Clone)]
pub struct BitRound {
    keepbits: u32,
    dtype: DataType,
}

impl BitRound {
    /// From `{"keepbits": n}`, for arrays of `dtype` (float16, float32 or float64, whose
    /// mantissas have 10, 23 and 52 bits: `keepbits` at most that).
    pub fn new(configuration: Option<&Value>, dtype: DataType) -> Result<Self> {
        let mantissa = match dtype {
            DataType::Float16 => 10,
            DataType::Float32 => 23,
            DataType::Float64 => 52,
            other => {
                return Err(Error::UnsupportedDataType {
                    codec: BITROUND,
                    data_type: other.name().to_string(),
                    reason: "it rounds float mantissas (float16, float32, float64)".to_string(),
                })
            }
        };
        let config = configuration.and_then(Value::as_object);
        if let Some(key) = config.and_then(|c| c.keys().find(|k| *k != "keepbits")) {
            return Err(Error::config(
                BITROUND,
                format!("unknown key {}", quoted(key)),
            ));
        }
        let given = config.and_then(|c| c.get("keepbits"));
        let keepbits = given
            .and_then(Value::as_u64)
            .filter(|&k| k <= mantissa)
            .ok_or_else(|| {
                Error::config(
                    BITROUND,
                    format!(
                        "keepbits must be an integer from 0 to {mantissa} for {dtype}, got {}",
                        given.map_or("nothing".to_string(), Value::to_string)
                    ),
                )
            })? as u32;
        Ok(Self { keepbits, dtype })
    }

    pub fn data_type(&self) -> DataType {
        self.dtype
    }

    /// The rounded values.
    pub fn encode(&self, data: &ArrayData) -> Result<ArrayData> {
        let drop = match self.dtype {
            DataType::Float16 => 10,
            DataType::Float32 => 23,
            _ => 52,
        } - self.keepbits;
        if drop == 0 {
            return Ok(data.clone());
        }
        // numcodecs: b += ((b >> drop) & 1) + (1 << (drop - 1)) - 1; b &= mask (signed, wrapping).
        macro_rules! round {
            ($v:expr, $int:ty, $uint:ty, $from:expr, $to:expr) => {{
                let half: $int = (1 << (drop - 1)) - 1;
                let mask: $int = (-1 as $int) >> drop << drop;
                $v.iter()
                    .map(|&x| {
                        let b = $to(x) as $int;
                        $from((b.wrapping_add(((b >> drop) & 1) + half) & mask) as $uint)
                    })
                    .collect()
            }};
        }
        Ok(match data {
            ArrayData::Float16(v) => ArrayData::Float16(round!(
                v,
                i16,
                u16,
                half::f16::from_bits,
                half::f16::to_bits
            )),
            ArrayData::Float32(v) => {
                ArrayData::Float32(round!(v, i32, u32, f32::from_bits, f32::to_bits))
            }
            ArrayData::Float64(v) => {
                ArrayData::Float64(round!(v, i64, u64, f64::from_bits, f64::to_bits))
            }
            other => {
                return Err(Error::WrongArrayType {
                    expected: self.dtype.name().into(),
                    actual: other.data_type().name().into(),
                })
            }
        })
    }

    /// The stored values, as they are.
    pub fn decode(&self, data: &ArrayData) -> Result<ArrayData> {
        Ok(data.clone())
    }

    /// The fill value, unchanged (numcodecs rounds chunks, not the array's fill value).
    pub fn encode_scalar(&self, fill: Scalar) -> Result<Scalar> {
        Ok(fill)
    }

    pub fn to_json(&self) -> Value {
        Value::object([
            ("name", Value::from("numcodecs.bitround")),
            (
                "configuration",
                Value::object([("keepbits", Value::from(u64::from(self.keepbits)))]),
            ),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numcodecs.BitRound(keepbits=3).encode(np.array([1.0625, 1.1875, -3.3, 1e308], "<f8"))
    /// is 1.0, 1.25, -3.25, 1.0112023883600527e308 (ties to even on the pattern: 1.0625 keeps
    /// 1.0, 1.1875 goes up to 1.25).
    #[test]
    fn rounds_as_numcodecs() {
        let b = BitRound::new(
            Some(&"{\"keepbits\": 3}".parse().unwrap()),
            DataType::Float64,
        )
        .unwrap();
        let out = b
            .encode(&ArrayData::Float64(vec![1.0625, 1.1875, -3.3, 1e308]))
            .unwrap();
        assert_eq!(
            out,
            ArrayData::Float64(vec![1.0, 1.25, -3.25, 1.0112023883600527e308])
        );
        assert!(BitRound::new(
            Some(&"{\"keepbits\": 24}".parse().unwrap()),
            DataType::Float32
        )
        .is_err());
        assert_eq!(
            BitRound::new(None, DataType::Int16).unwrap_err().code(),
            "UNSUPPORTED_DATA_TYPE"
        );
    }
}
