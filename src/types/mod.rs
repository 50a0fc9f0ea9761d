//! The data type registry: every zarr data type the package knows, as rows of two tables (the
//! fixed types, and the types a configuration completes), with what each needs in one place:
//! its names in zarr v3 and v2 (with v2's byte order), its item size, its default fill value,
//! its JSON scalars in both formats (read to an item's little-endian bytes and written back),
//! and how its items are laid out for the codecs: as `lanes` values of a numeric
//! [`DataType`] (a complex64 item is two float32s, a `fixed_length_utf32` item of 8
//! characters eight uint32 code points), so that `bytes` swaps each lane on its own and the
//! read path places items as runs of lanes. Types with no fixed size (`string`, `bytes`) have
//! no lanes and are read by zarrita.
//!
//! Every JSON form follows zarr-python 3.4.2 (`zarr.core.dtype`), checked against its own
//! round trips (`tests/fixtures/dtypes/scalars.json`).

use crate::dtype::DataType;
use crate::error::{quoted, Error, Result};
use crate::json::{Map, Value};
use narrow::NARROW;

mod narrow;
mod scalars;
mod time;

pub use narrow::Narrow;
pub use time::{TimeUnit, NAT};

/// What a data type's items are.
#[derive(Debug, Clone, PartialEq)]
pub enum Family {
    /// int8 .. uint64, float16/32/64.
    Number(DataType),
    Bool,
    /// complex64 (two float32s) and complex128 (two float64s), real part first.
    Complex(DataType),
    /// numpy.datetime64 (`delta` false) and numpy.timedelta64: int64 counts of `scale * unit`.
    Time {
        delta: bool,
        unit: TimeUnit,
        scale: u32,
    },
    /// fixed_length_utf32: `chars` UTF-32 code points, NUL-padded.
    Utf32 {
        chars: usize,
    },
    /// null_terminated_bytes (numpy `S`): `len` bytes, NUL-padded.
    NullTerminatedBytes {
        len: usize,
    },
    /// raw_bytes (numpy `V`): `len` bytes.
    RawBytes {
        len: usize,
    },
    /// zarr v3's `r*`: `bits` raw bits, a multiple of 8.
    RawBits {
        bits: usize,
    },
    /// `string` (v2: `|O` with vlen-utf8).
    String,
    /// `bytes` (v2: `|O` with vlen-bytes).
    Bytes,
    /// bfloat16, float8/6/4, int2/int4/uint2/uint4 (see [`Narrow`]).
    Narrow(Narrow),
    /// A data type an application registered (JavaScript's `registerDataType`), which the
    /// JavaScript side hands over as `{"name": "zarr-wasm-codecs.registered", "configuration":
    /// {"name", "lane", "lanes"}}`: its items are `lanes` values of `lane`, its fill value the
    /// base64 of one item's little-endian bytes.
    Registered {
        name: String,
        lane: DataType,
        lanes: usize,
    },
}

/// The `data_type` name under which the JavaScript side hands over a registered data type.
pub const REGISTERED: &str = "zarr-wasm-codecs.registered";

/// A data type of the registry's fixed table: the v3 name, numpy's v2 code, the family.
struct Fixed {
    v3: &'static str,
    v2: &'static str,
    family: Family,
}

const fn fixed(v3: &'static str, v2: &'static str, family: Family) -> Fixed {
    Fixed { v3, v2, family }
}

