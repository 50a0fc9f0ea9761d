//! Decoded reads of missing values and CF packing, from an array's attributes:
//!
//! - the zarr `missing_value` convention (a sentinel in the array's data type, encoded as its
//!   fill value is; also CF's `missing_value`, which may be a list);
//! - xarray's `_FillValue` attribute (for float arrays, base64 of the value's little-endian
//!   float64 bytes; numbers and "NaN" are read too);
//! - CF packing, `scale_factor` and `add_offset` on an integer array (as xarray writes netCDF-
//!   style packed data to zarr).
//!
//! The rules are xarray's (`mask_and_scale`): values are first converted to the float type
//! xarray decodes to (float32 for integers of up to 16 bits and float32 data, float64
//! otherwise, and float64 whenever there is a scale or an offset), compared with each missing
//! value converted to that type, set to NaN where equal, then multiplied by `scale_factor` and
//! offset by `add_offset` in float64. Results are returned as float64, which holds every
//! float32 exactly.

use crate::json::{Map, Value};

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};
use crate::float;
use crate::times::CfTime;
use crate::types::{ArrayType, Family, Narrow, TimeUnit};

/// The registration of the zarr missing_value convention in an array's `zarr_conventions`.
pub struct Convention {
    pub uuid: &'static str,
    pub schema_url: &'static str,
    pub name: &'static str,
}

pub const MISSING_VALUE_CONVENTION: Convention = Convention {
    uuid: "78691ef5-ff17-4c55-98ca-a57f0e9d50bd",
    schema_url: "https://raw.githubusercontent.com/zarr-experimental/missing_value/refs/tags/v0.1.0/schema.json",
    name: "missing_value",
};

impl Convention {
    pub fn to_json(&self) -> Value {
        Value::object([
            ("uuid", Value::from(self.uuid)),
            ("schema_url", Value::from(self.schema_url)),
            ("name", Value::from(self.name)),
        ])
    }
}

/// The decoding an array's attributes ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct MaskAndScale {
    data_type: DataType,
    /// The type the stored values are read as: the data type, or its other signedness where
    /// CF's `_Unsigned` asks (the same bits).
    view: DataType,
    /// The float type values are converted to before masking (xarray's decoded type).
    working: DataType,
    /// Missing values, converted to the working type, as f64; NaN entries dropped.
    missing: Vec<f64>,
    scale_factor: Option<f64>,
    add_offset: Option<f64>,
    /// For 8- and 16-bit integer types: the decoded value of every bit pattern, built on the
    /// first large decode.
    table: std::cell::OnceCell<Box<[f64]>>,
    /// Times, read as milliseconds since 1970-01-01.
    clock: Option<Clock>,
    /// A narrow type's stored bits, read as the values they stand for.
    narrow: Option<Narrow>,
}

/// How a decoded read reads times.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Clock {
    /// numpy.datetime64 / timedelta64 counts (NaT: NaN).
    Numpy {
        unit: TimeUnit,
        scale: u32,
        delta: bool,
    },
    /// CF's "<unit> since <date>", after masking and scaling.
    Cf(CfTime),
}

