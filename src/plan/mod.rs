//! Choosing how to pack data: the target integer type, scale, offset and the sentinels for
//! missing values and infinities, by the rules of the SDS note on numeric types, scaling and
//! missing values (SOI TN 94-115, sections 5 to 7).
//!
//! - Floats to integers: the finite data are centred in the target's range and cover 3/4 of it
//!   ([`Span::Sds`], the note's automatic scaling) or all of it ([`Span::Full`]); a single value
//!   keeps scale 1. NaN, +Infinity and -Infinity go to sentinels through cast_value's
//!   scalar_map, so they pass through unscaled, and the sentinels are kept out of the data range.
//! - Integers to a narrower integer type (section 5): unchanged when the values fit, shifted by
//!   an offset when their range fits, otherwise scaled as reals.
//!
//! A plan is checked by running its own codec chain on the ends of the data range before it is
//! returned, and it states the largest absolute error a value in that range can come back with.

use crate::json::{Map, Value};
use zarr_cast_value::RoundingMode;

use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};

mod chain;
mod floats;
mod integers;

use chain::bytes_json;
pub use floats::plan_float;
pub use integers::plan_int;
use integers::plan_int_choosing;

const WHAT: &str = "planPacking";

/// How much of the target's range the data cover.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// The note's automatic scaling: centred, covering 3/4 of the range (1/8 spare each side).
    Sds,
    /// The whole usable range: the smallest error, no room for later values beyond the range.
    Full,
}

/// What the caller asks of a plan.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// The integer type to store; `None` chooses the narrowest that meets `max_abs_error`.
    pub target: Option<DataType>,
    pub span: Span,
    /// The largest absolute error allowed for any value in the data range.
    pub max_abs_error: Option<f64>,
    pub rounding: RoundingMode,
}

impl Default for PlanOptions {
    fn default() -> Self {
        Self {
            target: None,
            span: Span::Sds,
            max_abs_error: None,
            rounding: RoundingMode::NearestEven,
        }
    }
}

impl PlanOptions {
    /// Reads `{"target", "span": "sds" | "full", "max_abs_error", "rounding"}` (all optional).
    pub fn from_json(value: &Value) -> Result<Self> {
        const KEYS: [&str; 4] = ["target", "span", "max_abs_error", "rounding"];
        let mut options = Self::default();
        let Some(map) = crate::codec::config::config_object(WHAT, Some(value), &KEYS)? else {
            return Ok(options);
        };
        let text = |key: &str| -> Result<Option<&str>> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(other) => Err(Error::config(
                    WHAT,
                    format!("{key} must be a string, got {other}"),
                )),
            }
        };
        if let Some(name) = text("target")? {
            let target = DataType::from_name(name)?;
            if target.is_float() {
                return Err(Error::config(
                    WHAT,
                    format!("target {target} is not an integer type: packing stores integers"),
                ));
            }
            options.target = Some(target);
        }
        options.span = match text("span")? {
            None | Some("sds") => Span::Sds,
            Some("full") => Span::Full,
            Some(other) => {
                return Err(Error::config(
                    WHAT,
                    format!("span {other:?} is not \"sds\" (3/4 of the range) or \"full\""),
                ))
            }
        };
        if let Some(rounding) = text("rounding")? {
            options.rounding = rounding.parse().map_err(|_| {
                Error::config(
                    WHAT,
                    format!(
                        "rounding {rounding:?} is not one of nearest-even, towards-zero, \
                         towards-positive, towards-negative, nearest-away"
                    ),
                )
            })?;
        }
        match map.get("max_abs_error") {
            None | Some(Value::Null) => {}
            Some(v) => match v.as_f64() {
                Some(e) if e > 0.0 && e.is_finite() => options.max_abs_error = Some(e),
                _ => {
                    return Err(Error::config(
                        WHAT,
                        format!("max_abs_error must be a positive finite number, got {v}"),
                    ))
                }
            },
        }
        Ok(options)
    }
}

/// The integer codes that stand for missing values and infinities in a packed integer type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sentinels {
    pub missing: i128,
    pub pos_inf: i128,
    /// For unsigned types, the missing code: -Infinity has no place of its own there.
    pub neg_inf: i128,
}