/// The data types named without a configuration.
const FIXED: [Fixed; 17] = [
    fixed("bool", "b1", Family::Bool),
    fixed("int8", "i1", Family::Number(DataType::Int8)),
    fixed("int16", "i2", Family::Number(DataType::Int16)),
    fixed("int32", "i4", Family::Number(DataType::Int32)),
    fixed("int64", "i8", Family::Number(DataType::Int64)),
    fixed("uint8", "u1", Family::Number(DataType::UInt8)),
    fixed("uint16", "u2", Family::Number(DataType::UInt16)),
    fixed("uint32", "u4", Family::Number(DataType::UInt32)),
    fixed("uint64", "u8", Family::Number(DataType::UInt64)),
    fixed("float16", "f2", Family::Number(DataType::Float16)),
    fixed("float32", "f4", Family::Number(DataType::Float32)),
    fixed("float64", "f8", Family::Number(DataType::Float64)),
    fixed("complex64", "c8", Family::Complex(DataType::Float32)),
    fixed("complex128", "c16", Family::Complex(DataType::Float64)),
    fixed("string", "O", Family::String),
    // zarr-python 3.4.2's name for zarr-extensions' `bytes`, which it writes; both are read.
    fixed("variable_length_bytes", "O", Family::Bytes),
    fixed("bytes", "O", Family::Bytes),
];

/// How a configured data type reads its configuration.
#[derive(Clone, Copy)]
enum Configured {
    Time { delta: bool },
    Utf32,
    NullTerminatedBytes,
    RawBytes,
}

/// The data types a configuration completes: the v3 name, numpy's v2 letter, how.
const CONFIGURED: [(&str, char, Configured); 5] = [
    ("numpy.datetime64", 'M', Configured::Time { delta: false }),
    ("numpy.timedelta64", 'm', Configured::Time { delta: true }),
    ("fixed_length_utf32", 'U', Configured::Utf32),
    (
        "null_terminated_bytes",
        'S',
        Configured::NullTerminatedBytes,
    ),
    ("raw_bytes", 'V', Configured::RawBytes),
];

/// A data type as an array's metadata gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayType {
    pub family: Family,
    /// The byte order a zarr v2 dtype string gave (`>`); zarr v3 puts it in `bytes`.
    pub big_endian: bool,
}

fn invalid(message: String) -> Error {
    Error::InvalidMetadata { message }
}

fn scalar_error(t: &ArrayType, value: &Value, reason: impl Into<String>) -> Error {
    Error::InvalidScalar {
        data_type: t.name(),
        value: value.to_string(),
        reason: reason.into(),
    }
}

impl ArrayType {
    pub fn new(family: Family) -> ArrayType {
        ArrayType {
            family,
            big_endian: false,
        }
    }

    /// Reads a zarr v3 `data_type`: a name, or `{"name", "configuration"}`.
    pub fn from_v3(value: &Value) -> Result<ArrayType> {
        let (name, config) = match value {
            Value::String(name) => (name.as_str(), None),
            Value::Object(map) => {
                let name = map.get("name").and_then(Value::as_str).ok_or_else(|| {
                    invalid(format!("data type object {value} has no \"name\" string"))
                })?;
                if let Some(key) = map.keys().find(|k| *k != "name" && *k != "configuration") {
                    return Err(invalid(format!(
                        "data type object has unknown key {}",
                        quoted(key)
                    )));
                }
                (name, map.get("configuration"))
            }
            other => {
                return Err(invalid(format!(
                    "data type must be a name or an object with a name, got {other}"
                )))
            }
        };
        if let Some(row) = FIXED.iter().find(|r| r.v3 == name) {
            match config {
                None => {}
                Some(Value::Object(c)) if c.is_empty() => {}
                Some(other) => {
                    return Err(invalid(format!(
                        "data type {name} takes no configuration, got {other}"
                    )))
                }
            }
            return Ok(ArrayType::new(row.family.clone()));
        }
        if name == REGISTERED {
            return registered(config).map(ArrayType::new);
        }
        if let Some(bits) = raw_bits(name) {
            return Ok(ArrayType::new(Family::RawBits { bits: bits? }));
        }
        if let Some(&(_, _, how)) = CONFIGURED.iter().find(|(n, _, _)| *n == name) {
            let config = match config {
                Some(Value::Object(c)) => c,
                None => return Err(invalid(format!("data type {name} needs a configuration"))),
                Some(other) => {
                    return Err(invalid(format!(
                        "data type {name}'s configuration must be an object, got {other}"
                    )))
                }
            };
            return configured(name, how, config).map(ArrayType::new);
        }
        if let Some(row) = NARROW.iter().find(|r| r.name == name) {
            match config {
                None => {}
                Some(Value::Object(c)) if c.is_empty() => {}
                Some(other) => {
                    return Err(invalid(format!(
                        "data type {name} takes no configuration, got {other}"
                    )))
                }
            }
            return Ok(ArrayType::new(Family::Narrow(row.narrow)));
        }
        Err(Error::UnknownDataType {
            name: name.to_string(),
        })
    }