impl MaskAndScale {
    /// Reads `missing_value`, `_FillValue`, `scale_factor` and `add_offset` from an array's
    /// attributes (an object; absent or null means none).
    pub fn from_attributes(data_type: DataType, attributes: &Value) -> Result<Self> {
        let attrs = match attributes {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(Error::InvalidMetadata {
                    message: format!("attributes must be an object, got {other}"),
                })
            }
        };
        let get = |key: &str| attrs.and_then(|a| a.get(key)).filter(|v| !v.is_null());
        // A number, or a list of one (as files converted from netCDF carry them; xarray takes
        // the one element, and refuses longer lists).
        let number = |key: &str| -> Result<Option<f64>> {
            get(key)
                .map(|v| {
                    let one = match v {
                        Value::Array(list) if list.len() == 1 => &list[0],
                        other => other,
                    };
                    one.as_f64()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| Error::InvalidMetadata {
                            message: format!(
                                "attribute {key} must be a finite number or a list of one, got {v}"
                            ),
                        })
                })
                .transpose()
        };
        // CF's `_Unsigned` (netCDF's unsigned bytes kept as signed integers, or the reverse):
        // as xarray reads it, the string "true" on a signed integer type makes the values the
        // unsigned type's of the same width (the same bits), and its `_FillValue` with them;
        // "false" on an unsigned type, the signed type's. Anything else changes nothing.
        let integer = !data_type.is_float();
        let view = match get("_Unsigned").and_then(Value::as_str) {
            Some("true") if data_type.is_signed_int() => other_signedness(data_type),
            Some("false") if integer && !data_type.is_signed_int() => other_signedness(data_type),
            _ => data_type,
        };
        let scale_factor = number("scale_factor")?;
        let add_offset = number("add_offset")?;
        let working = if scale_factor.is_some() || add_offset.is_some() {
            DataType::Float64
        } else {
            match view {
                DataType::Float16 | DataType::Float32 => data_type,
                t if t.size() <= 2 => DataType::Float32,
                _ => DataType::Float64,
            }
        };
        let mut missing = Vec::new();
        if let Some(v) = get("missing_value") {
            let values = match v {
                Value::Array(list) => list.iter().collect(),
                one => vec![one],
            };
            for value in values {
                missing.push(sentinel(view, value, "missing_value")?);
            }
        }
        if let Some(v) = get("_FillValue") {
            // Read as signed then taken as its unsigned bits where "true" asks (xarray:
            // `np.array(fill, dtype=signed).view(unsigned)`); where "false" asks, read as the
            // signed type (it must fit, as numpy requires).
            missing.push(if view != data_type && data_type.is_signed_int() {
                unsigned_bits(fill_value_attribute(data_type, v)?)
            } else {
                fill_value_attribute(view, v)?
            });
        }
        let missing = missing
            .into_iter()
            .filter_map(|s| in_working_type(s, working))
            .filter(|v| !v.is_nan())
            .collect();
        let clock = CfTime::from_attributes(attrs)?.map(Clock::Cf);
        let mut missing: Vec<f64> = missing;
        if clock.is_some() && view == DataType::Int64 {
            // xarray reads the smallest int64 of CF times as NaT, as numpy does.
            missing.push(crate::types::NAT as f64);
        }
        Ok(Self {
            data_type,
            view,
            working,
            missing,
            scale_factor,
            add_offset,
            table: std::cell::OnceCell::new(),
            clock,
            narrow: None,
        })
    }

    /// The decoding of an array of `array_type` (its lanes `lane`) that its attributes ask
    /// for: numbers masked and scaled, CF times among them ([`MaskAndScale::from_attributes`]);
    /// bool as 0 and 1; numpy.datetime64 and timedelta64 as milliseconds (NaT: NaN). Other
    /// types have no one number an item (complex, strings, bytes): refused.
    pub fn for_array(array_type: &ArrayType, attributes: &Value) -> Result<Self> {
        match &array_type.family {
            Family::Number(dt) => Self::from_attributes(*dt, attributes),
            Family::Bool => Self::from_attributes(DataType::UInt8, &Value::Null),
            Family::Narrow(n) => {
                // The values, then masking and scaling as for any number (float32 working
                // type: every value of these types is a float32).
                let mut d = Self::from_attributes(n.lane(), attributes)?;
                d.narrow = Some(*n);
                Ok(d)
            }
            Family::Time { unit, scale, delta } => {
                if crate::times::time_millis(0, *unit, *scale, *delta).is_none() {
                    return Err(Error::UnsupportedDataType {
                        codec: "getDecoded",
                        data_type: array_type.to_v2(),
                        reason: "its unit has no fixed length in milliseconds".to_string(),
                    });
                }
                let mut d = Self::from_attributes(DataType::Int64, &Value::Null)?;
                d.clock = Some(Clock::Numpy {
                    unit: *unit,
                    scale: *scale,
                    delta: *delta,
                });
                Ok(d)
            }
            _ => Err(Error::UnsupportedDataType {
                codec: "getDecoded",
                data_type: array_type.name(),
                reason: "an item is not one number (read it with get)".to_string(),
            }),
        }
    }

    /// Whether the attributes ask for any decoding at all.
    pub fn is_identity(&self) -> bool {
        self.clock.is_none()
            && self.missing.is_empty()
            && self.scale_factor.is_none()
            && self.add_offset.is_none()
            && self.view == self.data_type
    }

    /// The decoded values: NaN where a value is missing, scaled and offset where asked.
    pub fn decode(&self, data: &ArrayData) -> Result<Vec<f64>> {
        let mut out = Vec::new();
        self.decode_into(data, &mut out)?;
        Ok(out)
    }

    /// [`MaskAndScale::decode`] into `out`, replacing its values and reusing its allocation.
    pub fn decode_into(&self, data: &ArrayData, out: &mut Vec<f64>) -> Result<()> {
        if data.data_type() != self.data_type {
            return Err(Error::WrongArrayType {
                expected: self.data_type.name().into(),
                actual: data.data_type().name().into(),
            });
        }
        let working = self.working;
        // `out` is resized, not cleared: a reused buffer is written once, value by value.
        fn all<T: Copy>(v: &[T], out: &mut Vec<f64>, f: impl Fn(T) -> f64) {
            out.resize(v.len(), 0.0);
            for (o, &x) in out.iter_mut().zip(v) {
                *o = f(x);
            }
        }
        if let (Some(Clock::Numpy { unit, scale, delta }), ArrayData::Int64(v)) = (self.clock, data)
        {
            all(v, out, |x| {
                crate::times::time_millis(x, unit, scale, delta).unwrap_or(f64::NAN)
            });
            return Ok(());
        }
        if let Some(table) = self.table(data.len()) {
            match data {
                ArrayData::Int8(v) => all(v, out, |x| table[usize::from(x as u8)]),
                ArrayData::UInt8(v) => all(v, out, |x| table[usize::from(x)]),
                ArrayData::Int16(v) => all(v, out, |x| table[usize::from(x as u16)]),
                ArrayData::UInt16(v) => all(v, out, |x| table[usize::from(x)]),
                _ => {}
            }
            return Ok(());
        }
        // A narrow type's values, where a decode is too short for the table.
        if let Some(n) = self.narrow {
            match data {
                ArrayData::UInt8(v) => all(v, out, |x| self.finish(n.value(u32::from(x)))),
                ArrayData::Int8(v) => all(v, out, |x| self.finish(n.value(u32::from(x as u8)))),
                ArrayData::UInt16(v) => all(v, out, |x| self.finish(n.value(u32::from(x)))),
                _ => {}
            }
            return Ok(());
        }
        // The bits read as the other signedness, where `_Unsigned` asks.
        let other = self.view != self.data_type;
        match data {
            // Integers of up to 32 bits convert exactly to either working type.
            ArrayData::Int8(v) if other => all(v, out, |x| self.finish(f64::from(x as u8))),
            ArrayData::Int16(v) if other => all(v, out, |x| self.finish(f64::from(x as u16))),
            ArrayData::Int32(v) if other => all(v, out, |x| self.finish(f64::from(x as u32))),
            ArrayData::UInt8(v) if other => all(v, out, |x| self.finish(f64::from(x as i8))),
            ArrayData::UInt16(v) if other => all(v, out, |x| self.finish(f64::from(x as i16))),
            ArrayData::UInt32(v) if other => all(v, out, |x| self.finish(f64::from(x as i32))),
            ArrayData::Int8(v) => all(v, out, |x| self.finish(f64::from(x))),
            ArrayData::Int16(v) => all(v, out, |x| self.finish(f64::from(x))),
            ArrayData::Int32(v) => all(v, out, |x| self.finish(f64::from(x))),
            ArrayData::UInt8(v) => all(v, out, |x| self.finish(f64::from(x))),
            ArrayData::UInt16(v) => all(v, out, |x| self.finish(f64::from(x))),
            ArrayData::UInt32(v) => all(v, out, |x| self.finish(f64::from(x))),
            // 64-bit integers round to the nearest float64, as numpy converts them.
            ArrayData::Int64(v) if other => all(v, out, |x| {
                self.finish(rounded_to(working, x as u64 as f64))
            }),
            ArrayData::UInt64(v) if other => all(v, out, |x| {
                self.finish(rounded_to(working, x as i64 as f64))
            }),
            ArrayData::Int64(v) => all(v, out, |x| self.finish(rounded_to(working, x as f64))),
            ArrayData::UInt64(v) => all(v, out, |x| self.finish(rounded_to(working, x as f64))),
            ArrayData::Float16(v) => all(v, out, |x| self.finish(crate::widths::f16_to_f64(x))),
            ArrayData::Float32(v) => all(v, out, |x| self.finish(crate::widths::f32_to_f64(x))),
            ArrayData::Float64(v) => all(v, out, |x| self.finish(x)),
        }
        Ok(())
    }

    /// The table of every decoded value, for 8- and 16-bit integer types; built when a decode
    /// of `len` values is large enough to pay for it (256 or 65536 entries).
    /// Decodes stored elements of the array's own type straight from their bytes (`little`
    /// or big endian) into `out`, through the table of every bit pattern. Returns false, and
    /// leaves `out` alone, where there is no table (types wider than 16 bits, short tiles).
    pub fn decode_bytes_into(&self, bytes: &[u8], little: bool, out: &mut Vec<f64>) -> bool {
        let size = self.data_type.size();
        let Some(table) = self.table(bytes.len() / size.max(1)) else {
            return false;
        };
        out.resize(bytes.len() / size, 0.0);
        // Fixed-size tables: an index of the pattern's width needs no bounds check.
        if let Ok(table) = <&[f64; 256]>::try_from(table) {
            for (o, &b) in out.iter_mut().zip(bytes) {
                *o = table[usize::from(b)];
            }
            return true;
        }
        let Ok(table) = <&[f64; 65536]>::try_from(table) else {
            return false;
        };
        // A generic inner loop for each byte order, so the read is inlined (not a call per
        // element).
        fn each(
            table: &[f64; 65536],
            bytes: &[u8],
            out: &mut [f64],
            read: impl Fn([u8; 2]) -> u16,
        ) {
            for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = table[usize::from(read([b[0], b[1]]))];
            }
        }
        if little {
            each(table, bytes, out, u16::from_le_bytes);
        } else {
            each(table, bytes, out, u16::from_be_bytes);
        }
        true
    }

    /// Whether [`MaskAndScale::decode_bytes_into`] decodes a tile of `len` elements.
    pub fn decodes_bytes(&self, len: usize) -> bool {
        self.table(len).is_some()
    }

    fn table(&self, len: usize) -> Option<&[f64]> {
        // Indexed by the stored bit pattern, valued as the type the values are read as (a
        // narrow type's: the value its bits stand for).
        let count: usize = match self.view {
            DataType::Int8 | DataType::UInt8 => 256,
            DataType::Int16 | DataType::UInt16 => 65536,
            _ => return None,
        };
        let value = |b: usize| -> f64 {
            if let Some(n) = self.narrow {
                return n.value(b as u32);
            }
            match self.view {
                DataType::Int8 => f64::from(b as u8 as i8),
                DataType::Int16 => f64::from(b as u16 as i16),
                _ => b as f64,
            }
        };
        if let Some(table) = self.table.get() {
            return Some(table);
        }
        if len < count / 16 {
            return None;
        }
        Some(
            self.table
                .get_or_init(|| (0..count).map(|b| self.finish(value(b))).collect()),
        )
    }

    /// One value in the working type: NaN if it is missing, then scaled and offset.
    #[inline(always)]
    fn finish(&self, v: f64) -> f64 {
        let v = if self.missing.contains(&v) {
            f64::NAN
        } else {
            v
        };
        let v = match self.scale_factor {
            Some(s) => float::mul(v, s),
            None => v,
        };
        let v = match self.add_offset {
            Some(o) => float::add(v, o),
            None => v,
        };
        match self.clock {
            Some(Clock::Cf(cf)) => cf.millis(v),
            _ => v,
        }
    }
}

