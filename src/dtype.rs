//! zarr v3 numeric data types, their scalars and their JSON encoding (fill values, scale, offset,
//! scalar_map entries), following zarr-python 3.4's reading of the spec.

use half::f16;

use crate::decimal::{json_f64, parse_f64};
use crate::error::{int_text, quoted, Error, Result};
use crate::json::Value;
use crate::widths::{f16_to_f64, f32_to_f64, f64_to_f16, f64_to_f32};

/// A real zarr v3 data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    Float32,
    Float64,
}

/// Every data type, in the order the spec lists them.
pub const ALL_DATA_TYPES: [DataType; 11] = [
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
    DataType::Float16,
    DataType::Float32,
    DataType::Float64,
];

/// The data type registry's names (src/types/) that are not numeric types a codec here takes:
/// refused as UNSUPPORTED_DATA_TYPE, not UNKNOWN_DATA_TYPE. A test in src/types/tests.rs holds
/// the list to the registry's tables, both ways.
pub(crate) const KNOWN_UNSUPPORTED: [&str; 26] = [
    "bool",
    "complex64",
    "complex128",
    "bfloat16",
    "int2",
    "int4",
    "uint2",
    "uint4",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "string",
    "bytes",
    "variable_length_bytes",
    "numpy.datetime64",
    "numpy.timedelta64",
    "fixed_length_utf32",
    "null_terminated_bytes",
    "raw_bytes",
];