    /// Reads a zarr v2 `dtype` string: `<f8`, `>i2`, `|b1`, `<c8`, `<M8[ns]`, `<m8[10s]`,
    /// `<U8`, `|S5`, `|V8`; `|O` with `object_codec` ("vlen-utf8", "vlen-bytes"), the filter
    /// that says what the objects are.
    pub fn from_v2(dtype: &str, object_codec: Option<&str>) -> Result<ArrayType> {
        let unknown = || Error::UnknownDataType {
            name: dtype.to_string(),
        };
        let order = dtype.chars().next().ok_or_else(unknown)?;
        let big_endian = match order {
            '<' | '|' => false,
            '>' => true,
            _ => return Err(unknown()),
        };
        // (Checked slicing throughout: a panicking one would carry core's string formatting.)
        let code = dtype.get(1..).ok_or_else(unknown)?;
        let family = if code == "O" {
            match object_codec {
                Some("vlen-utf8") => Family::String,
                Some("vlen-bytes") => Family::Bytes,
                _ => {
                    return Err(Error::UnsupportedDataType {
                        codec: "zarr-wasm-codecs",
                        data_type: dtype.to_string(),
                        reason: "an object array reads only with a vlen-utf8 or vlen-bytes filter"
                            .to_string(),
                    })
                }
            }
        } else if let Some(row) = FIXED.iter().find(|r| r.v2 == code) {
            row.family.clone()
        } else {
            let letter = code.chars().next().ok_or_else(unknown)?;
            let rest = code.get(letter.len_utf8()..).ok_or_else(unknown)?;
            let &(name, _, how) = CONFIGURED
                .iter()
                .find(|(_, l, _)| *l == letter)
                .ok_or_else(unknown)?;
            let mut config = Map::new();
            match how {
                Configured::Time { .. } => {
                    // "8[10s]": eight bytes, then the scale and unit in brackets; "8" alone
                    // is numpy's unit-less (generic) type.
                    let inner = match rest {
                        "8" => "generic",
                        _ => rest
                            .strip_prefix("8[")
                            .and_then(|r| r.strip_suffix(']'))
                            .ok_or_else(unknown)?,
                    };
                    let digits = inner.bytes().take_while(u8::is_ascii_digit).count();
                    let scale = if digits == 0 {
                        1
                    } else {
                        let (scale, _) = inner.split_at_checked(digits).ok_or_else(unknown)?;
                        scale.parse::<u64>().map_err(|_| unknown())?
                    };
                    let unit = inner.get(digits..).ok_or_else(unknown)?;
                    config.insert("unit".into(), Value::from(unit));
                    config.insert("scale_factor".into(), Value::from(scale));
                }
                _ => {
                    let n: u64 = rest.parse().map_err(|_| unknown())?;
                    let bytes = if matches!(how, Configured::Utf32) {
                        n.checked_mul(4).ok_or_else(unknown)?
                    } else {
                        n
                    };
                    config.insert("length_bytes".into(), Value::from(bytes));
                }
            }
            configured(name, how, &config)?
        };
        // numpy writes `|` for the types with no byte order, `<` or `>` for the others.
        let t = ArrayType { family, big_endian };
        let one_byte = t.byte_order().is_none();
        if order == '|' && !one_byte {
            return Err(unknown());
        }
        Ok(ArrayType {
            big_endian: big_endian && !one_byte,
            ..t
        })
    }