/// The integer type of the same width and the other signedness (floats unchanged).
fn other_signedness(t: DataType) -> DataType {
    match t {
        DataType::Int8 => DataType::UInt8,
        DataType::Int16 => DataType::UInt16,
        DataType::Int32 => DataType::UInt32,
        DataType::Int64 => DataType::UInt64,
        DataType::UInt8 => DataType::Int8,
        DataType::UInt16 => DataType::Int16,
        DataType::UInt32 => DataType::Int32,
        DataType::UInt64 => DataType::Int64,
        float => float,
    }
}

/// A signed integer's bits as the unsigned integer of the same width.
fn unsigned_bits(s: Scalar) -> Scalar {
    match s {
        Scalar::Int8(v) => Scalar::UInt8(v as u8),
        Scalar::Int16(v) => Scalar::UInt16(v as u16),
        Scalar::Int32(v) => Scalar::UInt32(v as u32),
        Scalar::Int64(v) => Scalar::UInt64(v as u64),
        other => other,
    }
}

/// A missing value in the array's data type, read as a fill value is (numbers, "NaN",
/// "Infinity", "0x" hex bit patterns).
fn sentinel(data_type: DataType, value: &Value, key: &str) -> Result<Scalar> {
    Scalar::from_json(data_type, value).map_err(|e| {
        e.in_context(&format!("attribute {key} "), |e| Error::InvalidMetadata {
            message: format!("attribute {key}: {e}"),
        })
    })
}

