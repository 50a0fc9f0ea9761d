//! The packing planner against the SDS note's own worked examples (shared spec:
//! sds-numeric-types-scaling-missing.txt, sections 5 to 7) and its stated error bound, checked
//! by running the planned codecs (which the reference fixtures check) on random data.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{j as crate_json, sj};
use proptest::prelude::*;
use serde_json::{json, Value};
use zarr_cast_value::RoundingMode;
use zarr_wasm_codecs::plan::{
    data_range, plan_float, plan_int, PlanOptions, Sentinels, Span, BY_WIDTH,
};
use zarr_wasm_codecs::{ArrayData, Chain, DataType};

fn options(target: Option<DataType>) -> PlanOptions {
    PlanOptions {
        target,
        ..PlanOptions::default()
    }
}

fn chain(plan_json: &Value, len: usize) -> Chain {
    Chain::new(
        &crate_json(&plan_json["data_type"]),
        &crate_json(&plan_json["fill_value"]),
        &crate_json(&plan_json["codecs"]),
        &[len],
    )
    .expect("the planned metadata builds a chain")
}

fn names(plan_json: &Value) -> Vec<&str> {
    plan_json["codecs"]
        .as_array()
        .expect("codecs")
        .iter()
        .map(|c| c["name"].as_str().expect("name"))
        .collect()
}

// Section 5: "a set of i4 data values in the range [-32767,32766] could be converted to type i2
// without setting or modifying the scaling attributes".
#[test]
fn int32_within_int16_less_its_ends_narrows_unchanged() {
    let plan = plan_int(
        DataType::Int32,
        -32767,
        32766,
        DataType::Int16,
        &options(None),
    )
    .unwrap();
    let j = sj(&plan.to_json());
    assert_eq!(names(&j), ["cast_value", "bytes"]);
    assert_eq!(
        j["codecs"][0]["configuration"],
        json!({"data_type": "int16"})
    );
    assert_eq!(plan.max_abs_error, 0.0);
}

// "A set of i4 data values in the range [-32767,32767] would require the SCALE attribute to be
// set (to about 0.75) for conversion to type i2."
#[test]
fn int32_reaching_int16_max_needs_a_scale_of_about_three_quarters() {
    let plan = plan_int(
        DataType::Int32,
        -32767,
        32767,
        DataType::Int16,
        &options(None),
    )
    .unwrap();
    assert_eq!(
        names(&sj(&plan.to_json())),
        ["cast_value", "scale_offset", "cast_value", "bytes"]
    );
    assert!((plan.scale - 0.75).abs() < 0.001, "scale {}", plan.scale);
    assert!(plan.max_abs_error >= 1.0);
}

// "a set of i4 data values in the range [0,65535] would be converted to type u2 without
// affecting the scaling attributes".
#[test]
fn int32_in_uint16_range_narrows_unchanged() {
    let plan = plan_int(DataType::Int32, 0, 65535, DataType::UInt16, &options(None)).unwrap();
    assert_eq!(names(&sj(&plan.to_json())), ["cast_value", "bytes"]);
    assert_eq!(plan.max_abs_error, 0.0);
}

// "A set of i4 data values in the range [-32767,32767] could be converted to type u2 by setting
// the OFFSET attribute to 32767.0": the note adds its OFFSET when storing; scale_offset
// subtracts its offset (encode is x - offset), so the same shift is offset -32767 here.
#[test]
fn int32_symmetric_range_goes_to_uint16_by_an_offset_of_32767() {
    let plan = plan_int(
        DataType::Int32,
        -32767,
        32767,
        DataType::UInt16,
        &options(None),
    )
    .unwrap();
    let j = sj(&plan.to_json());
    assert_eq!(names(&j), ["scale_offset", "cast_value", "bytes"]);
    assert_eq!(j["codecs"][0]["configuration"], json!({"offset": -32767}));
    let c = chain(&j, 1);
    let bytes = c.encode(&ArrayData::Int32(vec![-32767])).unwrap();
    assert_eq!(bytes, 0u16.to_le_bytes());
    let bytes = c.encode(&ArrayData::Int32(vec![32767])).unwrap();
    assert_eq!(bytes, 65534u16.to_le_bytes());
    assert_eq!(plan.max_abs_error, 0.0);
}

// "... but would force the SCALE attribute to be set to about 3/1024 on conversion to u1."
#[test]
fn uint16_full_range_to_uint8_scales_by_about_3_over_1024() {
    let plan = plan_int(DataType::UInt16, 0, 65535, DataType::UInt8, &options(None)).unwrap();
    assert!(
        (plan.scale - 3.0 / 1024.0).abs() < 0.0002,
        "scale {}",
        plan.scale
    );
}