impl DataType {
    pub fn name(self) -> &'static str {
        match self {
            DataType::Int8 => "int8",
            DataType::Int16 => "int16",
            DataType::Int32 => "int32",
            DataType::Int64 => "int64",
            DataType::UInt8 => "uint8",
            DataType::UInt16 => "uint16",
            DataType::UInt32 => "uint32",
            DataType::UInt64 => "uint64",
            DataType::Float16 => "float16",
            DataType::Float32 => "float32",
            DataType::Float64 => "float64",
        }
    }

    /// The JavaScript typed arrays that hold this type's values, the one a read returns first
    /// (float16: a Float16Array where the engine has one, else its bits in a Uint16Array).
    pub fn typed_arrays(self) -> &'static [&'static str] {
        match self {
            DataType::Int8 => &["Int8Array"],
            DataType::Int16 => &["Int16Array"],
            DataType::Int32 => &["Int32Array"],
            DataType::Int64 => &["BigInt64Array"],
            DataType::UInt8 => &["Uint8Array", "Uint8ClampedArray"],
            DataType::UInt16 => &["Uint16Array"],
            DataType::UInt32 => &["Uint32Array"],
            DataType::UInt64 => &["BigUint64Array"],
            DataType::Float16 => &["Float16Array", "Uint16Array"],
            DataType::Float32 => &["Float32Array"],
            DataType::Float64 => &["Float64Array"],
        }
    }

    /// Looks a zarr v3 data type name up.
    pub fn from_name(name: &str) -> Result<Self> {
        ALL_DATA_TYPES
            .into_iter()
            .find(|dt| dt.name() == name)
            .ok_or_else(|| {
                if KNOWN_UNSUPPORTED.contains(&name) || is_raw_bits_name(name) {
                    Error::UnsupportedDataType {
                        codec: "zarr-wasm-codecs",
                        data_type: name.to_string(),
                        reason: "only integer (int8..int64, uint8..uint64) and float (float16, \
                                 float32, float64) data types are supported"
                            .to_string(),
                    }
                } else {
                    Error::UnknownDataType {
                        name: name.to_string(),
                    }
                }
            })
    }

    /// A numpy dtype string of a numeric type, as zarr v2 writes them (`<f8 <f4 <f2 <i1..<i8
    /// <u1..<u8`, their `>` big-endian forms, `|i1 |u1`): the type and whether its bytes are
    /// big-endian (never for one-byte types); `None` for any other string.
    pub fn from_numpy(s: &str) -> Option<(DataType, bool)> {
        let (big, kind) = if let Some(rest) = s.strip_prefix('<') {
            (false, rest)
        } else if let Some(rest) = s.strip_prefix('>') {
            (true, rest)
        } else {
            (false, s.strip_prefix('|')?)
        };
        let dtype = match kind {
            "f2" => DataType::Float16,
            "f4" => DataType::Float32,
            "f8" => DataType::Float64,
            "i1" => DataType::Int8,
            "i2" => DataType::Int16,
            "i4" => DataType::Int32,
            "i8" => DataType::Int64,
            "u1" => DataType::UInt8,
            "u2" => DataType::UInt16,
            "u4" => DataType::UInt32,
            "u8" => DataType::UInt64,
            _ => return None,
        };
        // numpy writes `|` only for types without a byte order.
        if s.starts_with('|') && dtype.size() != 1 {
            return None;
        }
        Some((dtype, big && dtype.size() > 1))
    }

    /// Reads a data type from array or codec metadata: a name, or `{"name": ...}` with no
    /// configuration (the object form zarr v3 allows for every data type).
    pub fn from_json(value: &Value) -> Result<Self> {
        match value {
            Value::String(name) => Self::from_name(name),
            Value::Object(map) => {
                let name = map.get("name").and_then(Value::as_str).ok_or_else(|| {
                    Error::InvalidMetadata {
                        message: format!("data type object {value} has no \"name\" string"),
                    }
                })?;
                match map.get("configuration") {
                    None => {}
                    Some(Value::Object(c)) if c.is_empty() => {}
                    Some(other) => {
                        return Err(Error::InvalidMetadata {
                            message: format!(
                                "data type {name} takes no configuration, got {other}"
                            ),
                        })
                    }
                }
                if let Some(key) = map.keys().find(|k| *k != "name" && *k != "configuration") {
                    return Err(Error::InvalidMetadata {
                        message: format!("data type object has unknown key {}", quoted(key)),
                    });
                }
                Self::from_name(name)
            }
            other => Err(Error::InvalidMetadata {
                message: format!("data type must be a name string, got {other}"),
            }),
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DataType::Int8 | DataType::UInt8 => 1,
            DataType::Int16 | DataType::UInt16 | DataType::Float16 => 2,
            DataType::Int32 | DataType::UInt32 | DataType::Float32 => 4,
            DataType::Int64 | DataType::UInt64 | DataType::Float64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DataType::Float16 | DataType::Float32 | DataType::Float64
        )
    }

    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
        )
    }

    /// Inclusive integer range, `None` for floats.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.size() as u32;
        if self.is_float() {
            None
        } else if self.is_signed_int() {
            Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
        } else {
            Some((0, (1i128 << bits) - 1))
        }
    }

    /// The default fill value (zero of the type).
    pub fn default_scalar(self) -> Scalar {
        match self {
            DataType::Int8 => Scalar::Int8(0),
            DataType::Int16 => Scalar::Int16(0),
            DataType::Int32 => Scalar::Int32(0),
            DataType::Int64 => Scalar::Int64(0),
            DataType::UInt8 => Scalar::UInt8(0),
            DataType::UInt16 => Scalar::UInt16(0),
            DataType::UInt32 => Scalar::UInt32(0),
            DataType::UInt64 => Scalar::UInt64(0),
            DataType::Float16 => Scalar::Float16(f16::ZERO),
            DataType::Float32 => Scalar::Float32(0.0),
            DataType::Float64 => Scalar::Float64(0.0),
        }
    }
}

impl std::fmt::Display for DataType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn is_raw_bits_name(name: &str) -> bool {
    name.strip_prefix('r')
        .is_some_and(|bits| !bits.is_empty() && bits.bytes().all(|b| b.is_ascii_digit()))
}

/// One value of a data type.
#[derive(Debug, Clone, Copy)]
pub enum Scalar {
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    UInt8(u8),
    UInt16(u16),
    UInt32(u32),
    UInt64(u64),
    Float16(f16),
    Float32(f32),
    Float64(f64),
}

