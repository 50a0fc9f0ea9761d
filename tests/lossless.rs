//! Property: casts whose target holds every value of the source round-trip exactly through
//! encode and decode, whatever the rounding and out_of_range modes say (they never apply).
//! Which pairs are lossless is IEEE 754's and the integer ranges' fact, not this crate's.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::j;
use proptest::prelude::*;
use serde_json::json;
use zarr_wasm_codecs::{ArrayData, Chain, DataType};

/// (source, target) pairs where the target represents every source value exactly.
const LOSSLESS: &[(&str, &str)] = &[
    ("int8", "int16"),
    ("int8", "int32"),
    ("int8", "int64"),
    ("int8", "float16"),
    ("int8", "float32"),
    ("int8", "float64"),
    ("uint8", "int16"),
    ("uint8", "uint16"),
    ("uint8", "int32"),
    ("uint8", "uint64"),
    ("uint8", "float16"),
    ("uint8", "float32"),
    ("uint8", "float64"),
    ("int16", "int32"),
    ("int16", "int64"),
    ("int16", "float32"),
    ("int16", "float64"),
    ("uint16", "int32"),
    ("uint16", "uint32"),
    ("uint16", "int64"),
    ("uint16", "float32"),
    ("uint16", "float64"),
    ("int32", "int64"),
    ("int32", "float64"),
    ("uint32", "int64"),
    ("uint32", "uint64"),
    ("uint32", "float64"),
    ("float16", "float32"),
    ("float16", "float64"),
    ("float32", "float64"),
];

const ROUNDING: [&str; 5] = [
    "nearest-even",
    "nearest-away",
    "towards-zero",
    "towards-positive",
    "towards-negative",
];

/// Signalling NaNs are made quiet by any float conversion (as the reference's are): give the
/// float sources quiet NaNs only, so "exactly" means bit for bit.
fn quiet_nans(dtype: DataType, bytes: &mut [u8]) {
    match dtype {
        DataType::Float16 => {
            for c in bytes.chunks_exact_mut(2) {
                let b = u16::from_le_bytes([c[0], c[1]]);
                if b & 0x7c00 == 0x7c00 && b & 0x03ff != 0 {
                    c.copy_from_slice(&(b | 0x0200).to_le_bytes());
                }
            }
        }
        DataType::Float32 => {
            for c in bytes.chunks_exact_mut(4) {
                let b = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                if b & 0x7f80_0000 == 0x7f80_0000 && b & 0x007f_ffff != 0 {
                    c.copy_from_slice(&(b | 0x0040_0000).to_le_bytes());
                }
            }
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn lossless_casts_round_trip_bit_for_bit(
        pair in prop::sample::select(LOSSLESS.to_vec()),
        rounding in prop::sample::select(ROUNDING.to_vec()),
        clamp in any::<bool>(),
        raw in prop::collection::vec(any::<u8>(), 64),
    ) {
        let (source, target) = pair;
        let dtype = DataType::from_name(source).unwrap();
        let mut config = json!({"data_type": target, "rounding": rounding});
        if clamp {
            config["out_of_range"] = json!("clamp");
        }
        let codecs = json!([{"name": "cast_value", "configuration": config}, {"name": "bytes", "configuration": {"endian": "little"}}]);
        let n = 64 / dtype.size();
        let chain = Chain::new(&j(&json!(source)), &j(&json!(0)), &j(&codecs), &[n]).unwrap();
        let mut bytes = raw;
        quiet_nans(dtype, &mut bytes);
        let values = ArrayData::from_le_bytes(dtype, &bytes).unwrap();
        let stored = chain.encode(&values).unwrap();
        let back = chain.decode(&stored).unwrap();
        prop_assert_eq!(back.to_le_bytes(), bytes, "{} -> {}", source, target);
    }
}
