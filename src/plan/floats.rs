//! Packing floats into integers (the SDS note's automatic scaling, section 6): where the finite
//! data go in the target's range, the scale and offset that put them there, and the error bound.

use zarr_cast_value::RoundingMode;

use super::chain::{
    cast_json, chain_for, float_json, float_scalar, nan_of, scale_offset_json, sentinel_map,
    stored_codes,
};
use super::{Plan, PlanOptions, Sentinels, Span, BY_WIDTH, WHAT};
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};
use crate::json::Value;

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
pub(super) fn check_range(range: Option<(f64, f64)>) -> Result<Option<(f64, f64)>> {
    match range {
        Some((lo, hi)) if !(lo.is_finite() && hi.is_finite() && lo <= hi) => Err(Error::config(
            WHAT,
            format!("the data range [{lo}, {hi}] must be finite numbers with min <= max"),
        )),
        other => Ok(other),
    }
}

/// The plan for one target type.
pub(super) fn float_plan_for(
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
pub(super) fn fit_checked(
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
pub(super) fn fit(lo: f64, hi: f64, qlo: i128, qhi: i128, width: f64) -> (f64, f64) {
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
pub(super) fn float_error_bound(
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

pub(super) fn unit_roundoff(array: DataType) -> f64 {
    match array {
        DataType::Float16 => 2f64.powi(-11),
        DataType::Float32 => 2f64.powi(-24),
        _ => 2f64.powi(-53),
    }
}

pub(super) fn smallest_subnormal(array: DataType) -> f64 {
    match array {
        DataType::Float16 => 2f64.powi(-24),
        DataType::Float32 => 2f64.powi(-149),
        _ => f64::from_bits(1),
    }
}

/// `value` rounded to the array's float type, as f64.
pub(super) fn to_array_type(array: DataType, value: f64) -> Result<f64> {
    float_scalar(array, value)
        .ok()
        .and_then(|s| s.as_f64())
        .ok_or_else(|| Error::config(WHAT, format!("{value} is not a {array} value")))
}