// Section 7 and the table: the sentinels of each integer type.
#[test]
fn sentinels_follow_the_note_extended_to_every_width() {
    let s = |t| Sentinels::of(t).unwrap();
    assert_eq!(
        s(DataType::Int8),
        Sentinels {
            missing: -128,
            pos_inf: 127,
            neg_inf: -127
        }
    );
    assert_eq!(
        s(DataType::Int16),
        Sentinels {
            missing: -32768,
            pos_inf: 32767,
            neg_inf: -32767
        }
    );
    assert_eq!(
        s(DataType::UInt8),
        Sentinels {
            missing: 255,
            pos_inf: 254,
            neg_inf: 255
        }
    );
    assert_eq!(
        s(DataType::UInt16),
        Sentinels {
            missing: 65535,
            pos_inf: 65534,
            neg_inf: 65535
        }
    );
    assert_eq!(s(DataType::Int32).missing, i32::MIN.into());
    assert_eq!(s(DataType::Int64).pos_inf, i64::MAX.into());
    assert_eq!(s(DataType::UInt64).missing, u64::MAX.into());
}

// Section 5: "the data values should be centred in the representable range and occupy 3/4 of
// it. (If there is only a single data value, the SCALE attribute ... 1.0.)"
#[test]
fn float_data_are_centred_on_three_quarters_of_the_codes() {
    let data = ArrayData::Float64(vec![-10.0, 0.0, 15.4, f64::NAN]);
    let plan = plan_float(
        DataType::Float64,
        data_range(&data),
        &options(Some(DataType::UInt8)),
    )
    .unwrap();
    // uint8 keeps 254 and 255 for +Infinity and missing: data codes 0..=253.
    let c = chain(&sj(&plan.to_json()), 4);
    let stored = c.encode(&data).unwrap();
    let (lo, hi) = (stored[0] as f64, stored[2] as f64);
    assert!(((hi - lo) - 0.75 * 253.0).abs() <= 1.0, "{lo}..{hi}");
    assert!(((lo + hi) / 2.0 - 126.5).abs() <= 1.0, "{lo}..{hi}");
    assert_eq!(stored[3], 255, "NaN is the missing sentinel");

    let single = plan_float(
        DataType::Float64,
        Some((3.25, 3.25)),
        &options(Some(DataType::Int16)),
    )
    .unwrap();
    assert_eq!(single.scale, 1.0);
}

#[test]
fn infinities_and_nan_pass_through_their_sentinels() {
    for target in [
        DataType::Int8,
        DataType::UInt8,
        DataType::Int32,
        DataType::UInt16,
    ] {
        let plan =
            plan_float(DataType::Float32, Some((-1.0, 1.0)), &options(Some(target))).unwrap();
        let c = chain(&sj(&plan.to_json()), 4);
        let data = ArrayData::Float32(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.5]);
        let back = c.decode(&c.encode(&data).unwrap()).unwrap();
        let ArrayData::Float32(v) = back else {
            panic!("float32")
        };
        assert!(v[0].is_nan());
        assert_eq!(v[1], f32::INFINITY);
        if target.is_signed_int() {
            assert_eq!(v[2], f32::NEG_INFINITY, "{target}");
        } else {
            assert!(
                v[2].is_nan(),
                "{target}: -Infinity has no unsigned code but missing"
            );
        }
    }
}

#[test]
fn max_abs_error_chooses_the_narrowest_type_that_meets_it() {
    let range = Some((0.0, 100.0));
    let by = |e: f64| {
        let o = PlanOptions {
            max_abs_error: Some(e),
            ..PlanOptions::default()
        };
        plan_float(DataType::Float64, range, &o).unwrap()
    };
    assert_eq!(by(0.5).target, DataType::UInt8);
    assert_eq!(by(0.01).target, DataType::UInt16);
    assert_eq!(by(1e-5).target, DataType::UInt32);
    for e in [0.5, 0.01, 1e-5, 1e-9] {
        let plan = by(e);
        assert!(plan.max_abs_error <= e);
        // Narrowest first, unsigned before signed at each width.
        let narrower = BY_WIDTH.into_iter().take_while(|&t| t != plan.target);
        for t in narrower {
            let p = plan_float(DataType::Float64, range, &options(Some(t))).unwrap();
            assert!(p.max_abs_error > e, "{t} would have met {e}");
        }
    }
    let impossible = PlanOptions {
        max_abs_error: Some(1e-30),
        ..PlanOptions::default()
    };
    assert!(plan_float(DataType::Float64, range, &impossible).is_err());
}