impl PartialEq for Scalar {
    /// Bitwise equality: NaN equals a NaN with the same payload, and -0.0 differs from 0.0.
    fn eq(&self, other: &Self) -> bool {
        self.data_type() == other.data_type() && self.to_le_bytes() == other.to_le_bytes()
    }
}

impl Scalar {
    pub fn data_type(&self) -> DataType {
        match self {
            Scalar::Int8(_) => DataType::Int8,
            Scalar::Int16(_) => DataType::Int16,
            Scalar::Int32(_) => DataType::Int32,
            Scalar::Int64(_) => DataType::Int64,
            Scalar::UInt8(_) => DataType::UInt8,
            Scalar::UInt16(_) => DataType::UInt16,
            Scalar::UInt32(_) => DataType::UInt32,
            Scalar::UInt64(_) => DataType::UInt64,
            Scalar::Float16(_) => DataType::Float16,
            Scalar::Float32(_) => DataType::Float32,
            Scalar::Float64(_) => DataType::Float64,
        }
    }

    /// Little-endian element bytes.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match *self {
            Scalar::Int8(v) => v.to_le_bytes().to_vec(),
            Scalar::Int16(v) => v.to_le_bytes().to_vec(),
            Scalar::Int32(v) => v.to_le_bytes().to_vec(),
            Scalar::Int64(v) => v.to_le_bytes().to_vec(),
            Scalar::UInt8(v) => v.to_le_bytes().to_vec(),
            Scalar::UInt16(v) => v.to_le_bytes().to_vec(),
            Scalar::UInt32(v) => v.to_le_bytes().to_vec(),
            Scalar::UInt64(v) => v.to_le_bytes().to_vec(),
            Scalar::Float16(v) => v.to_le_bytes().to_vec(),
            Scalar::Float32(v) => v.to_le_bytes().to_vec(),
            Scalar::Float64(v) => v.to_le_bytes().to_vec(),
        }
    }

    /// The integer value of an integer scalar.
    pub fn as_i128(&self) -> Option<i128> {
        match *self {
            Scalar::Int8(v) => Some(v.into()),
            Scalar::Int16(v) => Some(v.into()),
            Scalar::Int32(v) => Some(v.into()),
            Scalar::Int64(v) => Some(v.into()),
            Scalar::UInt8(v) => Some(v.into()),
            Scalar::UInt16(v) => Some(v.into()),
            Scalar::UInt32(v) => Some(v.into()),
            Scalar::UInt64(v) => Some(v.into()),
            Scalar::Float16(_) | Scalar::Float32(_) | Scalar::Float64(_) => None,
        }
    }

    /// The value of a float scalar, exactly, as f64.
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Scalar::Float16(v) => Some(f16_to_f64(v)),
            Scalar::Float32(v) => Some(f32_to_f64(v)),
            Scalar::Float64(v) => Some(v),
            _ => None,
        }
    }

    /// Builds an integer scalar of `dtype`, if `value` is in its range.
    pub fn from_i128(dtype: DataType, value: i128) -> Option<Scalar> {
        Some(match dtype {
            DataType::Int8 => Scalar::Int8(value.try_into().ok()?),
            DataType::Int16 => Scalar::Int16(value.try_into().ok()?),
            DataType::Int32 => Scalar::Int32(value.try_into().ok()?),
            DataType::Int64 => Scalar::Int64(value.try_into().ok()?),
            DataType::UInt8 => Scalar::UInt8(value.try_into().ok()?),
            DataType::UInt16 => Scalar::UInt16(value.try_into().ok()?),
            DataType::UInt32 => Scalar::UInt32(value.try_into().ok()?),
            DataType::UInt64 => Scalar::UInt64(value.try_into().ok()?),
            DataType::Float16 | DataType::Float32 | DataType::Float64 => return None,
        })
    }

    /// Builds a float scalar of `dtype` from an f64, rounding to nearest-even as numpy does.
    fn float_from_f64(dtype: DataType, value: f64) -> Option<Scalar> {
        Some(match dtype {
            DataType::Float16 => Scalar::Float16(f64_to_f16(value)),
            DataType::Float32 => Scalar::Float32(f64_to_f32(value)),
            DataType::Float64 => Scalar::Float64(value),
            _ => return None,
        })
    }

    /// Reads a zarr v3 JSON scalar as a value of `dtype`.
    ///
    /// Integers accept JSON integers, integral JSON floats (`2.0`) and integer strings (`"42"`);
    /// floats accept numbers, `"NaN"`, `"Infinity"`, `"-Infinity"`, `"0x"` hex bit patterns of
    /// 4, 8 or 16 digits (a float16, float32 or float64; the array's own width keeps NaN payloads
    /// bit for bit) and decimal strings. JSON `true`/`false` read as 1/0, as in the reference.
    pub fn from_json(dtype: DataType, value: &Value) -> Result<Scalar> {
        let invalid = |reason: String| Error::InvalidScalar {
            data_type: dtype.name().to_string(),
            value: value.to_string(),
            reason,
        };
        if dtype.is_float() {
            let parsed = match value {
                Value::Number(n) => parse_f64_literal(&n.to_string()),
                Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
                Value::String(s) => match s.as_str() {
                    "NaN" => Some(f64::NAN),
                    "Infinity" => Some(f64::INFINITY),
                    "-Infinity" => Some(f64::NEG_INFINITY),
                    s => match s.strip_prefix("0x") {
                        Some(hex) => return parse_hex_float(dtype, hex).map_err(invalid),
                        None => parse_f64_literal(s.trim()),
                    },
                },
                _ => None,
            };
            let v = parsed.ok_or_else(|| {
                invalid(
                    "expected a number, \"NaN\", \"Infinity\", \"-Infinity\" or a \"0x\" hex bit \
                     pattern"
                        .to_string(),
                )
            })?;
            Scalar::float_from_f64(dtype, v).ok_or_else(|| invalid("not a float type".into()))
        } else {
            let integer = match value {
                Value::Number(n) if is_float_beyond_2_53(n.as_str()) => {
                    return Err(Error::InexactNumber {
                        context: String::new(),
                        value: n.to_string(),
                        data_type: dtype.name().to_string(),
                    })
                }
                Value::Number(n) => parse_int_literal(&n.to_string()),
                Value::Bool(b) => Ok(i128::from(*b)),
                Value::String(s) => parse_int_string(s),
                _ => Err("expected an integer".to_string()),
            }
            .map_err(invalid)?;
            Scalar::from_i128(dtype, integer).ok_or_else(|| {
                let (lo, hi) = dtype.int_range().unwrap_or((0, 0));
                invalid(format!(
                    "out of the {} range [{}, {}]",
                    dtype.name(),
                    int_text(lo),
                    int_text(hi)
                ))
            })
        }
    }

    /// The zarr v3 JSON form: integers as numbers; floats as numbers, "NaN", "Infinity" or
    /// "-Infinity", and a NaN whose bits are not the canonical NaN as "0x" hex so that its
    /// payload survives.
    pub fn to_json(&self) -> Value {
        if let Some(i) = self.as_i128() {
            return match i64::try_from(i) {
                Ok(v) => Value::from(v),
                Err(_) => Value::from(i as u64),
            };
        }
        let v = self.as_f64().unwrap_or(f64::NAN);
        if v.is_nan() {
            let canonical = Scalar::from_json(self.data_type(), &Value::from("NaN"))
                .map(|c| c == *self)
                .unwrap_or(false);
            if canonical {
                Value::from("NaN")
            } else {
                let mut be = self.to_le_bytes();
                be.reverse();
                let hex: String = be.iter().map(|b| format!("{b:02x}")).collect();
                Value::from(format!("0x{hex}"))
            }
        } else if v == f64::INFINITY {
            Value::from("Infinity")
        } else if v == f64::NEG_INFINITY {
            Value::from("-Infinity")
        } else {
            json_f64(v).parse::<Value>().unwrap_or(Value::Null)
        }
    }
}

