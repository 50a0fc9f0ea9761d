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

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{quoted, Error, Result};
use crate::json::{Map, Value};

/// A unit of numpy's datetime64 and timedelta64, with its name in metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Year,
    Month,
    Week,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Micro,
    Nano,
    Pico,
    Femto,
    Atto,
    /// numpy's unit-less datetime64 (only NaT has a meaning).
    Generic,
}

const TIME_UNITS: [(&str, TimeUnit); 14] = [
    ("Y", TimeUnit::Year),
    ("M", TimeUnit::Month),
    ("W", TimeUnit::Week),
    ("D", TimeUnit::Day),
    ("h", TimeUnit::Hour),
    ("m", TimeUnit::Minute),
    ("s", TimeUnit::Second),
    ("ms", TimeUnit::Milli),
    ("us", TimeUnit::Micro),
    ("ns", TimeUnit::Nano),
    ("ps", TimeUnit::Pico),
    ("fs", TimeUnit::Femto),
    ("as", TimeUnit::Atto),
    ("generic", TimeUnit::Generic),
];

impl TimeUnit {
    pub fn name(self) -> &'static str {
        TIME_UNITS
            .iter()
            .find(|(_, u)| *u == self)
            .map_or("generic", |(n, _)| n)
    }

    /// A unit by its name; numpy's "μs" is "us".
    pub fn from_name(name: &str) -> Option<TimeUnit> {
        let name = if name == "μs" { "us" } else { name };
        TIME_UNITS.iter().find(|(n, _)| *n == name).map(|(_, u)| *u)
    }

    /// The unit in milliseconds, as `num / den` (`None` for the calendar units, years and
    /// months, whose length varies, and for generic).
    pub fn millis(self) -> Option<(i128, i128)> {
        Some(match self {
            TimeUnit::Week => (7 * 86_400_000, 1),
            TimeUnit::Day => (86_400_000, 1),
            TimeUnit::Hour => (3_600_000, 1),
            TimeUnit::Minute => (60_000, 1),
            TimeUnit::Second => (1000, 1),
            TimeUnit::Milli => (1, 1),
            TimeUnit::Micro => (1, 1000),
            TimeUnit::Nano => (1, 1_000_000),
            TimeUnit::Pico => (1, 1_000_000_000),
            TimeUnit::Femto => (1, 1_000_000_000_000),
            TimeUnit::Atto => (1, 1_000_000_000_000_000),
            TimeUnit::Year | TimeUnit::Month | TimeUnit::Generic => return None,
        })
    }
}

/// numpy's NaT: the smallest int64.
pub const NAT: i64 = i64::MIN;

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

/// The zarr-extensions numeric types of 16 bits or fewer that JavaScript has no typed array
/// for: bfloat16, the float8, float6 and float4 formats, int2/int4/uint2/uint4. Their items are
/// stored as zarrs lays them out with `bytes`: one byte each (bfloat16: two, little-endian),
/// the value in the low bits (sign-extended for int2 and int4). A read gives the stored bits or
/// bytes; [`Narrow::value`] is what they stand for, with the upper bits ignored, as the
/// zarr-extensions definitions say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Narrow {
    BFloat16,
    Float8E4M3,
    Float8E5M2,
    Float8E4M3Fnuz,
    Float8E5M2Fnuz,
    Float8E4M3B11Fnuz,
    Float8E3M4,
    Float8E8M0Fnu,
    Float6E2M3Fn,
    Float6E3M2Fn,
    Float4E2M1Fn,
    Int2,
    Int4,
    UInt2,
    UInt4,
}

/// Where a narrow float format keeps its infinities and NaNs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Specials {
    /// As IEEE 754: the largest exponent is infinity (mantissa 0) or NaN.
    Ieee,
    /// "fnuz": no infinity, no negative zero; the pattern of negative zero is the one NaN.
    Fnuz,
    /// "fn": finite only.
    Finite,
    /// float8_e8m0fnu: an unsigned exponent alone, 0xff the NaN.
    ExponentOnly,
}

/// A narrow type's row: name, exponent and mantissa bits (integers: their bits and 0), bias,
/// specials (`None`: an integer; `Some(true)`-like flags are in `Specials`), signed.
struct NarrowRow {
    narrow: Narrow,
    name: &'static str,
    exponent: u32,
    mantissa: u32,
    bias: i32,
    specials: Option<Specials>,
    signed: bool,
}

