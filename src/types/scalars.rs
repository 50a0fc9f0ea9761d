//! A data type's JSON scalars, both ways, in zarr v3 and v2: the default fill value, a fill
//! value read to an item's little-endian bytes, and those bytes written back as JSON.

use super::narrow::Narrow;
use super::scalar_error;
use super::time::NAT;
use super::ArrayType;
use super::Family;
use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};
use crate::json::Value;

impl ArrayType {
    /// The default fill value, as zarr-python's `default_scalar()` (zero, false, NaT, the
    /// empty string, zero bytes), in JSON.
    pub fn default_fill(&self) -> Value {
        match &self.family {
            Family::Number(dt) => dt.default_scalar().to_json(),
            Family::Bool => Value::Bool(false),
            Family::Complex(_) => Value::Array(vec![Value::from(0.0), Value::from(0.0)]),
            Family::Time { .. } => Value::from(NAT),
            Family::Utf32 { .. } | Family::String => Value::from(""),
            Family::NullTerminatedBytes { .. } | Family::Bytes => Value::from(""),
            Family::RawBytes { len } => Value::from(crate::base64::encode(&vec![0; *len])),
            Family::RawBits { bits } => Value::Array(vec![Value::from(0u64); bits / 8]),
            Family::Narrow(Narrow::Float8E8M0Fnu) => Value::from(1.0),
            Family::Narrow(n) if n.is_float() => Value::from(0.0),
            Family::Narrow(_) => Value::from(0u64),
            Family::Registered { lane, lanes, .. } => {
                Value::from(crate::base64::encode(&vec![0; lane.size() * lanes]))
            }
        }
    }