    /// The zarr v3 name.
    pub fn name(&self) -> String {
        match &self.family {
            Family::RawBits { bits } => format!("r{bits}"),
            Family::Registered { name, .. } => name.clone(),
            Family::Narrow(n) => n.name().to_string(),
            f => FIXED
                .iter()
                .find(|r| r.family == *f)
                .map(|r| r.v3.to_string())
                .unwrap_or_else(|| {
                    let how = match f {
                        Family::Time { delta: false, .. } => "numpy.datetime64",
                        Family::Time { delta: true, .. } => "numpy.timedelta64",
                        Family::Utf32 { .. } => "fixed_length_utf32",
                        Family::NullTerminatedBytes { .. } => "null_terminated_bytes",
                        _ => "raw_bytes",
                    };
                    how.to_string()
                }),
        }
    }

    /// The zarr v3 `data_type`: the name, or the object with its configuration.
    pub fn to_v3(&self) -> Value {
        let config = match &self.family {
            Family::Time { unit, scale, .. } => Value::object([
                ("unit", Value::from(unit.name())),
                ("scale_factor", Value::from(u64::from(*scale))),
            ]),
            Family::Utf32 { chars } => {
                Value::object([("length_bytes", Value::from(4 * *chars as u64))])
            }
            Family::NullTerminatedBytes { len } | Family::RawBytes { len } => {
                Value::object([("length_bytes", Value::from(*len as u64))])
            }
            Family::Registered { name, lane, lanes } => {
                return Value::object([
                    ("name", Value::from(REGISTERED)),
                    (
                        "configuration",
                        Value::object([
                            ("name", Value::from(name.as_str())),
                            ("lane", Value::from(lane.name())),
                            ("lanes", Value::from(*lanes as u64)),
                        ]),
                    ),
                ])
            }
            _ => return Value::from(self.name()),
        };
        Value::object([
            ("name", Value::from(self.name())),
            ("configuration", config),
        ])
    }

    /// numpy's dtype string of a numeric type in a byte order (`<u2`, `>f8`; `|u1` for one
    /// byte), as numcodecs' configurations give types.
    pub fn numpy(dt: DataType, big: bool) -> String {
        ArrayType {
            family: Family::Number(dt),
            big_endian: big,
        }
        .to_v2()
    }

    /// The zarr v2 `dtype` string (with this type's byte order), where v2 has one (`r*`:
    /// numpy's void of as many bytes).
    pub fn to_v2(&self) -> String {
        let code = match &self.family {
            Family::Time { delta, unit, scale } => {
                let letter = if *delta { 'm' } else { 'M' };
                let scale = if *scale == 1 {
                    String::new()
                } else {
                    scale.to_string()
                };
                match unit {
                    TimeUnit::Generic => format!("{letter}8"),
                    _ => format!("{letter}8[{scale}{}]", unit.name()),
                }
            }
            Family::Utf32 { chars } => format!("U{chars}"),
            Family::NullTerminatedBytes { len } => format!("S{len}"),
            Family::RawBytes { len } => format!("V{len}"),
            Family::RawBits { bits } => format!("V{}", bits / 8),
            Family::Registered { lane, lanes, .. } => format!("V{}", lane.size() * lanes),
            Family::Narrow(n) => format!("V{}", n.lane().size()),
            f => FIXED
                .iter()
                .find(|r| r.family == *f)
                .map_or("O", |r| r.v2)
                .to_string(),
        };
        let order = match self.byte_order() {
            None => '|',
            Some("big") => '>',
            Some(_) => '<',
        };
        format!("{order}{code}")
    }

    /// How an item is laid out for the codecs: `lanes` values of a numeric type. `None` for
    /// the types with no fixed size.
    pub fn lane(&self) -> Option<(DataType, usize)> {
        Some(match &self.family {
            Family::Number(dt) => (*dt, 1),
            Family::Bool => (DataType::UInt8, 1),
            Family::Complex(part) => (*part, 2),
            Family::Time { .. } => (DataType::Int64, 1),
            Family::Utf32 { chars } => (DataType::UInt32, *chars),
            Family::NullTerminatedBytes { len } | Family::RawBytes { len } => {
                (DataType::UInt8, *len)
            }
            Family::RawBits { bits } => (DataType::UInt8, bits / 8),
            Family::Registered { lane, lanes, .. } => (*lane, *lanes),
            Family::Narrow(n) => (n.lane(), 1),
            Family::String | Family::Bytes => return None,
        })
    }