const fn narrow(
    narrow: Narrow,
    name: &'static str,
    exponent: u32,
    mantissa: u32,
    bias: i32,
    specials: Option<Specials>,
    signed: bool,
) -> NarrowRow {
    NarrowRow {
        narrow,
        name,
        exponent,
        mantissa,
        bias,
        specials,
        signed,
    }
}

/// The narrow types (zarr-extensions' definitions; checked against ml_dtypes through the zarrs
/// fixtures, tests/fixtures/exttypes).
const NARROW: [NarrowRow; 15] = [
    narrow(
        Narrow::BFloat16,
        "bfloat16",
        8,
        7,
        127,
        Some(Specials::Ieee),
        true,
    ),
    narrow(
        Narrow::Float8E4M3,
        "float8_e4m3",
        4,
        3,
        7,
        Some(Specials::Ieee),
        true,
    ),
    narrow(
        Narrow::Float8E5M2,
        "float8_e5m2",
        5,
        2,
        15,
        Some(Specials::Ieee),
        true,
    ),
    narrow(
        Narrow::Float8E4M3Fnuz,
        "float8_e4m3fnuz",
        4,
        3,
        8,
        Some(Specials::Fnuz),
        true,
    ),
    narrow(
        Narrow::Float8E5M2Fnuz,
        "float8_e5m2fnuz",
        5,
        2,
        16,
        Some(Specials::Fnuz),
        true,
    ),
    narrow(
        Narrow::Float8E4M3B11Fnuz,
        "float8_e4m3b11fnuz",
        4,
        3,
        11,
        Some(Specials::Fnuz),
        true,
    ),
    narrow(
        Narrow::Float8E3M4,
        "float8_e3m4",
        3,
        4,
        3,
        Some(Specials::Ieee),
        true,
    ),
    narrow(
        Narrow::Float8E8M0Fnu,
        "float8_e8m0fnu",
        8,
        0,
        127,
        Some(Specials::ExponentOnly),
        false,
    ),
    narrow(
        Narrow::Float6E2M3Fn,
        "float6_e2m3fn",
        2,
        3,
        1,
        Some(Specials::Finite),
        true,
    ),
    narrow(
        Narrow::Float6E3M2Fn,
        "float6_e3m2fn",
        3,
        2,
        3,
        Some(Specials::Finite),
        true,
    ),
    narrow(
        Narrow::Float4E2M1Fn,
        "float4_e2m1fn",
        2,
        1,
        1,
        Some(Specials::Finite),
        true,
    ),
    narrow(Narrow::Int2, "int2", 2, 0, 0, None, true),
    narrow(Narrow::Int4, "int4", 4, 0, 0, None, true),
    narrow(Narrow::UInt2, "uint2", 2, 0, 0, None, false),
    narrow(Narrow::UInt4, "uint4", 4, 0, 0, None, false),
];