/// Parses a decimal float the way Python's `float()` reads JSON numbers and strings.
fn parse_f64_literal(s: &str) -> Option<f64> {
    let cleaned = strip_digit_underscores(s)?;
    parse_f64(&cleaned)
}

/// Python numeric literals allow one underscore between digits ("1_000").
fn strip_digit_underscores(s: &str) -> Option<String> {
    if !s.contains('_') {
        return Some(s.to_string());
    }
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'_' {
            let before = i.checked_sub(1).and_then(|j| bytes.get(j));
            let after = bytes.get(i + 1);
            if !(before.is_some_and(u8::is_ascii_digit) && after.is_some_and(u8::is_ascii_digit)) {
                return None;
            }
        } else {
            out.push(b as char);
        }
    }
    Some(out)
}

/// Whether a JSON number literal is written as a float (fraction or exponent) and is at least
/// 2^53 in magnitude: from there on a float cannot hold every integer, so it cannot stand for
/// an exact integer. (This is how JavaScript numbers beyond 2^53 reach this crate.)
fn is_float_beyond_2_53(text: &str) -> bool {
    text.contains(['.', 'e', 'E']) && parse_f64(text).is_some_and(|v| v.abs() >= 9007199254740992.0)
}

/// A JSON number literal as an integer: integer literals exactly, float literals only when
/// integral (as the reference accepts `2.0`).
fn parse_int_literal(text: &str) -> std::result::Result<i128, String> {
    if text.contains(['.', 'e', 'E']) {
        let v = parse_f64(text).ok_or_else(|| format!("{text} is not a number"))?;
        if !v.is_finite() || v.fract() != 0.0 {
            return Err("expected an integer".to_string());
        }
        if v.abs() >= 1.7e38 {
            return Err("out of range".to_string());
        }
        Ok(v as i128)
    } else {
        text.parse::<i128>().map_err(|_| "out of range".to_string())
    }
}