    /// "big" or "little" where a lane has more than one byte (a v2 dtype's `>` or `<`, a
    /// `bytes` codec's endian); `None` where there is no byte order (`|`).
    pub fn byte_order(&self) -> Option<&'static str> {
        match self.lane() {
            Some((lane, _)) if lane.size() > 1 => {
                Some(if self.big_endian { "big" } else { "little" })
            }
            _ => None,
        }
    }

    /// Bytes per item; `None` for the types with no fixed size.
    pub fn item_size(&self) -> Option<usize> {
        self.lane().map(|(dt, lanes)| dt.size() * lanes)
    }

    /// The numeric type, for the types the numeric codecs take.
    pub fn numeric(&self) -> Option<DataType> {
        match self.family {
            Family::Number(dt) => Some(dt),
            _ => None,
        }
    }

    /// What a read gives in JavaScript: a typed array's name (a complex array's values
    /// interleaved, real then imaginary; a datetime's int64 counts; a registered type's
    /// lanes), or zarrita's classes for strings and fixed bytes.
    pub fn result(&self) -> &'static str {
        match &self.family {
            Family::Number(dt) => dt.typed_arrays()[0],
            Family::Bool => "BoolArray",
            Family::Complex(DataType::Float32) => "Float32Array",
            Family::Complex(_) => "Float64Array",
            Family::Time { .. } => "BigInt64Array",
            Family::Utf32 { .. } => "UnicodeStringArray",
            Family::NullTerminatedBytes { .. } => "ByteStringArray",
            Family::RawBytes { .. } | Family::RawBits { .. } => "Uint8Array",
            Family::String | Family::Bytes => "Array",
            // The lanes' typed array, which the application's registration turns into items.
            Family::Registered { lane, .. } => lane.typed_arrays()[0],
            // The stored bits (bfloat16, float8/6/4) or bytes (int2, int4, uint2, uint4).
            Family::Narrow(n) => n.lane().typed_arrays()[0],
        }
    }

    /// The registry's description of this type, as the JavaScript API gives it.
    pub fn describe(&self) -> Value {
        let (lane, lanes) = match self.lane() {
            Some((dt, n)) => (Value::from(dt.name()), Value::from(n as u64)),
            None => (Value::Null, Value::Null),
        };
        let mut pairs = vec![
            ("name", Value::from(self.name())),
            ("v3", self.to_v3()),
            (
                "v2",
                match self.family {
                    // No numpy dtype: zarr v2 has no such type.
                    Family::Narrow(_) | Family::Registered { .. } => Value::Null,
                    _ => Value::from(self.to_v2()),
                },
            ),
            (
                "item_size",
                self.item_size()
                    .map_or(Value::Null, |n| Value::from(n as u64)),
            ),
            (
                "byte_order",
                self.byte_order().map_or(Value::Null, Value::from),
            ),
            ("lane", lane),
            ("lanes", lanes),
            ("result", Value::from(self.result())),
            ("default_fill", self.default_fill()),
        ];
        if let Family::Narrow(n) = &self.family {
            pairs.push(("bits", Value::from(u64::from(n.bits()))));
            pairs.push(("signed", Value::Bool(n.is_signed())));
        }
        if let Family::Time { unit, scale, delta } = &self.family {
            pairs.push(("unit", Value::from(unit.name())));
            pairs.push(("scale_factor", Value::from(u64::from(*scale))));
            pairs.push(("timedelta", Value::Bool(*delta)));
        }
        let mut map = Map::new();
        for (k, v) in pairs {
            map.insert(k.to_string(), v);
        }
        Value::Object(map)
    }
}

/// `r8`, `r16`, ...: Some(bits) for a raw-bits name, an error for `r` + a bit count that is
/// not a positive multiple of 8.
/// The largest item a data type may have, in bytes (what a fixed-size string or bytes type's
/// `length_bytes` may say).
const MAX_ITEM_BYTES: u64 = 1 << 20;