impl Narrow {
    /// Its row: `NARROW` lists the types in the enum's order (a test holds it), so a value's
    /// decode does not search the table.
    fn row(self) -> &'static NarrowRow {
        &NARROW[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The bits of a value (sign included).
    pub fn bits(self) -> u32 {
        let r = self.row();
        match r.specials {
            None => r.exponent,
            Some(_) => u32::from(r.signed) + r.exponent + r.mantissa,
        }
    }

    pub fn is_float(self) -> bool {
        self.row().specials.is_some()
    }

    pub fn is_signed(self) -> bool {
        self.row().signed
    }

    /// The numeric type its items are stored as.
    pub fn lane(self) -> DataType {
        match self {
            Narrow::BFloat16 => DataType::UInt16,
            Narrow::Int2 | Narrow::Int4 => DataType::Int8,
            _ => DataType::UInt8,
        }
    }

    /// The value a stored pattern stands for (its bits above the type's ignored).
    pub fn value(self, stored: u32) -> f64 {
        let r = self.row();
        let width = self.bits();
        let bits = stored & ((1 << width) - 1);
        let Some(specials) = r.specials else {
            // An integer: two's complement in `width` bits, or unsigned.
            let shift = 32 - width;
            return if r.signed {
                f64::from(((bits << shift) as i32) >> shift)
            } else {
                f64::from(bits)
            };
        };
        let top = r.exponent + r.mantissa;
        let negative = r.signed && bits >> top & 1 == 1;
        let exponent = (bits >> r.mantissa) & ((1 << r.exponent) - 1);
        let mantissa = bits & ((1 << r.mantissa) - 1);
        let all_ones = (1 << r.exponent) - 1;
        match specials {
            Specials::Ieee if exponent == all_ones => {
                return match (mantissa, negative) {
                    (0, false) => f64::INFINITY,
                    (0, true) => f64::NEG_INFINITY,
                    _ => f64::NAN,
                }
            }
            Specials::Fnuz if bits == 1 << top => return f64::NAN,
            Specials::ExponentOnly if exponent == all_ones => return f64::NAN,
            _ => {}
        }
        let magnitude = if specials == Specials::ExponentOnly {
            pow2(exponent as i32 - r.bias)
        } else if exponent == 0 {
            f64::from(mantissa) * pow2(1 - r.bias - r.mantissa as i32)
        } else {
            f64::from((1 << r.mantissa) + mantissa)
                * pow2(exponent as i32 - r.bias - r.mantissa as i32)
        };
        if negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The quiet NaN zarrs and ml_dtypes write; `None` where the format has no NaN.
    fn canonical_nan(self) -> Option<u32> {
        let r = self.row();
        match r.specials? {
            Specials::Ieee => Some(((1 << r.exponent) - 1) << r.mantissa | 1 << (r.mantissa - 1)),
            Specials::Fnuz => Some(1 << (r.exponent + r.mantissa)),
            Specials::ExponentOnly => Some(0xff),
            Specials::Finite => None,
        }
    }

    /// The stored pattern of a JSON fill value: an integer in range, or for the floats a number
    /// the format holds exactly, "NaN", "Infinity", "-Infinity" or "0x" hex of its bits.
    fn pattern(self, value: &Value) -> std::result::Result<u32, String> {
        let width = self.bits();
        let count = 1u32 << width;
        let stored = |p: u32| -> u32 {
            // A signed integer is stored sign-extended in its byte.
            if !self.is_float() && self.is_signed() && p >= count / 2 {
                p | (0xff & !(count - 1))
            } else {
                p
            }
        };
        if let Some(hex) = value.as_str().and_then(|s| s.strip_prefix("0x")) {
            let digits = (width as usize).div_ceil(4);
            return match u32::from_str_radix(hex, 16) {
                Ok(p) if hex.len() == digits && p < count && self.is_float() => Ok(p),
                _ => Err(format!(
                    "a hex value of {} needs {digits} digits below 0x{count:x}",
                    self.name()
                )),
            };
        }
        let target = match value {
            Value::String(s) if s == "NaN" => {
                return self
                    .canonical_nan()
                    .ok_or_else(|| format!("{} has no NaN", self.name()))
            }
            Value::String(s) if s == "Infinity" => f64::INFINITY,
            Value::String(s) if s == "-Infinity" => f64::NEG_INFINITY,
            // (The crate's own decimal reader and writer: core's float parsing and formatting
            // would add some 25 KB to every module.)
            Value::Number(n) if self.is_float() || !n.as_str().contains(['.', 'e', 'E']) => {
                crate::decimal::parse_f64(n.as_str()).ok_or("not a number")?
            }
            _ => return Err("expected a number".to_string()),
        };
        // The pattern with exactly this value (the sign of a zero included).
        (0..count)
            .find(|&p| self.value(p).to_bits() == target.to_bits())
            .map(stored)
            .ok_or_else(|| {
                let v = crate::decimal::json_f64(target);
                format!("{} does not hold {v} exactly", self.name())
            })
    }
}

/// 2^e as f64 (every power a narrow format has is a normal float64).
fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}

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
mod tests {
    use super::*;

    fn j(text: &str) -> Value {
        text.parse().unwrap()
    }

    /// An item size a hostile store could give (866 MB a raw-bytes item, found by the
    /// layout fuzz target: its fill value was allocated) is refused, in v2 and v3 forms.
    #[test]
    fn huge_items_are_refused_before_anything_is_allocated() {
        for dtype in [
            "|V866666666",
            "<U300000",
            "|S2000000",
            "<U9999999999999999999",
        ] {
            let e = ArrayType::from_v2(dtype, None).expect_err(dtype);
            assert!(
                matches!(e.code(), "INVALID_METADATA" | "UNKNOWN_DATA_TYPE"),
                "{dtype}"
            );
        }
        let v3 = crate::json::parse(
            r#"{"name": "raw_bytes", "configuration": {"length_bytes": 1073741824}}"#,
        )
        .unwrap();
        assert_eq!(
            ArrayType::from_v3(&v3).expect_err("1 GiB").code(),
            "INVALID_METADATA"
        );
        let ok = crate::json::parse(
            r#"{"name": "raw_bytes", "configuration": {"length_bytes": 1048576}}"#,
        )
        .unwrap();
        assert!(ArrayType::from_v3(&ok).is_ok());
    }

