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
use crate::codec::cast_value::rounding_name;
use crate::codec::Chain;
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};

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
        let Some(map) = crate::codec::config_object(WHAT, Some(value), &KEYS)? else {
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
        ArrayData::Float16(v) => fold(v.iter().map(|&x| crate::float::f16_to_f64(x))),
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

/// Plans packing float data of type `array` whose finite values lie in `range` (`None`: no
/// finite values) into an integer type.
pub fn plan_float(
    array: DataType,
    range: Option<(f64, f64)>,
    options: &PlanOptions,
) -> Result<Plan> {
    if !array.is_float() {
        return Err(Error::config(
            WHAT,
            format!("{array} data are not floats: use plan_int for integer data"),
        ));
    }
    let range = check_range(range)?;
    let targets: Vec<DataType> = match options.target {
        Some(t) => vec![t],
        None if options.max_abs_error.is_some() => BY_WIDTH.to_vec(),
        None => {
            return Err(Error::config(
                WHAT,
                "give a target integer type, or max_abs_error to choose the narrowest one",
            ))
        }
    };
    let mut last = None;
    for target in targets {
        let plan = float_plan_for(array, range, target, options)?;
        match options.max_abs_error {
            Some(limit) if plan.max_abs_error > limit => last = Some(plan),
            _ => return Ok(plan),
        }
    }
    let (limit, best) = (
        options.max_abs_error.unwrap_or(0.0),
        last.map(|p| p.max_abs_error),
    );
    Err(Error::config(
        WHAT,
        match (options.target, best) {
            (Some(t), Some(e)) => format!(
                "{t} cannot keep the error within {limit}: its smallest bound is {e}; allow a \
                 wider type or a larger max_abs_error"
            ),
            _ => format!(
                "no integer type keeps the error within {limit} (the widest gives {}); allow a \
                 larger max_abs_error",
                best.unwrap_or(f64::INFINITY)
            ),
        },
    ))
}

/// Finite, ordered bounds.
fn check_range(range: Option<(f64, f64)>) -> Result<Option<(f64, f64)>> {
    match range {
        Some((lo, hi)) if !(lo.is_finite() && hi.is_finite() && lo <= hi) => Err(Error::config(
            WHAT,
            format!("the data range [{lo}, {hi}] must be finite numbers with min <= max"),
        )),
        other => Ok(other),
    }
}

/// The plan for one target type.
fn float_plan_for(
    array: DataType,
    range: Option<(f64, f64)>,
    target: DataType,
    options: &PlanOptions,
) -> Result<Plan> {
    let (sentinels, codes) = Sentinels::of(target)
        .zip(Sentinels::data_range(target))
        .ok_or_else(|| Error::config(WHAT, format!("target {target} is not an integer type")))?;
    // Given bounds are taken as values of the array's type.
    let (lo, hi) = match range {
        Some((lo, hi)) => (to_array_type(array, lo)?, to_array_type(array, hi)?),
        None => (0.0, 0.0),
    };
    let scalar_map = sentinel_map(&sentinels, target);
    let ends = [float_scalar(array, lo)?, float_scalar(array, hi)?];
    let (scale, offset, codecs) = fit_checked(
        nan_of(array),
        &ends,
        (lo, hi),
        codes,
        options.span,
        |scale, offset| {
            vec![
                scale_offset_json(float_json(array, offset), Some(float_json(array, scale))),
                cast_json(target, options.rounding, None, Some(scalar_map.clone())),
            ]
        },
    )?;
    Ok(Plan {
        data_type: array,
        target,
        fill_value: nan_of(array),
        codecs,
        scale,
        offset,
        sentinels: Some(sentinels),
        max_abs_error: float_error_bound(array, lo, hi, scale, offset, options.rounding),
        range: range.map(|_| (lo, hi)),
    })
}

/// Scale and offset, in the float type `arith`, that store [lo, hi] in the codes
/// [qlo, qhi] with the span asked for, and the codecs `codecs_for` makes of them. The chain
/// is run on `ends` (the range's ends as values of the fill value's type); each retry shrinks
/// the span, for when rounding in `arith` pushed an end past the codes.
fn fit_checked(
    fill: Scalar,
    ends: &[Scalar],
    (lo, hi): (f64, f64),
    (qlo, qhi): (i128, i128),
    span: Span,
    codecs_for: impl Fn(f64, f64) -> Vec<Value>,
) -> Result<(f64, f64, Vec<Value>)> {
    let array = fill.data_type();
    let arith = if array.is_float() {
        array
    } else {
        DataType::Float64
    };
    let mut width = match span {
        Span::Sds => 0.75 * (qhi - qlo) as f64,
        Span::Full => (qhi - qlo) as f64,
    };
    let mut shrink = (width * 2f64.powi(-20)).max(2.0);
    for _ in 0..64 {
        let (scale, offset) = fit(lo, hi, qlo, qhi, width);
        let scale = to_array_type(arith, scale)?;
        let offset = to_array_type(arith, offset)?;
        if scale == 0.0 || !scale.is_finite() || !offset.is_finite() {
            return Err(Error::config(
                WHAT,
                format!(
                    "the range [{lo}, {hi}] cannot be packed into [{qlo}, {qhi}] in {arith} \
                     arithmetic: scale {scale} and offset {offset} must be finite and non-zero"
                ),
            ));
        }
        let codecs = codecs_for(scale, offset);
        let chain = chain_for(fill, &codecs)?;
        let codes = stored_codes(&chain, ends);
        if codes
            .iter()
            .all(|q| q.is_some_and(|q| (qlo..=qhi).contains(&q)))
        {
            return Ok((scale, offset, codecs));
        }
        // Two codes first (a directed rounding past the last code), then twice as many each
        // time (an offset rounded far in a coarse float type).
        width -= shrink;
        shrink *= 2.0;
        if width <= 0.0 {
            break;
        }
    }
    Err(Error::config(
        WHAT,
        format!("could not fit [{lo}, {hi}] into [{qlo}, {qhi}] in {arith} arithmetic"),
    ))
}

/// Scale and offset that map [lo, hi] onto `width` codes centred in [qlo, qhi]; a single value
/// keeps scale 1 and goes to the middle code. (Halves keep extreme ranges finite.)
fn fit(lo: f64, hi: f64, qlo: i128, qhi: i128, width: f64) -> (f64, f64) {
    let centre = qlo as f64 / 2.0 + qhi as f64 / 2.0;
    if lo == hi {
        return (1.0, lo - centre.floor());
    }
    let scale = (width / 2.0) / (hi / 2.0 - lo / 2.0);
    let mid = lo / 2.0 + hi / 2.0;
    (scale, mid - centre / scale)
}

/// The largest absolute error of a value in [lo, hi] after encode and decode: the rounding step
/// (half a code for nearest modes, a whole code for directed ones) divided by the scale, plus
/// one rounding of each of the four float operations in the array's type.
fn float_error_bound(
    array: DataType,
    lo: f64,
    hi: f64,
    scale: f64,
    offset: f64,
    rounding: RoundingMode,
) -> f64 {
    let u = unit_roundoff(array);
    let step = match rounding {
        RoundingMode::NearestEven | RoundingMode::NearestAway => 0.5,
        _ => 1.0,
    };
    let quantum = step / scale.abs();
    // |x - offset| over the range, and once more a code's width for the rounded value.
    let shifted = (lo - offset).abs().max((hi - offset).abs()) + quantum;
    let arithmetic = u * (4.0 * shifted + offset.abs() + quantum);
    // A margin for the second-order terms, and the smallest subnormal for underflow.
    (quantum + arithmetic) * (1.0 + 8.0 * u) + 4.0 * smallest_subnormal(array)
}

fn unit_roundoff(array: DataType) -> f64 {
    match array {
        DataType::Float16 => 2f64.powi(-11),
        DataType::Float32 => 2f64.powi(-24),
        _ => 2f64.powi(-53),
    }
}

fn smallest_subnormal(array: DataType) -> f64 {
    match array {
        DataType::Float16 => 2f64.powi(-24),
        DataType::Float32 => 2f64.powi(-149),
        _ => f64::from_bits(1),
    }
}

/// Plans narrowing integer data of type `array` with values in [lo, hi] to `target`, by the
/// note's section 5: unchanged when the values are codes of the target; an offset when their
/// range fits; else scaled as reals (centred, 3/4 of the range), which is lossy.
///
/// A signed target keeps its smallest and largest values out of the data (the note's rule);
/// an unsigned target keeps its largest out only when the values must move (the note's own
/// examples: [0, 65535] goes to uint16 unchanged, [-32767, 32767] to uint16 by an offset).
pub fn plan_int(
    array: DataType,
    lo: i128,
    hi: i128,
    target: DataType,
    options: &PlanOptions,
) -> Result<Plan> {
    let (amin, amax) = array.int_range().ok_or_else(|| {
        Error::config(
            WHAT,
            format!("{array} data are not integers: use plan_float"),
        )
    })?;
    let (tmin, tmax) = target
        .int_range()
        .ok_or_else(|| Error::config(WHAT, format!("target {target} is not an integer type")))?;
    if lo > hi || lo < amin || hi > amax {
        return Err(Error::config(
            WHAT,
            format!("the data range [{lo}, {hi}] is not an ordered range of {array} values"),
        ));
    }
    let (keep_lo, keep_hi) = if target.is_signed_int() {
        (tmin + 1, tmax - 1)
    } else {
        (tmin, tmax)
    };
    let (move_lo, move_hi) = if target.is_signed_int() {
        (tmin + 1, tmax - 1)
    } else {
        (tmin, tmax - 1)
    };
    // The fill value must pass through the codecs: 0 where the range holds it, else the end of
    // the range nearest to 0.
    let fill_value = Scalar::from_i128(array, 0.clamp(lo, hi)).unwrap_or(array.default_scalar());
    let exact = |codecs: Vec<Value>, offset: i128| -> Result<Plan> {
        let plan = Plan {
            data_type: array,
            target,
            fill_value,
            codecs,
            scale: 1.0,
            offset: offset as f64,
            sentinels: None,
            max_abs_error: 0.0,
            range: Some((lo as f64, hi as f64)),
        };
        check_int_plan(&plan, lo, hi)?;
        Ok(plan)
    };
    if keep_lo <= lo && hi <= keep_hi {
        return exact(
            vec![cast_json(target, RoundingMode::NearestEven, None, None)],
            0,
        );
    }
    if hi - lo <= move_hi - move_lo {
        // Centre the values; encode is x - offset.
        let first = move_lo + (move_hi - move_lo - (hi - lo)) / 2;
        let offset = lo - first;
        let shift = scale_offset_json(int_json(offset), None);
        let cast = cast_json(target, RoundingMode::NearestEven, None, None);
        // The shift is computed in the array's own type; where the shifted values or the offset
        // do not fit it, shift in int64 first (exact for every type but the top of uint64).
        let fits = |(min, max): (i128, i128)| {
            (min..=max).contains(&offset) && min <= first && first + (hi - lo) <= max
        };
        if fits((amin, amax)) {
            return exact(vec![shift, cast], offset);
        }
        if fits((i64::MIN.into(), i64::MAX.into()))
            && lo >= i64::MIN.into()
            && hi <= i64::MAX.into()
        {
            let widen = cast_json(DataType::Int64, RoundingMode::NearestEven, None, None);
            return exact(vec![widen, shift, cast], offset);
        }
    }
    // Scaled as reals: to float64 (exact up to 2^53), scaled there, rounded to the target.
    let ends: Vec<Scalar> = [lo, hi]
        .iter()
        .filter_map(|&v| Scalar::from_i128(array, v))
        .collect();
    let range = (lo as f64, hi as f64);
    let (scale, offset, codecs) = fit_checked(
        fill_value,
        &ends,
        range,
        (move_lo, move_hi),
        options.span,
        |scale, offset| {
            vec![
                cast_json(
                    DataType::Float64,
                    RoundingMode::NearestEven,
                    Some("clamp"),
                    None,
                ),
                scale_offset_json(
                    float_json(DataType::Float64, offset),
                    Some(float_json(DataType::Float64, scale)),
                ),
                cast_json(target, options.rounding, None, None),
            ]
        },
    )?;
    let bound = float_error_bound(
        DataType::Float64,
        range.0,
        range.1,
        scale,
        offset,
        options.rounding,
    );
    Ok(Plan {
        data_type: array,
        target,
        codecs,
        scale,
        offset,
        sentinels: None,
        fill_value,
        // What is read back is rounded to the nearest integer.
        max_abs_error: (bound + 0.5).floor(),
        range: Some(range),
    })
}

/// Runs an integer plan's chain on the ends of its range: both must encode.
fn check_int_plan(plan: &Plan, lo: i128, hi: i128) -> Result<()> {
    let chain = chain_for(plan.fill_value, &plan.codecs)?;
    let ends = [lo, hi]
        .iter()
        .filter_map(|&v| Scalar::from_i128(plan.data_type, v))
        .collect::<Vec<_>>();
    for end in ends {
        chain.encode(&ArrayData::filled(end, 1)).map_err(|e| {
            Error::config(
                WHAT,
                format!("the planned codecs cannot store {}: {e}", end.to_json()),
            )
        })?;
    }
    Ok(())
}

/// A cast_value codec's metadata, omitting defaults.
fn cast_json(
    target: DataType,
    rounding: RoundingMode,
    out_of_range: Option<&str>,
    scalar_map: Option<Value>,
) -> Value {
    let mut config = Map::new();
    config.insert("data_type".into(), Value::from(target.name()));
    if rounding != RoundingMode::NearestEven {
        config.insert("rounding".into(), Value::from(rounding_name(rounding)));
    }
    if let Some(mode) = out_of_range {
        config.insert("out_of_range".into(), Value::from(mode));
    }
    if let Some(map) = scalar_map {
        config.insert("scalar_map".into(), map);
    }
    Value::object([
        ("name", Value::from("cast_value")),
        ("configuration", Value::from(config)),
    ])
}

/// The scalar_map that sends NaN and the infinities to their sentinels and back.
fn sentinel_map(s: &Sentinels, target: DataType) -> Value {
    let mut decode = vec![
        pair(int_json(s.missing), Value::from("NaN")),
        pair(int_json(s.pos_inf), Value::from("Infinity")),
    ];
    if target.is_signed_int() {
        decode.push(pair(int_json(s.neg_inf), Value::from("-Infinity")));
    }
    let encode = vec![
        pair(Value::from("NaN"), int_json(s.missing)),
        pair(Value::from("Infinity"), int_json(s.pos_inf)),
        pair(Value::from("-Infinity"), int_json(s.neg_inf)),
    ];
    Value::object([
        ("encode", Value::from(encode)),
        ("decode", Value::from(decode)),
    ])
}

/// `value` rounded to the array's float type, as f64.
fn to_array_type(array: DataType, value: f64) -> Result<f64> {
    float_scalar(array, value)
        .ok()
        .and_then(|s| s.as_f64())
        .ok_or_else(|| Error::config(WHAT, format!("{value} is not a {array} value")))
}

fn float_literal(value: f64) -> Value {
    match value {
        v if v.is_nan() => Value::from("NaN"),
        f64::INFINITY => Value::from("Infinity"),
        f64::NEG_INFINITY => Value::from("-Infinity"),
        v => Value::from(v),
    }
}

/// `[a, b]`.
fn pair(a: Value, b: Value) -> Value {
    Value::from(vec![a, b])
}

fn bytes_json() -> Value {
    Value::object([
        ("name", Value::from("bytes")),
        (
            "configuration",
            Value::object([("endian", Value::from("little"))]),
        ),
    ])
}

/// A scale_offset codec's metadata (scale omitted when it is the default).
fn scale_offset_json(offset: Value, scale: Option<Value>) -> Value {
    let mut config = Map::new();
    config.insert("offset".into(), offset);
    if let Some(scale) = scale {
        config.insert("scale".into(), scale);
    }
    Value::object([
        ("name", Value::from("scale_offset")),
        ("configuration", Value::from(config)),
    ])
}

/// A value of the array's float type as its JSON scalar.
fn float_json(array: DataType, value: f64) -> Value {
    float_scalar(array, value).map_or(Value::Null, |s| s.to_json())
}

fn nan_of(array: DataType) -> Scalar {
    Scalar::from_json(array, &Value::from("NaN")).unwrap_or(array.default_scalar())
}

/// The chain of `codecs` then little-endian bytes, for one-element chunks of the fill value's type.
fn chain_for(fill: Scalar, codecs: &[Value]) -> Result<Chain> {
    let mut list = codecs.to_vec();
    list.push(bytes_json());
    let array = fill.data_type();
    Chain::new(
        &Value::from(array.name()),
        &fill.to_json(),
        &Value::Array(list),
        &[1],
    )
}

/// The stored integer code of each value, through the chain; `None` where a value does not
/// encode (it left the target's range).
fn stored_codes(chain: &Chain, values: &[Scalar]) -> Vec<Option<i128>> {
    let stored = chain.encoded_data_type();
    values
        .iter()
        .map(|&v| {
            let bytes = chain.encode(&ArrayData::filled(v, 1)).ok()?;
            ArrayData::from_le_bytes(stored, &bytes)
                .ok()?
                .get(0)?
                .as_i128()
        })
        .collect()
}

/// `value` rounded to a scalar of the array's float type (as numpy rounds it).
fn float_scalar(array: DataType, value: f64) -> Result<Scalar> {
    Scalar::from_json(array, &float_literal(value))
}

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
    let map = crate::codec::config_object(WHAT, Some(range), &["min", "max", "data_type"])?
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

/// [`plan_int`] for the given target, or for the narrowest type within max_abs_error.
fn plan_int_choosing(array: DataType, lo: i128, hi: i128, options: &PlanOptions) -> Result<Plan> {
    if let Some(target) = options.target {
        return plan_int(array, lo, hi, target, options);
    }
    let limit = options.max_abs_error.ok_or_else(|| {
        Error::config(
            WHAT,
            "give a target integer type, or max_abs_error to choose the narrowest one",
        )
    })?;
    BY_WIDTH
        .iter()
        .filter_map(|&t| plan_int(array, lo, hi, t, options).ok())
        .find(|p| p.max_abs_error <= limit)
        .ok_or_else(|| {
            Error::config(
                WHAT,
                format!("no integer type keeps [{lo}, {hi}] within an error of {limit}"),
            )
        })
}
