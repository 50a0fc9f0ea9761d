//! The zfp codec against zfpy 1.0.1 (the zfp C library): for every fixture, this package's
//! stream equals zfpy's byte for byte, and decoding zfpy's stream gives zfpy's values bit for
//! bit. Fixtures and their generator: tests/fixtures/zfp/.
#![cfg(feature = "zfp")]

mod common;

use common::{fixture, hex, j, unhex, Failures};
use serde_json::{json, Value};
use zarr_wasm_codecs::codec::parse_shape;
use zarr_wasm_codecs::codec::zfp::{zfp_dims, Zfp};
use zarr_wasm_codecs::{ArrayData, Chain, DataType};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Where zfp-rs and the C library differ by design (zfp-rs docs/differences-from-c.md, "Blocks
/// of tiny magnitude"): in the lossy modes C scales a float block by 2^(30 - emax) (f32) or
/// 2^(62 - emax) (f64), which overflows, undefined behaviour, when the block's largest
/// magnitude is below 2^-98 or 2^-962, and C then loses the values; zfp-rs scales in two exact
/// steps and keeps them. Streams for such chunks differ from C's; decoding C's streams does not.
fn tiny_lossy(case: &Value, values: &ArrayData) -> bool {
    let lossy = case["configuration"]["mode"] != "reversible";
    let max = |v: &mut dyn Iterator<Item = f64>| v.fold(0.0f64, |m, x| m.max(x.abs()));
    let (largest, threshold) = match values {
        ArrayData::Float16(v) => (max(&mut v.iter().map(|x| x.to_f64())), 2f64.powi(-98)),
        ArrayData::Float32(v) => (max(&mut v.iter().map(|&x| f64::from(x))), 2f64.powi(-98)),
        ArrayData::Float64(v) => (max(&mut v.iter().copied()), 2f64.powi(-962)),
        _ => return false,
    };
    lossy && largest > 0.0 && largest < threshold
}

fn cases() -> Vec<Value> {
    fixture("zfp/cases.json").as_array().expect("list").clone()
}

fn codec(case: &Value) -> (Zfp, DataType, Vec<usize>) {
    let dtype = DataType::from_json(&j(&case["data_type"])).expect("type");
    let shape = parse_shape(&j(&case["shape"])).expect("shape");
    let zfp = Zfp::new(Some(&j(&case["configuration"])), dtype, &shape).expect("codec");
    (zfp, dtype, shape)
}

#[test]
fn streams_and_values_match_zfpy() {
    let mut f = Failures::new();
    let mut tiny = 0;
    for case in cases() {
        let id = case["id"].as_str().expect("id");
        let (zfp, dtype, _) = codec(&case);
        let values =
            ArrayData::from_le_bytes(dtype, &unhex(case["values"].as_str().expect("values")))
                .expect("values");
        let stream = unhex(case["stream"].as_str().expect("stream"));
        match zfp.encode(&values) {
            Ok(_) if tiny_lossy(&case, &values) => {
                // The rule only ever covers the generator's tiny-magnitude data sets.
                tiny += 1;
                f.check(id.ends_with("/tiny"), || {
                    format!("{id}: exempt but not a tiny data set")
                });
            }
            Ok(ours) => f.check(ours == stream, || {
                format!(
                    "{id}: stream differs ({} bytes vs zfpy's {})",
                    ours.len(),
                    stream.len()
                )
            }),
            Err(e) => f.check(false, || format!("{id}: encode failed: {e}")),
        }
        match zfp.decode(&stream) {
            Ok(out) => {
                let got = hex(&out.to_le_bytes());
                f.check(got == case["decoded"], || {
                    format!("{id}: decoded values differ")
                });
            }
            Err(e) => f.check(false, || format!("{id}: decode failed: {e}")),
        }
    }
    f.check(tiny < 20, || {
        format!("{tiny} streams exempt as tiny blocks")
    });
    f.finish("zfp fixtures");
}

#[test]
fn the_field_shape_follows_the_spec() {
    for case in cases() {
        let shape = parse_shape(&j(&case["shape"])).expect("shape");
        let mut want = parse_shape(&j(&case["zfp_shape"])).expect("zfp shape");
        want.reverse();
        assert_eq!(zfp_dims(&shape).expect("dims"), want, "{}", case["id"]);
    }
    let err = zfp_dims(&[2, 3, 1, 4, 5, 6]).expect_err("5 long dimensions");
    assert!(err.to_string().contains("at most 4"), "{err}");
}

#[test]
fn expert_mode_reproduces_fixed_mode_streams() {
    // zfp's fixed modes are expert parameters: fixed_precision p is (minbits 1, maxbits 16658,
    // maxprec p, minexp -1074); fixed_accuracy t is (1, 16658, 64, floor(log2 t)) with t's
    // exponent as frexp gives it, minus one. Both must give zfpy's stream.
    let mut checked = 0;
    for case in cases() {
        let config = &case["configuration"];
        let expert = match config["mode"].as_str() {
            Some("fixed_precision") => json!({"mode": "expert", "minbits": 1, "maxbits": 16658,
                "maxprec": config["precision"], "minexp": -1074}),
            Some("fixed_accuracy") => {
                let t = config["tolerance"].as_f64().expect("tolerance");
                let (mut e, mut m) = (0i64, t);
                while m >= 1.0 {
                    m /= 2.0;
                    e += 1;
                }
                while m < 0.5 {
                    m *= 2.0;
                    e -= 1;
                }
                json!({"mode": "expert", "minbits": 1, "maxbits": 16658, "maxprec": 64, "minexp": e - 1})
            }
            _ => continue,
        };
        let dtype = DataType::from_json(&j(&case["data_type"])).expect("type");
        let shape = parse_shape(&j(&case["shape"])).expect("shape");
        let zfp = Zfp::new(Some(&j(&expert)), dtype, &shape).expect("expert codec");
        let values =
            ArrayData::from_le_bytes(dtype, &unhex(case["values"].as_str().expect("values")))
                .expect("values");
        if tiny_lossy(&case, &values) {
            continue;
        }
        assert_eq!(
            hex(&zfp.encode(&values).expect("encode")),
            case["stream"],
            "{}",
            case["id"]
        );
        checked += 1;
    }
    assert!(checked > 50, "only {checked} expert cases");
}

#[test]
fn promoted_types_round_trip_exactly_in_reversible_mode() {
    let config = json!({"mode": "reversible"});
    let shape = [3usize, 5, 7];
    for (dtype, values) in [
        (
            DataType::Int8,
            ArrayData::Int8((0..105).map(|i| (i * 37 % 256) as u8 as i8).collect()),
        ),
        (
            DataType::UInt8,
            ArrayData::UInt8((0..105).map(|i| (i * 53 % 256) as u8).collect()),
        ),
        (
            DataType::Int16,
            ArrayData::Int16((0..105).map(|i| (i * 9973 % 65536) as u16 as i16).collect()),
        ),
        (
            DataType::UInt16,
            ArrayData::UInt16((0..105).map(|i| (i * 7919 % 65536) as u16).collect()),
        ),
        (
            DataType::Float16,
            ArrayData::Float16(
                (0..105)
                    .map(|i| half::f16::from_bits((i * 611 % 0x7c00) as u16))
                    .collect(),
            ),
        ),
    ] {
        let zfp = Zfp::new(Some(&j(&config)), dtype, &shape).expect("codec");
        let back = zfp
            .decode(&zfp.encode(&values).expect("encode"))
            .expect("decode");
        assert_eq!(back, values, "{dtype}");
    }
}

#[test]
fn configurations_are_checked() {
    let shape = [4usize, 4];
    let bad = [
        (
            json!({"mode": "fixed_accuracy", "tolerance": 0.1}),
            DataType::Int32,
            "fixed_accuracy",
        ),
        (json!({"mode": "fixed_rate"}), DataType::Float32, "rate"),
        (
            json!({"mode": "fixed_rate", "rate": -1}),
            DataType::Float32,
            "positive",
        ),
        (json!({"mode": "lossless"}), DataType::Float32, "not one of"),
        (
            json!({"mode": "reversible", "rate": 8}),
            DataType::Float32,
            "unknown key",
        ),
        (
            json!({"mode": "expert", "minbits": 10, "maxbits": 5, "maxprec": 64, "minexp": -1074}),
            DataType::Float64,
            "expert",
        ),
        (json!({"tolerance": 0.1}), DataType::Float32, "mode"),
    ];
    for (config, dtype, words) in bad {
        let err = Zfp::new(Some(&j(&config)), dtype, &shape).expect_err(&config.to_string());
        assert!(err.to_string().contains(words), "{config}: {err}");
    }
}

#[test]
fn lossy_modes_refuse_nan_and_infinities_reversible_keeps_them() {
    let shape = [4usize, 4];
    let lossy = [
        json!({"mode": "fixed_accuracy", "tolerance": 0.001}),
        json!({"mode": "fixed_rate", "rate": 16}),
        json!({"mode": "fixed_precision", "precision": 20}),
        json!({"mode": "expert", "minbits": 1, "maxbits": 4096, "maxprec": 64, "minexp": -1074}),
    ];
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut values: Vec<f64> = (0..16).map(|i| f64::from(i) * 0.25).collect();
        values[9] = bad;
        let as32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        for config in &lossy {
            for data in [
                ArrayData::Float64(values.clone()),
                ArrayData::Float32(as32.clone()),
            ] {
                let zfp = Zfp::new(Some(&j(config)), data.data_type(), &shape).expect("codec");
                let err = zfp.encode(&data).expect_err(&format!("{config} {bad}"));
                assert_eq!(err.code(), "NON_FINITE", "{config}: {err}");
                assert!(err.to_string().contains("element 9"), "{err}");
            }
        }
        // Reversible mode is lossless: the value comes back, bit for bit.
        let zfp = Zfp::new(
            Some(&j(&json!({"mode": "reversible"}))),
            DataType::Float64,
            &shape,
        )
        .expect("codec");
        let stream = zfp
            .encode(&ArrayData::Float64(values.clone()))
            .expect("reversible");
        let ArrayData::Float64(back) = zfp.decode(&stream).expect("decode") else {
            panic!("float64");
        };
        assert_eq!(back[9].to_bits(), bad.to_bits());
    }
}