    /// Reads a JSON scalar (a fill value) of this type in `zarr_format` as one item's
    /// little-endian bytes, as zarr-python reads it (`from_json_scalar`; its forms are the same
    /// in zarr v2 and v3 but for hex floats, which only v3 has: tests/fixtures/dtypes/
    /// scalars.json holds zarr-python's). A value the type
    /// cannot hold is an error: a string longer than a fixed-length type (numpy would cut
    /// it), an integer beyond int64 for a datetime. `null` is not a scalar (zarr v2's "no
    /// fill value" is read as [`ArrayType::default_fill`] by the metadata reader).
    pub fn fill_bytes(&self, value: &Value, zarr_format: u8) -> Result<Vec<u8>> {
        let bad = |reason: &str| scalar_error(self, value, reason);
        // zarr v2 has no "0x" floats (zarr-python refuses them there).
        let hex = |v: &Value| v.as_str().is_some_and(|s| s.starts_with("0x"));
        let floats = match (&self.family, value) {
            (Family::Number(dt), v) if dt.is_float() => vec![v],
            (Family::Complex(_), Value::Array(parts)) => parts.iter().collect(),
            _ => vec![],
        };
        if zarr_format == 2 && floats.into_iter().any(hex) {
            return Err(bad("zarr v2 fill values have no \"0x\" hex floats"));
        }
        Ok(match &self.family {
            Family::Number(dt) => Scalar::from_json(*dt, value)?.to_le_bytes(),
            Family::Bool => match value {
                Value::Bool(b) => vec![u8::from(*b)],
                Value::Number(_) => match value.as_i64() {
                    Some(0) => vec![0],
                    Some(1) => vec![1],
                    _ => return Err(bad("expected true, false, 0 or 1")),
                },
                _ => return Err(bad("expected true or false")),
            },
            Family::Complex(part) => {
                let parts = match value.as_array() {
                    Some(p) if p.len() == 2 => p,
                    _ => return Err(bad("expected [real, imaginary]")),
                };
                // Each part a number, "NaN", "Infinity", "-Infinity" or hex bits (zarr-python
                // reads no decimal strings here, unlike a float's).
                let special = |v: &Value| match v.as_str() {
                    Some(s) => ["NaN", "Infinity", "-Infinity"].contains(&s) || s.starts_with("0x"),
                    None => matches!(v, Value::Number(_)),
                };
                if !parts.iter().all(special) {
                    return Err(bad("each part is a number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" bits"));
                }
                let mut out = Scalar::from_json(*part, &parts[0])?.to_le_bytes();
                out.extend(Scalar::from_json(*part, &parts[1])?.to_le_bytes());
                out
            }
            Family::Time { .. } => {
                let count = match value {
                    Value::String(s) if s == "NaT" => NAT,
                    Value::Number(n) if !n.as_str().contains(['.', 'e', 'E']) => n
                        .as_str()
                        .parse::<i64>()
                        .map_err(|_| bad("out of the int64 range"))?,
                    _ => return Err(bad("expected an integer or \"NaT\"")),
                };
                count.to_le_bytes().to_vec()
            }
            Family::Utf32 { chars } => {
                let s = value.as_str().ok_or_else(|| bad("expected a string"))?;
                let points: Vec<u32> = s.chars().map(u32::from).collect();
                if points.len() > *chars {
                    return Err(bad(&format!("longer than the type's {chars} characters")));
                }
                let mut out = vec![0u8; 4 * chars];
                for (i, p) in points.iter().enumerate() {
                    out[4 * i..4 * i + 4].copy_from_slice(&p.to_le_bytes());
                }
                out
            }
            Family::Narrow(n) => {
                let p = n.pattern(value).map_err(|why| bad(&why))?;
                match n.lane() {
                    DataType::UInt16 => (p as u16).to_le_bytes().to_vec(),
                    _ => vec![p as u8],
                }
            }
            Family::Registered { lane, lanes, .. } => {
                let len = lane.size() * lanes;
                let s = value.as_str().ok_or_else(|| bad("expected base64 text"))?;
                let bytes = crate::base64::decode(s).ok_or_else(|| bad("not base64"))?;
                if bytes.len() != len {
                    return Err(bad(&format!("{} bytes for a type of {len}", bytes.len())));
                }
                bytes
            }
            Family::NullTerminatedBytes { len } | Family::RawBytes { len } => {
                let s = value.as_str().ok_or_else(|| bad("expected base64 text"))?;
                let mut bytes = crate::base64::decode(s).ok_or_else(|| bad("not base64"))?;
                let fixed = matches!(self.family, Family::RawBytes { .. });
                if bytes.len() > *len || (fixed && bytes.len() != *len) {
                    return Err(bad(&format!("{} bytes for a type of {len}", bytes.len())));
                }
                bytes.resize(*len, 0);
                bytes
            }
            Family::RawBits { bits } => {
                let list = value
                    .as_array()
                    .filter(|l| l.len() == bits / 8)
                    .ok_or_else(|| bad(&format!("expected a list of {} bytes", bits / 8)))?;
                list.iter()
                    .map(|b| {
                        b.as_u64()
                            .and_then(|b| u8::try_from(b).ok())
                            .ok_or_else(|| bad("a byte is an integer 0-255"))
                    })
                    .collect::<Result<_>>()?
            }
            // An item of any length: its UTF-8, or its bytes.
            Family::String => value
                .as_str()
                .ok_or_else(|| bad("expected a string"))?
                .as_bytes()
                .to_vec(),
            Family::Bytes => {
                let s = value.as_str().ok_or_else(|| bad("expected base64 text"))?;
                crate::base64::decode(s).ok_or_else(|| bad("not base64"))?
            }
        })
    }

    /// One item's little-endian bytes as the JSON scalar zarr-python writes for them
    /// (`to_json_scalar`), in either format (the same for every type here; a NaN other than
    /// the canonical one is written in hex, which zarr-python writes as "NaN").
    pub fn fill_json(&self, bytes: &[u8]) -> Result<Value> {
        // (Strings and bytes of any length take any number of bytes.)
        let size = self.item_size().unwrap_or(bytes.len());
        if bytes.len() != size {
            return Err(Error::InvalidMetadata {
                message: format!(
                    "a {} item is {size} bytes, got {}",
                    self.name(),
                    bytes.len()
                ),
            });
        }
        // One value of a numeric type from its little-endian bytes, in its JSON form.
        let scalar = |dt: DataType, b: &[u8]| -> Result<Value> {
            let one = ArrayData::from_le_bytes(dt, b)?.get(0);
            Ok(one.map_or(Value::Null, |v| v.to_json()))
        };
        Ok(match &self.family {
            Family::Number(dt) => scalar(*dt, bytes)?,
            Family::Bool => Value::Bool(bytes[0] != 0),
            Family::Narrow(n) => {
                let stored = match bytes {
                    [a, b] => u32::from(u16::from_le_bytes([*a, *b])),
                    [a] => u32::from(*a),
                    _ => 0,
                };
                let v = n.value(stored);
                let bits = stored & ((1 << n.bits()) - 1);
                if !n.is_float() {
                    Value::from(v as i64)
                } else if v.is_nan() && Some(bits) != n.canonical_nan() {
                    // Another NaN's bits, kept.
                    Value::from(format!(
                        "0x{:0w$x}",
                        bits,
                        w = (n.bits() as usize).div_ceil(4)
                    ))
                } else {
                    Scalar::Float64(v).to_json()
                }
            }
            Family::Complex(part) => {
                let half = part.size();
                Value::Array(vec![
                    scalar(*part, &bytes[..half])?,
                    scalar(*part, &bytes[half..])?,
                ])
            }
            Family::Time { .. } => scalar(DataType::Int64, bytes)?,
            Family::Utf32 { .. } => {
                // numpy strips the trailing NULs only (an embedded one is a character).
                let points: Vec<u32> = bytes
                    .chunks_exact(4)
                    .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
                    .collect();
                let end = points.iter().rposition(|&p| p != 0).map_or(0, |i| i + 1);
                let mut s = String::new();
                for &p in &points[..end] {
                    s.push(char::from_u32(p).ok_or_else(|| Error::InvalidMetadata {
                        message: format!("{p:#x} is not a Unicode code point"),
                    })?);
                }
                Value::from(s)
            }
            Family::NullTerminatedBytes { .. } => {
                let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
                Value::from(crate::base64::encode(&bytes[..end]))
            }
            Family::RawBytes { .. } | Family::Registered { .. } => {
                Value::from(crate::base64::encode(bytes))
            }
            Family::RawBits { .. } => {
                Value::Array(bytes.iter().map(|&b| Value::from(u64::from(b))).collect())
            }
            Family::String => Value::from(String::from_utf8(bytes.to_vec()).map_err(|_| {
                Error::InvalidMetadata {
                    message: "a string item is not UTF-8".to_string(),
                }
            })?),
            Family::Bytes => Value::from(crate::base64::encode(bytes)),
        })
    }
}