impl Sentinels {
    /// The note's table extended to every width: a signed type keeps its minimum for missing,
    /// its maximum for +Infinity and the second smallest for -Infinity; an unsigned type keeps
    /// its maximum for missing (and -Infinity) and the second largest for +Infinity.
    pub fn of(target: DataType) -> Option<Self> {
        let (min, max) = target.int_range()?;
        Some(if target.is_signed_int() {
            Sentinels {
                missing: min,
                pos_inf: max,
                neg_inf: min + 1,
            }
        } else {
            Sentinels {
                missing: max,
                pos_inf: max - 1,
                neg_inf: max,
            }
        })
    }

    /// The codes left for data.
    fn data_range(target: DataType) -> Option<(i128, i128)> {
        let (min, max) = target.int_range()?;
        Some(if target.is_signed_int() {
            (min + 2, max - 1)
        } else {
            (min, max - 2)
        })
    }
}

/// A packing plan: the array's codecs and what they promise.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The array's data type (what users read and write).
    pub data_type: DataType,
    /// The stored integer type.
    pub target: DataType,
    pub fill_value: Scalar,
    /// The array -> array codecs (scale_offset, cast_value, ...), before the `bytes` codec.
    pub codecs: Vec<Value>,
    pub scale: f64,
    pub offset: f64,
    /// Sentinels for missing values and infinities (float data only).
    pub sentinels: Option<Sentinels>,
    /// The largest absolute difference between a value in the data range and what it reads
    /// back as.
    pub max_abs_error: f64,
    /// The data range the plan was made for (finite values), as given or found.
    pub range: Option<(f64, f64)>,
}

impl Plan {
    /// `{"data_type", "fill_value", "codecs", "attributes", "target", "scale", "offset",
    /// "sentinels", "max_abs_error", "range"}`: `codecs` ends with a little-endian `bytes`
    /// codec, ready for an array's metadata.
    pub fn to_json(&self) -> Value {
        let mut codecs = self.codecs.clone();
        codecs.push(bytes_json());
        let mut attributes = Map::new();
        if self.sentinels.is_some() {
            // The zarr missing_value convention, registered: missing values read back as the
            // array's NaN.
            attributes.insert(
                "zarr_conventions".into(),
                Value::from(vec![crate::missing::MISSING_VALUE_CONVENTION.to_json()]),
            );
            attributes.insert("missing_value".into(), self.fill_value.to_json());
        }
        Value::object([
            ("data_type", Value::from(self.data_type.name())),
            ("fill_value", self.fill_value.to_json()),
            ("codecs", Value::from(codecs)),
            ("attributes", Value::from(attributes)),
            ("target", Value::from(self.target.name())),
            ("scale", Value::from(self.scale)),
            ("offset", Value::from(self.offset)),
            (
                "sentinels",
                self.sentinels.map_or(Value::Null, |s| {
                    Value::object([
                        ("missing", int_json(s.missing)),
                        ("Infinity", int_json(s.pos_inf)),
                        ("-Infinity", int_json(s.neg_inf)),
                    ])
                }),
            ),
            ("max_abs_error", Value::from(self.max_abs_error)),
            (
                "range",
                self.range.map_or(Value::Null, |(lo, hi)| {
                    Value::from(vec![Value::from(lo), Value::from(hi)])
                }),
            ),
        ])
    }
}

/// An integer as JSON: a number where JavaScript reads it exactly, else a decimal string
/// (which zarr v3 readers, this package and zarr-python among them, accept for integers).
fn int_json(v: i128) -> Value {
    const EXACT: i128 = 1 << 53;
    if (-EXACT..=EXACT).contains(&v) {
        Value::from(v as i64)
    } else {
        Value::from(v.to_string())
    }
}