#[test]
fn corrupt_truncated_and_empty_streams_error_or_decode_but_never_panic() {
    let case = cases()
        .into_iter()
        .find(|c| c["configuration"]["mode"] == "fixed_accuracy")
        .expect("a case");
    let (zfp, _, _) = codec(&case);
    let stream = unhex(case["stream"].as_str().expect("stream"));
    assert_eq!(zfp.decode(&[]).expect_err("empty").code(), "CHUNK_LENGTH");
    assert_eq!(
        zfp.decode(&stream[..stream.len() / 2])
            .expect_err("half")
            .code(),
        "CHUNK_LENGTH"
    );
    // Flipped bits decode to some values: zfp cannot tell.
    let mut flipped = stream.clone();
    for b in flipped.iter_mut().step_by(3) {
        *b ^= 0x5a;
    }
    // ...or runs out of bits: either way a chunk of values or an error with a code.
    match zfp.decode(&flipped) {
        Ok(values) => assert_eq!(values.len(), zfp.decode(&stream).expect("whole").len()),
        Err(e) => assert_eq!(e.code(), "CHUNK_LENGTH", "{e}"),
    }
    // A huge stream for a small chunk is read only as far as the chunk needs.
    let mut long = stream.clone();
    long.extend(std::iter::repeat_n(0xffu8, 1 << 20));
    assert!(zfp.decode(&long).is_ok());
}

#[test]
fn zfp_runs_in_a_chain_after_array_to_array_codecs() {
    let chain = Chain::new(
        &j(&json!("float64")),
        &j(&json!(0)),
        &j(&json!([
            {"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}},
            {"name": "zfp", "configuration": {"mode": "reversible"}}
        ])),
        &[4, 4],
    )
    .expect("chain");
    let values = ArrayData::Float64((0..16).map(f64::from).collect());
    let stored = chain.encode(&values).expect("encode");
    assert_eq!(chain.decode(&stored).expect("decode"), values);
}
