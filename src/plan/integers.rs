//! Packing integers into a narrower integer type (the SDS note, section 5): unchanged when the
//! values fit, shifted by an offset when their range fits, otherwise scaled as reals.

use zarr_cast_value::RoundingMode;

use super::chain::{cast_json, chain_for, float_json, scale_offset_json};
use super::floats::{fit_checked, float_error_bound};
use super::{int_json, Plan, PlanOptions, BY_WIDTH, WHAT};
use crate::array::ArrayData;
use crate::dtype::{DataType, Scalar};
use crate::error::{Error, Result};
use crate::json::Value;

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
pub(super) fn check_int_plan(plan: &Plan, lo: i128, hi: i128) -> Result<()> {
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

/// [`plan_int`] for the given target, or for the narrowest type within max_abs_error.
pub(super) fn plan_int_choosing(
    array: DataType,
    lo: i128,
    hi: i128,
    options: &PlanOptions,
) -> Result<Plan> {
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
