//! The one-pass read path must give the same bits (or the same failure) as running the codecs
//! one by one, for every stored type, mode, scalar_map and scale/offset.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::j;
use proptest::prelude::*;
use serde_json::{json, Value};
use zarr_wasm_codecs::Chain;

const INT_TYPES: [&str; 8] = [
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
];
const ROUNDING: [&str; 5] = [
    "nearest-even",
    "towards-zero",
    "towards-positive",
    "towards-negative",
    "nearest-away",
];

fn special_float() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-1e6f64..1e6).prop_map(Value::from),
        (-1e300f64..1e300).prop_map(Value::from),
        (1u32..1000).prop_map(|v| Value::from(1.0 / f64::from(v))),
        Just(json!("NaN")),
        Just(json!("Infinity")),
        Just(json!("0x7ff8000000000123")),
        Just(json!("0x7fc00123")),
        Just(json!(-0.0)),
    ]
}

prop_compose! {
    fn chain_metadata()(
        float in prop_oneof![Just("float32"), Just("float64")],
        target in proptest::sample::select(INT_TYPES.to_vec()),
        rounding in proptest::sample::select(ROUNDING.to_vec()),
        oor in prop_oneof![Just(None), Just(Some("clamp")), Just(Some("wrap"))],
        with_scale in any::<bool>(),
        offset in special_float(),
        scale in special_float().prop_filter("scale 0 is invalid", |v| v.as_f64() != Some(0.0)),
        map in proptest::collection::vec((0i64..100, special_float()), 0..3),
        big in any::<bool>(),
    ) -> Value {
        let mut cast = json!({"data_type": target, "rounding": rounding});
        if let Some(mode) = oor {
            cast["out_of_range"] = json!(mode);
        }
        // A NaN fill value encodes through any scale/offset to the sentinel 0, so every
        // generated configuration builds.
        let decode: Vec<Value> = map.into_iter().map(|(k, v)| json!([k, v])).collect();
        cast["scalar_map"] = json!({"encode": [["NaN", 0]], "decode": decode});
        let mut codecs = Vec::new();
        if with_scale {
            codecs.push(json!({"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}}));
        }
        codecs.push(json!({"name": "cast_value", "configuration": cast}));
        codecs.push(json!({"name": "bytes", "configuration": {"endian": if big { "big" } else { "little" }}}));
        json!({"data_type": float, "fill_value": "NaN", "codecs": codecs, "chunk_shape": [16]})
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]
    #[test]
    fn fused_decode_equals_codec_by_codec(
        mut meta in chain_metadata(),
        len in 1usize..=16,
        seed in proptest::collection::vec(any::<u8>(), 128),
    ) {
        // Lengths that are not a whole number of 8-byte words too (the 8-bit table lookup reads
        // eight stored bytes at a time, then the rest one by one).
        meta["chunk_shape"] = json!([len]);
        let chain = Chain::from_metadata(&j(&meta));
        prop_assert!(chain.is_ok(), "{:?} for {}", chain.err(), meta);
        let Ok(chain) = chain else { return Ok(()) };
        prop_assert!(chain.is_fused(), "expected a fused chain for {meta}");
        let size = chain.encoded_data_type().size();
        let stored = &seed[..len * size];
        let fused = chain.decode(stored);
        let unfused = chain.decode_unfused(stored);
        match (fused, unfused) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a.to_le_bytes(), b.to_le_bytes(), "{}", meta),
            (Err(a), Err(b)) => prop_assert_eq!(a.code(), b.code()),
            (a, b) => prop_assert!(false, "fused {:?} but unfused {:?} for {}", a.err(), b.err(), meta),
        }
    }
}
