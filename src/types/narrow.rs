//! zarr-extensions' narrow numeric types (bfloat16, the float8, float6 and float4 formats,
//! int2/int4/uint2/uint4): their table, and what their stored bits stand for.

use crate::dtype::DataType;
use crate::json::Value;

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
pub(super) enum Specials {
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
pub(super) struct NarrowRow {
    pub(super) narrow: Narrow,
    pub(super) name: &'static str,
    exponent: u32,
    mantissa: u32,
    bias: i32,
    specials: Option<Specials>,
    signed: bool,
}

pub(super) const fn narrow(
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
pub(super) const NARROW: [NarrowRow; 15] = [
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
    pub(super) fn canonical_nan(self) -> Option<u32> {
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
    pub(super) fn pattern(self, value: &Value) -> std::result::Result<u32, String> {
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
pub(super) fn pow2(e: i32) -> f64 {
    f64::from_bits(((1023 + e) as u64) << 52)
}