/// The range of a chunk's values: for floats, the smallest and largest finite values (`None`
/// when there are none); for integers, the smallest and largest values.
pub fn data_range(data: &ArrayData) -> Option<(f64, f64)> {
    fn fold(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
        values
            .filter(|v| v.is_finite())
            .fold(None, |acc, v| match acc {
                None => Some((v, v)),
                Some((lo, hi)) => Some((if v < lo { v } else { lo }, if v > hi { v } else { hi })),
            })
    }
    match data {
        ArrayData::Float16(v) => fold(v.iter().map(|&x| crate::widths::f16_to_f64(x))),
        ArrayData::Float32(v) => fold(v.iter().map(|&x| f64::from(x))),
        ArrayData::Float64(v) => fold(v.iter().copied()),
        _ => int_range(data).map(|(lo, hi)| (lo as f64, hi as f64)),
    }
}

/// The smallest and largest values of an integer chunk (`None` for floats or no values).
pub fn int_range(data: &ArrayData) -> Option<(i128, i128)> {
    fn fold<T: Copy + Into<i128>>(v: &[T]) -> Option<(i128, i128)> {
        v.iter()
            .map(|&x| x.into())
            .fold(None, |acc, x: i128| match acc {
                None => Some((x, x)),
                Some((lo, hi)) => Some((lo.min(x), hi.max(x))),
            })
    }
    match data {
        ArrayData::Int8(v) => fold(v),
        ArrayData::Int16(v) => fold(v),
        ArrayData::Int32(v) => fold(v),
        ArrayData::Int64(v) => fold(v),
        ArrayData::UInt8(v) => fold(v),
        ArrayData::UInt16(v) => fold(v),
        ArrayData::UInt32(v) => fold(v),
        ArrayData::UInt64(v) => fold(v),
        _ => None,
    }
}

/// Integer types from narrowest to widest; at one width unsigned first (one more data code).
pub const BY_WIDTH: [DataType; 8] = [
    DataType::UInt8,
    DataType::Int8,
    DataType::UInt16,
    DataType::Int16,
    DataType::UInt32,
    DataType::Int32,
    DataType::UInt64,
    DataType::Int64,
];

/// Plans packing a chunk of data: float data by [`plan_float`], integer data by [`plan_int`].
pub fn plan_for_data(data: &ArrayData, options: &PlanOptions) -> Result<Plan> {
    let dtype = data.data_type();
    if dtype.is_float() {
        return plan_float(dtype, data_range(data), options);
    }
    let (lo, hi) = int_range(data).unwrap_or((0, 0));
    plan_int_choosing(dtype, lo, hi, options)
}

/// Plans from a range, `{"min", "max", "data_type"}` (data_type defaults to float64; integer
/// bounds may be decimal strings; for float data, `min` and `max` may be null when every value
/// is missing).
pub fn plan_for_range(range: &Value, options: &PlanOptions) -> Result<Plan> {
    let map = crate::codec::config::config_object(WHAT, Some(range), &["min", "max", "data_type"])?
        .ok_or_else(|| Error::config(WHAT, "give the data or {\"min\", \"max\"}"))?;
    let dtype = match map.get("data_type") {
        None | Some(Value::Null) => DataType::Float64,
        Some(v) => DataType::from_json(v)?,
    };
    let bound = |key: &str| -> Result<Option<Scalar>> {
        match map.get(key) {
            None | Some(Value::Null) if dtype.is_float() => Ok(None),
            None | Some(Value::Null) => Err(Error::config(WHAT, format!("{key} is required"))),
            Some(v) => Scalar::from_json(dtype, v).map(Some),
        }
    };
    let (lo, hi) = (bound("min")?, bound("max")?);
    if dtype.is_float() {
        let range = match (lo.and_then(|s| s.as_f64()), hi.and_then(|s| s.as_f64())) {
            (Some(lo), Some(hi)) => Some((lo, hi)),
            (None, None) => None,
            _ => return Err(Error::config(WHAT, "give both min and max, or neither")),
        };
        return plan_float(dtype, range, options);
    }
    match (lo.and_then(|s| s.as_i128()), hi.and_then(|s| s.as_i128())) {
        (Some(lo), Some(hi)) => plan_int_choosing(dtype, lo, hi, options),
        _ => Err(Error::config(WHAT, "integer data need integer min and max")),
    }
}