fn raw_bits(name: &str) -> Option<Result<usize>> {
    let digits = name.strip_prefix('r')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match digits.parse::<usize>() {
        Ok(bits) if bits > 0 && bits.is_multiple_of(8) && bits <= 1 << 20 => Ok(bits),
        _ => Err(invalid(format!(
            "data type {name}: raw bits must be a positive multiple of 8"
        ))),
    })
}

/// A registered data type as the JavaScript side hands it over (see [`Family::Registered`]).
fn registered(config: Option<&Value>) -> Result<Family> {
    let config = config.ok_or_else(|| invalid(format!("{REGISTERED} needs a configuration")))?;
    let name = config.get("name").and_then(Value::as_str);
    let lane = config
        .get("lane")
        .and_then(Value::as_str)
        .and_then(|l| DataType::from_name(l).ok());
    let lanes = config
        .get("lanes")
        .and_then(Value::as_u64)
        .filter(|&n| (1..=1 << 16).contains(&n));
    match (name, lane, lanes) {
        (Some(name), Some(lane), Some(lanes)) => Ok(Family::Registered {
            name: name.to_string(),
            lane,
            lanes: lanes as usize,
        }),
        _ => Err(invalid(format!(
            "{REGISTERED}'s configuration needs a name, a numeric lane type and 1 to 65536 lanes, got {config}"
        ))),
    }
}

/// A configured data type from its configuration (zarr v3's, or one made from a v2 dtype).
fn configured(name: &str, how: Configured, config: &Map) -> Result<Family> {
    let field = |key: &str| {
        config.get(key).ok_or_else(|| {
            invalid(format!(
                "data type {name}'s configuration has no {}",
                quoted(key)
            ))
        })
    };
    let allowed: &[&str] = match how {
        Configured::Time { .. } => &["unit", "scale_factor"],
        _ => &["length_bytes"],
    };
    if let Some(key) = config.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid(format!(
            "data type {name}'s configuration has an unknown key {}",
            quoted(key)
        )));
    }
    match how {
        Configured::Time { delta } => {
            let unit_value = field("unit")?;
            let unit = unit_value
                .as_str()
                .and_then(TimeUnit::from_name)
                .ok_or_else(|| {
                    invalid(format!(
                        "data type {name}'s configuration: unit {unit_value} is not one of \
                         Y, M, W, D, h, m, s, ms, us, ns, ps, fs, as, generic"
                    ))
                })?;
            let scale_value = field("scale_factor")?;
            let scale = scale_value
                .as_u64()
                .filter(|s| (1..1 << 31).contains(s))
                .ok_or_else(|| {
                    invalid(format!(
                        "data type {name}'s configuration: scale_factor {scale_value} is not an \
                         integer from 1 to 2147483647"
                    ))
                })? as u32;
            Ok(Family::Time { delta, unit, scale })
        }
        _ => {
            let value = field("length_bytes")?;
            // (An item's bytes are allocated for its fill value and written out in JSON: a
            // size from a hostile store must be refused, not allocated.)
            let len = value
                .as_u64()
                .filter(|&n| n <= MAX_ITEM_BYTES)
                .ok_or_else(|| {
                    invalid(format!(
                        "data type {name}'s configuration: length_bytes {value} is not a \
                     non-negative integer of at most {MAX_ITEM_BYTES} (1 MiB an item)"
                    ))
                })? as usize;
            match how {
                Configured::Utf32 if !len.is_multiple_of(4) => Err(invalid(format!(
                    "data type {name}'s configuration: length_bytes {len} is not a multiple of \
                     4 (UTF-32 code points)"
                ))),
                Configured::Utf32 => Ok(Family::Utf32 { chars: len / 4 }),
                Configured::NullTerminatedBytes => Ok(Family::NullTerminatedBytes { len }),
                _ => Ok(Family::RawBytes { len }),
            }
        }
    }
}

#[cfg(test)]
mod tests;