    #[test]
    fn narrow_rows_are_in_the_enums_order() {
        for (i, r) in NARROW.iter().enumerate() {
            assert_eq!(r.narrow as usize, i, "{}", r.name);
        }
    }

    #[test]
    fn names_round_trip_between_formats() {
        for (v2, v3) in [
            ("|b1", r#""bool""#),
            ("<c8", r#""complex64""#),
            (">c16", r#""complex128""#),
            (
                "<M8[ns]",
                r#"{"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}"#,
            ),
            (
                "<M8[10s]",
                r#"{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":10}}"#,
            ),
            (
                "<m8[ms]",
                r#"{"name":"numpy.timedelta64","configuration":{"unit":"ms","scale_factor":1}}"#,
            ),
            (
                "<U8",
                r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":32}}"#,
            ),
            (
                "|S5",
                r#"{"name":"null_terminated_bytes","configuration":{"length_bytes":5}}"#,
            ),
            (
                "|V8",
                r#"{"name":"raw_bytes","configuration":{"length_bytes":8}}"#,
            ),
        ] {
            let t = ArrayType::from_v2(v2, None).unwrap();
            assert_eq!(t.to_v3(), j(v3), "{v2}");
            assert_eq!(t.to_v2(), v2);
            let back = ArrayType::from_v3(&j(v3)).unwrap();
            assert_eq!(back.family, t.family);
        }
    }

    #[test]
    fn bad_configurations_name_the_field() {
        for (text, needle) in [
            (
                r#"{"name":"numpy.datetime64","configuration":{"unit":"fortnight","scale_factor":1}}"#,
                "unit",
            ),
            (
                r#"{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":0}}"#,
                "scale_factor",
            ),
            (
                r#"{"name":"fixed_length_utf32","configuration":{"length_bytes":3}}"#,
                "length_bytes",
            ),
            (r#"{"name":"fixed_length_utf32"}"#, "needs a configuration"),
            (r#""r12""#, "multiple of 8"),
        ] {
            let e = ArrayType::from_v3(&j(text)).unwrap_err();
            assert_eq!(e.code(), "INVALID_METADATA");
            assert!(e.to_string().contains(needle), "{e}");
        }
        assert_eq!(
            ArrayType::from_v3(&j(r#""bfloat17""#)).unwrap_err().code(),
            "UNKNOWN_DATA_TYPE"
        );
        assert_eq!(
            ArrayType::from_v3(&j(r#"{"name": "bfloat16", "configuration": {"x": 1}}"#))
                .unwrap_err()
                .code(),
            "INVALID_METADATA"
        );
    }

    /// Every value of every zarrs-written store (tests/fixtures/exttypes, cross-checked there
    /// with ml_dtypes) is what its bits stand for here; every fill value reads to its bits.
    #[test]
    fn narrow_types_read_as_zarrs_and_ml_dtypes_write_them() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/exttypes/expected.json"
        );
        let cases = crate::json::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut values = 0;
        for c in cases.as_array().unwrap() {
            let t = ArrayType::from_v3(c.get("data_type").unwrap()).unwrap();
            let Family::Narrow(n) = t.family else {
                panic!("{c}")
            };
            let bits = c.get("bits_hex").and_then(Value::as_array).unwrap();
            let want = c.get("values").and_then(Value::as_array).unwrap();
            for (b, v) in bits.iter().zip(want) {
                let b = u32::from_str_radix(&b.as_str().unwrap()[2..], 16).unwrap();
                let got = n.value(b);
                let expected = match v.as_str() {
                    Some("NaN") => f64::NAN,
                    Some("Infinity") => f64::INFINITY,
                    Some("-Infinity") => f64::NEG_INFINITY,
                    Some("-0.0") => -0.0,
                    _ => v.as_f64().unwrap(),
                };
                assert!(
                    got.to_bits() == expected.to_bits() || got.is_nan() && expected.is_nan(),
                    "{} 0x{b:x}: {got} != {expected}",
                    n.name()
                );
                values += 1;
            }
            let fill = t.fill_bytes(c.get("fill_value").unwrap(), 3).unwrap();
            let stored = fill.iter().rev().fold(0u32, |a, &b| a << 8 | u32::from(b));
            let want = c
                .get("fill_value_bits_hex")
                .and_then(Value::as_str)
                .unwrap();
            assert_eq!(
                format!("0x{stored:0w$x}", w = want.len() - 2),
                want,
                "{}",
                n.name()
            );
        }
        assert!(values > 4000, "{values}");
    }
}
