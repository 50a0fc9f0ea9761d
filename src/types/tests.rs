use super::narrow::NARROW;
use super::ArrayType;
use super::Family;
use super::CONFIGURED;
use super::FIXED;
use crate::dtype::DataType;
use crate::json::Value;

fn j(text: &str) -> Value {
    text.parse().unwrap()
}

/// Every name of the registry's tables is a data type the numeric codecs know and refuse
/// (UNSUPPORTED_DATA_TYPE) unless it is one of theirs; a name outside them is unknown. (The
/// contributor guide's "Adding a data type" says so: a new row needs nothing more.)
#[test]
fn the_numeric_codecs_refuse_every_registry_name_they_do_not_take() {
    let (fixed, configured, narrow) = (FIXED, CONFIGURED, NARROW);
    let names = fixed
        .iter()
        .map(|f| f.v3)
        .chain(configured.iter().map(|(n, _, _)| *n))
        .chain(narrow.iter().map(|r| r.name));
    let mut refused = 0;
    for name in names {
        match DataType::from_name(name) {
            Ok(dt) => assert_eq!(dt.name(), name),
            Err(e) => {
                assert_eq!(e.code(), "UNSUPPORTED_DATA_TYPE", "{name}");
                refused += 1;
            }
        }
    }
    assert_eq!(refused, FIXED.len() - 11 + CONFIGURED.len() + NARROW.len());
    // ... and the list of those names in src/dtype.rs names nothing else.
    for name in crate::dtype::KNOWN_UNSUPPORTED {
        assert!(
            fixed.iter().any(|f| f.v3 == name)
                || configured.iter().any(|(n, _, _)| *n == name)
                || narrow.iter().any(|r| r.name == name),
            "{name} is not a data type of the registry"
        );
    }
    assert_eq!(refused, crate::dtype::KNOWN_UNSUPPORTED.len());
    for name in ["float128", "int3", "complex32", "fixed_length_utf8"] {
        assert_eq!(
            DataType::from_name(name).unwrap_err().code(),
            "UNKNOWN_DATA_TYPE",
            "{name}"
        );
    }
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
    let ok =
        crate::json::parse(r#"{"name": "raw_bytes", "configuration": {"length_bytes": 1048576}}"#)
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