/// An integer string as Python's `int()` reads it: optional sign, digits, surrounding blanks.
fn parse_int_string(s: &str) -> std::result::Result<i128, String> {
    let trimmed = s.trim();
    let cleaned = strip_digit_underscores(trimmed).ok_or("expected an integer string")?;
    let digits = cleaned.trim_start_matches(['+', '-']);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected an integer or an integer string".to_string());
    }
    cleaned
        .strip_prefix('+')
        .unwrap_or(&cleaned)
        .parse::<i128>()
        .map_err(|_| "out of range".to_string())
}

/// A "0x" hex float: 4, 8 or 16 big-endian hex digits, the bits of a float16, float32 or
/// float64. At the array's own width the bits are kept as they are; other widths are values
/// converted to the array's type.
fn parse_hex_float(dtype: DataType, hex: &str) -> std::result::Result<Scalar, String> {
    if !matches!(hex.len(), 4 | 8 | 16) {
        return Err(format!(
            "a hex float needs 4, 8 or 16 hex digits after 0x (float16, float32, float64), got {}",
            hex.len()
        ));
    }
    let bits =
        u64::from_str_radix(hex, 16).map_err(|_| format!("{} is not hexadecimal", quoted(hex)))?;
    let value = match hex.len() {
        4 => Scalar::Float16(f16::from_bits(bits as u16)),
        8 => Scalar::Float32(f32::from_bits(bits as u32)),
        _ => Scalar::Float64(f64::from_bits(bits)),
    };
    if value.data_type() == dtype {
        return Ok(value);
    }
    let as_f64 = value.as_f64().unwrap_or(f64::NAN);
    Scalar::float_from_f64(dtype, as_f64).ok_or_else(|| "not a float type".to_string())
}