#[test]
fn bad_requests_are_errors() {
    let o = options(Some(DataType::UInt8));
    assert!(plan_float(DataType::Float64, Some((f64::NAN, 1.0)), &o).is_err());
    assert!(plan_float(DataType::Float64, Some((2.0, 1.0)), &o).is_err());
    assert!(plan_float(DataType::Int32, Some((0.0, 1.0)), &o).is_err());
    assert!(plan_float(DataType::Float64, Some((0.0, 1.0)), &PlanOptions::default()).is_err());
    assert!(plan_int(DataType::Int8, 0, 300, DataType::UInt8, &o).is_err());
    for bad in [
        json!({"target": "float32"}),
        json!({"target": "int7"}),
        json!({"span": "half"}),
        json!({"rounding": "up"}),
        json!({"max_abs_error": -1}),
        json!({"colour": "red"}),
    ] {
        assert!(PlanOptions::from_json(&crate_json(&bad)).is_err(), "{bad}");
    }
    let ok = PlanOptions::from_json(&crate_json(&json!({"target": "int16", "span": "full", "rounding": "towards-zero", "max_abs_error": 0.1}))).unwrap();
    assert_eq!(ok.span, Span::Full);
    assert_eq!(ok.rounding, RoundingMode::TowardsZero);
}

const TARGETS: [DataType; 8] = [
    DataType::Int8,
    DataType::UInt8,
    DataType::Int16,
    DataType::UInt16,
    DataType::Int32,
    DataType::UInt32,
    DataType::Int64,
    DataType::UInt64,
];
const ROUNDINGS: [RoundingMode; 5] = [
    RoundingMode::NearestEven,
    RoundingMode::NearestAway,
    RoundingMode::TowardsZero,
    RoundingMode::TowardsPositive,
    RoundingMode::TowardsNegative,
];

fn finite(v: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Every value in the data range reads back within the stated bound, through the planned
    /// codecs, for every array float type, target, span and rounding mode.
    #[test]
    fn round_trips_meet_the_stated_bound(
        array in prop::sample::select(vec![DataType::Float32, DataType::Float64]),
        target in prop::sample::select(TARGETS.to_vec()),
        rounding in prop::sample::select(ROUNDINGS.to_vec()),
        full in any::<bool>(),
        centre in -1e6f64..1e6,
        magnitude in -12i32..12,
        unit in prop::collection::vec(0.0f64..=1.0, 1..64),
    ) {
        let width = 10f64.powi(magnitude);
        let raw: Vec<f64> = unit.iter().map(|u| finite(centre + width * (u - 0.5))).collect();
        let data = match array {
            DataType::Float32 => ArrayData::Float32(raw.iter().map(|&v| v as f32).collect()),
            _ => ArrayData::Float64(raw.clone()),
        };
        let o = PlanOptions {
            target: Some(target),
            span: if full { Span::Full } else { Span::Sds },
            rounding,
            max_abs_error: None,
        };
        let plan = plan_float(array, data_range(&data), &o).unwrap();
        let j = sj(&plan.to_json());
        let c = chain(&j, data.len());
        let back = c.decode(&c.encode(&data).unwrap()).unwrap();
        for i in 0..data.len() {
            let x = data.get(i).and_then(|s| s.as_f64()).unwrap();
            let y = back.get(i).and_then(|s| s.as_f64()).unwrap();
            prop_assert!((x - y).abs() <= plan.max_abs_error,
                "{x} -> {y}: error {} > bound {} ({j})", (x - y).abs(), plan.max_abs_error);
        }
    }

    /// Integer narrowing stores every value of the range and reads it back within the bound.
    #[test]
    fn integer_narrowing_meets_the_stated_bound(
        target in prop::sample::select(vec![DataType::Int8, DataType::UInt8, DataType::Int16, DataType::UInt16]),
        a in -100_000i64..100_000,
        b in -100_000i64..100_000,
    ) {
        let (lo, hi) = (a.min(b), a.max(b));
        let plan = plan_int(DataType::Int32, lo.into(), hi.into(), target, &PlanOptions::default()).unwrap();
        let j = sj(&plan.to_json());
        let values: Vec<i32> = [lo, hi, lo / 2 + hi / 2].iter().map(|&v| v as i32).collect();
        let c = chain(&j, 3);
        let back = c.decode(&c.encode(&ArrayData::Int32(values.clone())).unwrap()).unwrap();
        let ArrayData::Int32(back) = back else { panic!("int32") };
        for (x, y) in values.iter().zip(&back) {
            prop_assert!(f64::from((x - y).abs()) <= plan.max_abs_error, "{x} -> {y} ({j})");
        }
    }
}