/// The attributes xarray decodes a zarr v2 array (of numpy type `dtype`) with: its own, with
/// the `.zarray`'s `fill_value` as `_FillValue` where that is not null, whatever `_FillValue`
/// the attributes carry (xarray masks a v2 array's fill value, as netCDF's `_FillValue`; for
/// v3 it reads only the attribute). Where `_Unsigned` is "false" on an unsigned type, the
/// fill value is the same bits as the signed type's (xarray converts numpy's scalar of the
/// array's type, which wraps: 254 of a uint8 is -2).
pub fn with_v2_fill_value(attributes: &Value, fill_value: &Value, dtype: Option<&str>) -> Value {
    let mut map = match attributes {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if matches!(fill_value, Value::Null) {
        return Value::Object(map);
    }
    let numeric = dtype
        .and_then(|d| crate::types::ArrayType::from_v2(d, None).ok())
        .and_then(|t| t.numeric());
    let signed_view = map.get("_Unsigned").and_then(Value::as_str) == Some("false");
    let fill = match numeric {
        Some(dt) if signed_view && !dt.is_float() && !dt.is_signed_int() => {
            match Scalar::from_json(dt, fill_value) {
                Ok(s) => signed_bits(s).to_json(),
                // (Not a value of the type: left for the reader to refuse.)
                Err(_) => fill_value.clone(),
            }
        }
        _ => fill_value.clone(),
    };
    map.insert("_FillValue".to_string(), fill);
    Value::Object(map)
}

/// An unsigned integer's bits as the signed integer of the same width.
fn signed_bits(s: Scalar) -> Scalar {
    match s {
        Scalar::UInt8(v) => Scalar::Int8(v as i8),
        Scalar::UInt16(v) => Scalar::Int16(v as i16),
        Scalar::UInt32(v) => Scalar::Int32(v as i32),
        Scalar::UInt64(v) => Scalar::Int64(v as i64),
        other => other,
    }
}

/// xarray's `_FillValue`: for float arrays, base64 of a little-endian float64 (numbers and
/// the fill-value strings are read too); for integer arrays, an integer.
fn fill_value_attribute(data_type: DataType, value: &Value) -> Result<Scalar> {
    let base64 = match value {
        Value::String(text)
            if data_type.is_float()
                && !matches!(text.as_str(), "NaN" | "Infinity" | "-Infinity")
                && !text.starts_with("0x") =>
        {
            Some(text)
        }
        _ => None,
    };
    let Some(text) = base64 else {
        return sentinel(data_type, value, "_FillValue");
    };
    let bits: [u8; 8] = base64_decode(text)
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or_else(|| Error::InvalidMetadata {
            message: format!(
                "attribute _FillValue {text:?} is not base64 of 8 bytes, as xarray writes a \
                 float fill value"
            ),
        })?;
    Ok(Scalar::Float64(f64::from_le_bytes(bits)))
}

/// A scalar converted to the working float type (as numpy converts it), as f64.
fn in_working_type(s: Scalar, working: DataType) -> Option<f64> {
    let v = match (s.as_i128(), s.as_f64()) {
        (Some(i), _) => i as f64,
        (_, Some(f)) => f,
        _ => return None,
    };
    Some(rounded_to(working, v))
}

/// `v` rounded to the working float type, as f64.
fn rounded_to(working: DataType, v: f64) -> f64 {
    match working {
        DataType::Float32 => f64::from(crate::widths::f64_to_f32(v)),
        DataType::Float16 => crate::widths::f16_to_f64(crate::widths::f64_to_f16(v)),
        _ => v,
    }
}

/// Standard base64 with padding, of at least one byte.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    crate::base64::decode(text).filter(|b| !b.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> Value {
        crate::json::parse(text).unwrap()
    }

    #[test]
    fn base64_is_read_strictly() {
        assert_eq!(
            base64_decode("AAAAAAA4j8A="),
            Some((-999f64).to_le_bytes().to_vec())
        );
        assert_eq!(base64_decode("TWE="), Some(b"Ma".to_vec()));
        assert_eq!(base64_decode("TQ=="), Some(b"M".to_vec()));
        for bad in ["", "NaN", "TQ=A", "T===", "TQ==TQ==", "TQ!A"] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn fill_value_strings_are_not_taken_for_base64() {
        // "Infinity" is eight base64 characters, but a fill-value string first.
        let d = MaskAndScale::from_attributes(
            DataType::Float32,
            &json(r#"{"_FillValue": "Infinity"}"#),
        )
        .unwrap();
        let out = d
            .decode(&ArrayData::Float32(vec![f32::INFINITY, 1.0]))
            .unwrap();
        assert!(out[0].is_nan());
        assert_eq!(out[1], 1.0);
        assert!(MaskAndScale::from_attributes(
            DataType::Float32,
            &json(r#"{"_FillValue": "AAAA"}"#)
        )
        .is_err());
        assert!(
            MaskAndScale::from_attributes(DataType::UInt8, &json(r#"{"missing_value": 256}"#))
                .is_err()
        );
        assert!(
            MaskAndScale::from_attributes(DataType::Int16, &json(r#"{"scale_factor": "x"}"#))
                .is_err()
        );
        assert!(
            MaskAndScale::from_attributes(DataType::Int16, &json(r#"{}"#))
                .unwrap()
                .is_identity()
        );
    }

    #[test]
    fn decoding_from_bytes_matches_decoding_the_values() {
        // The table path from stored bytes (either byte order) against the value path, for
        // every bit pattern of each 8- and 16-bit type.
        let attributes = json(r#"{"scale_factor": 0.01, "add_offset": -3.5, "_FillValue": 7}"#);
        for dtype in [
            DataType::Int8,
            DataType::UInt8,
            DataType::Int16,
            DataType::UInt16,
        ] {
            let d = MaskAndScale::from_attributes(dtype, &attributes).unwrap();
            let count = 1usize << (8 * dtype.size());
            // Short tiles take the value path until a table has been built.
            assert!(!d.decodes_bytes(count / 32));
            let le: Vec<u8> = (0..count)
                .flat_map(|b| (b as u16).to_le_bytes()[..dtype.size()].to_vec())
                .collect();
            let values = ArrayData::from_le_bytes(dtype, &le).unwrap();
            let expected = d.decode(&values).unwrap();
            for little in [true, false] {
                let bytes = if little {
                    le.clone()
                } else {
                    values.to_be_bytes()
                };
                let mut out = vec![1.0; 3];
                assert!(d.decode_bytes_into(&bytes, little, &mut out));
                let same = out
                    .iter()
                    .zip(&expected)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same && out.len() == count, "{dtype:?} little={little}");
            }
        }
    }
    #[test]
    fn a_scale_list_of_more_than_one_is_refused() {
        // xarray takes the one element of a one-element list and refuses longer ones.
        for attrs in [r#"{"scale_factor": [0.1, 0.2]}"#, r#"{"add_offset": []}"#] {
            let e = MaskAndScale::from_attributes(DataType::Int16, &json(attrs)).unwrap_err();
            assert_eq!(e.code(), "INVALID_METADATA", "{attrs}: {e}");
        }
        assert!(MaskAndScale::from_attributes(
            DataType::Int16,
            &json(r#"{"scale_factor": [0.5]}"#)
        )
        .is_ok());
    }
}
