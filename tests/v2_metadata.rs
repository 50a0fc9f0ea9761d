//! zarr v2 metadata (`.zarray`, `.zattrs`) translated to zarr v3 ([`layout::v2::to_v3`]) and
//! read by [`layout::open`], on metadata written by zarr-python 3.4.2, xarray and in
//! zarr-python 2's form (tests/fixtures/v2meta/make.py). The filters the crate decodes are
//! checked against numcodecs' decoding bit for bit.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use zarr_wasm_codecs::codec::bytes_to_bytes::BytesChain;
use zarr_wasm_codecs::json::{parse, Value};
use zarr_wasm_codecs::layout::{self, v2::to_v3, ArrayLayout, KeyEncoding, Opened};
use zarr_wasm_codecs::{ArrayData, Chain, DataType, Error};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2meta")
}

fn j(text: &str) -> Value {
    parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// A case's `.zarray` and `.zattrs` (if written).
fn load(name: &str) -> (Value, Option<Value>) {
    let read = |file: &str| std::fs::read_to_string(dir().join(name).join(file)).ok();
    let zarray = read(".zarray").unwrap_or_else(|| panic!("{name} has no .zarray"));
    (j(&zarray), read(".zattrs").map(|t| j(&t)))
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

enum Outcome {
    /// `open` gives a layout (with a transpose's order, for order "F").
    Layout,
    Transposed(&'static [usize]),
    /// `open` reports it unsupported, with this in the reason.
    Unsupported(&'static str),
    /// The translation refuses it, with this error code.
    Refused(&'static str),
    /// The translation gives zarr.json, which `open` refuses with this error code.
    OpenRefused(&'static str),
}
use Outcome::{Layout, OpenRefused, Refused, Transposed, Unsupported};

/// What a case translates to: the v3 `data_type`, `fill_value` and `codecs` (JSON texts); the
/// shape, chunk shape and attributes are the `.zarray`'s and `.zattrs`'s, the separator ".".
struct Case {
    name: &'static str,
    data_type: &'static str,
    fill: &'static str,
    codecs: &'static str,
    outcome: Outcome,
}

const fn case(
    name: &'static str,
    data_type: &'static str,
    fill: &'static str,
    codecs: &'static str,
    outcome: Outcome,
) -> Case {
    Case {
        name,
        data_type,
        fill,
        codecs,
        outcome,
    }
}

const ZSTD: &str = r#"{"name": "zstd", "configuration": {"level": 0}}"#;

const CASES: &[Case] = &[
    case(
        "f8_zstd",
        r#""float64""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"level": 0}}]"#,
        Layout,
    ),
    case(
        "f4_blosc_lz4",
        r#""float32""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"blocksize": 0, "clevel": 5, "cname": "lz4", "shuffle": 1}}]"#,
        Layout,
    ),
    case(
        "i2_big",
        r#""int16""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "big"}}]"#,
        Layout,
    ),
    case(
        "f8_big",
        r#""float64""#,
        "-1.5",
        r#"[{"name": "bytes", "configuration": {"endian": "big"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "u1",
        r#""uint8""#,
        "0",
        r#"[{"name": "bytes"}, ZSTD]"#,
        Layout,
    ),
    case(
        "i1",
        r#""int8""#,
        "-128",
        r#"[{"name": "bytes"}, ZSTD]"#,
        Layout,
    ),
    case(
        "f2",
        r#""float16""#,
        "0.5",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "zlib",
        r#""int32""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "numcodecs.zlib", "configuration": {"level": 1}}]"#,
        Layout,
    ),
    case(
        "gzip",
        r#""uint16""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "gzip", "configuration": {"level": 1}}]"#,
        Layout,
    ),
    case(
        "lz4",
        r#""uint32""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}]"#,
        Layout,
    ),
    case(
        "crc32c",
        r#""int64""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c", "configuration": {}}]"#,
        Layout,
    ),
    // numcodecs' bz2 (outside the table until it became a row; now read in wasm).
    case(
        "bz2",
        r#""int32""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "numcodecs.bz2", "configuration": {"level": 1}}]"#,
        Layout,
    ),
    case(
        "order_f",
        r#""float32""#,
        "0.0",
        r#"[{"name": "transpose", "configuration": {"order": [2, 1, 0]}}, {"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Transposed(&[2, 1, 0]),
    ),
    case(
        "order_f_1d",
        r#""float32""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "order_f_0d",
        r#""float32""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "slash",
        r#""float32""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    // zarr-python 3.4.2 reads a missing chunk of a fill_value null array as zeros.
    case(
        "fill_null",
        r#""float32""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "fill_null_i2",
        r#""int16""#,
        "0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "fill_nan",
        r#""float64""#,
        r#""NaN""#,
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "fill_neg_inf",
        r#""float32""#,
        r#""-Infinity""#,
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "i8_fill_big",
        r#""int64""#,
        "4611686018427387905",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "u8_fill_max",
        r#""uint64""#,
        "18446744073709551615",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "fso_f8_u1",
        r#""float64""#,
        "0.0",
        r#"[
        {"name": "scale_offset", "configuration": {"offset": 1000, "scale": 10}},
        {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap"}},
        {"name": "bytes"}]"#,
        Layout,
    ),
    case(
        "fso_f8_u2_nan",
        r#""float64""#,
        r#""NaN""#,
        r#"[
        {"name": "scale_offset", "configuration": {"offset": -273.15, "scale": 14.285714285714285}},
        {"name": "cast_value", "configuration": {"data_type": "uint16", "rounding": "nearest-even", "out_of_range": "wrap",
            "scalar_map": {"encode": [["NaN", 0]]}}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        Layout,
    ),
    case(
        "fso_f4_i2",
        r#""float32""#,
        "0.0",
        r#"[
        {"name": "numcodecs.fixedscaleoffset", "configuration": {"offset": 273.15, "scale": 100, "dtype": "<f4", "astype": "<i2"}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        Layout,
    ),
    case(
        "fso_f4_i2_overflow",
        r#""float32""#,
        "0.0",
        r#"[
        {"name": "numcodecs.fixedscaleoffset", "configuration": {"offset": 0, "scale": 1e-35, "dtype": "<f4", "astype": "<i2"}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        Layout,
    ),
    case(
        "fso_f2_u1",
        r#""float16""#,
        "0.0",
        r#"[
        {"name": "numcodecs.fixedscaleoffset", "configuration": {"offset": 65400, "scale": 1, "dtype": "<f2", "astype": "|u1"}},
        {"name": "bytes"}]"#,
        Layout,
    ),
    case(
        "fso_i4",
        r#""int32""#,
        "0",
        r#"[
        {"name": "numcodecs.fixedscaleoffset", "configuration": {"astype": "<i2", "dtype": "<i4", "offset": 5, "scale": 2}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        // (zarrita would read it in float64, rounding: numcodecs truncates integers and
        // decodes float32 in float32.)
        OpenRefused("UNSUPPORTED"),
    ),
    case(
        "fso_f8_f4",
        r#""float64""#,
        "0.0",
        r#"[
        {"name": "numcodecs.fixedscaleoffset", "configuration": {"astype": "<f4", "dtype": "<f8", "offset": 5, "scale": 2}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        // (zarrita would read it in float64, rounding: numcodecs truncates integers and
        // decodes float32 in float32.)
        OpenRefused("UNSUPPORTED"),
    ),
    case(
        "astype_f8_f4",
        r#""float64""#,
        "0.0",
        r#"[
        {"name": "cast_value", "configuration": {"data_type": "float32", "out_of_range": "clamp"}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        Layout,
    ),
    case(
        "astype_i4_u1",
        r#""int32""#,
        "7",
        r#"[
        {"name": "cast_value", "configuration": {"data_type": "uint8", "out_of_range": "wrap"}},
        {"name": "bytes"}]"#,
        Layout,
    ),
    case(
        "astype_f8_i2_nan",
        r#""float64""#,
        r#""NaN""#,
        r#"[
        {"name": "cast_value", "configuration": {"data_type": "int16", "rounding": "towards-zero", "out_of_range": "wrap",
            "scalar_map": {"encode": [["NaN", 0]]}}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        Layout,
    ),
    case(
        "astype_f4_f8",
        r#""float32""#,
        "0.0",
        r#"[
        {"name": "numcodecs.astype", "configuration": {"decode_dtype": "<f4", "encode_dtype": "<f8"}},
        {"name": "bytes", "configuration": {"endian": "little"}}]"#,
        Unsupported("numcodecs.astype"),
    ),
    case(
        "delta",
        r#""int32""#,
        "0",
        r#"[
        {"name": "numcodecs.delta", "configuration": {"astype": "<i4", "dtype": "<i4"}},
        {"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "quantize",
        r#""float64""#,
        "0.0",
        r#"[
        {"name": "numcodecs.quantize", "configuration": {"astype": "<f8", "digits": 3, "dtype": "<f8"}},
        {"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "b1",
        r#""bool""#,
        "false",
        r#"[{"name": "bytes"}, ZSTD]"#,
        Layout,
    ),
    case(
        "M8",
        r#"{"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}}"#,
        "-9223372036854775808",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "c16",
        r#""complex128""#,
        "[0.0, 0.0]",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "S5",
        r#"{"name": "null_terminated_bytes", "configuration": {"length_bytes": 5}}"#,
        r#""""#,
        r#"[{"name": "bytes"}, ZSTD]"#,
        Layout,
    ),
    case(
        "U3",
        r#"{"name": "fixed_length_utf32", "configuration": {"length_bytes": 12}}"#,
        r#""""#,
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, ZSTD]"#,
        Layout,
    ),
    case(
        "structured",
        r#"null"#,
        r#"null"#,
        r#"[]"#,
        Refused("UNSUPPORTED_DATA_TYPE"),
    ),
    case(
        "object_str",
        r#""string""#,
        r#""""#,
        r#"[{"name": "numcodecs.vlen-utf8", "configuration": {}}, {"name": "bytes"}, ZSTD]"#,
        Unsupported("no fixed size"),
    ),
    case(
        "xarray_packed",
        r#""int16""#,
        "-32768",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"blocksize": 0, "clevel": 5, "cname": "lz4", "shuffle": 1}}]"#,
        Layout,
    ),
    case(
        "zp2_default",
        r#""float64""#,
        "0.0",
        r#"[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"blocksize": 0, "clevel": 5, "cname": "lz4", "shuffle": 1}}]"#,
        Layout,
    ),
    case(
        "zp2_fso",
        r#""float64""#,
        r#""NaN""#,
        r#"[
        {"name": "scale_offset", "configuration": {"offset": 1000, "scale": 10}},
        {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "wrap",
            "scalar_map": {"encode": [["NaN", 0]]}}},
        {"name": "bytes"},
        {"name": "blosc", "configuration": {"blocksize": 0, "clevel": 5, "cname": "lz4", "shuffle": 1}}]"#,
        Layout,
    ),
];

/// The codecs of a case, with `ZSTD` standing for zarr-python 3's default compressor.
fn codecs_of(c: &Case) -> Vec<Value> {
    match j(&c.codecs.replace("ZSTD", ZSTD)) {
        Value::Array(list) => list,
        other => panic!("{}: codecs {other}", c.name),
    }
}

fn separator(name: &str) -> &'static str {
    if name == "slash" {
        "/"
    } else {
        "."
    }
}

/// The v3 document a case should translate to.
fn expected(c: &Case, zarray: &Value, zattrs: Option<&Value>) -> Value {
    Value::object([
        ("zarr_format", j("3")),
        ("node_type", j(r#""array""#)),
        ("data_type", j(c.data_type)),
        ("shape", zarray.get("shape").expect("shape").clone()),
        (
            "chunk_grid",
            Value::object([
                ("name", j(r#""regular""#)),
                (
                    "configuration",
                    Value::object([("chunk_shape", zarray.get("chunks").expect("chunks").clone())]),
                ),
            ]),
        ),
        (
            "chunk_key_encoding",
            j(&format!(
                r#"{{"name": "v2", "configuration": {{"separator": "{}"}}}}"#,
                separator(c.name)
            )),
        ),
        ("fill_value", j(c.fill)),
        ("codecs", Value::Array(codecs_of(c))),
        ("attributes", zattrs.cloned().unwrap_or_else(|| j("{}"))),
    ])
}

fn listed_cases() -> Vec<String> {
    let list = j(&std::fs::read_to_string(dir().join("cases.json")).expect("cases.json"));
    list.as_array()
        .expect("a list")
        .iter()
        .map(|c| {
            c.get("name")
                .and_then(Value::as_str)
                .expect("name")
                .to_string()
        })
        .collect()
}

#[test]
fn every_fixture_has_a_case() {
    let names: Vec<&str> = CASES.iter().map(|c| c.name).collect();
    let listed = listed_cases();
    assert_eq!(listed, names, "cases.json and CASES list the same cases");
}

fn opened(name: &str, v3: &Value) -> Opened {
    layout::open(v3).unwrap_or_else(|e| panic!("{name}: open: {e}\n{v3}"))
}

fn check_layout(c: &Case, layout: &ArrayLayout, zarray: &Value, order: Option<&[usize]>) {
    let name = c.name;
    assert_eq!(layout.order.as_deref(), order, "{name}");
    let dims = |key: &str| -> Vec<u64> {
        zarray
            .get(key)
            .and_then(Value::as_array)
            .expect("dims")
            .iter()
            .map(|d| d.as_u64().expect("dim"))
            .collect()
    };
    let data_type = j(c.data_type);
    assert_eq!(layout.array_type.to_v3(), data_type, "{name}");
    // Items of several lanes (complex, strings) are read with a last dimension of lanes.
    let lanes = layout.lanes;
    let with_lanes = |mut d: Vec<u64>| {
        if lanes > 1 {
            d.push(lanes as u64);
        }
        d
    };
    assert_eq!(layout.shape, with_lanes(dims("shape")), "{name}");
    let chunks: Vec<usize> = with_lanes(dims("chunks"))
        .into_iter()
        .map(|d| d as usize)
        .collect();
    assert_eq!(layout.grid_chunk_shape, chunks, "{name}");
    assert_eq!(
        layout.key,
        KeyEncoding {
            v2: true,
            separator: separator(name).into()
        },
        "{name}"
    );
    assert!(layout.shard.is_none(), "{name}");
    let fill = j(c.fill);
    assert_eq!(
        layout.fill_bytes,
        layout.array_type.fill_bytes(&fill, 2).expect("fill"),
        "{name}"
    );
    // The chain is the one of the codecs up to bytes (over the lanes' type); the compressor
    // is left after it.
    let codecs = codecs_of(c);
    let at = codecs
        .iter()
        .position(|c| c.get("name").and_then(Value::as_str) == Some("bytes"))
        .expect("bytes");
    // (numcodecs' delta runs after `bytes`, the first of the compressors.)
    let is_delta = |c: &Value| c.get("name").and_then(Value::as_str) == Some("numcodecs.delta");
    let element_wise: Vec<Value> = codecs[..=at]
        .iter()
        .filter(|c| c.get("name").and_then(Value::as_str) != Some("transpose") && !is_delta(c))
        .cloned()
        .collect();
    let lane = Value::from(layout.data_type().name());
    let lane_fill = match layout.array_type.numeric() {
        Some(_) => fill.clone(),
        None => layout.data_type().default_scalar().to_json(),
    };
    let want = Chain::new(&lane, &lane_fill, &Value::Array(element_wise), &chunks)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(layout.chain.codecs_json(), want.codecs_json(), "{name}");
    let mut compressors: Vec<Value> = codecs[..at]
        .iter()
        .filter(|c| is_delta(c))
        .map(|c| {
            let config = c.get("configuration").expect("delta's configuration");
            Value::object([
                ("name", j(r#""numcodecs.delta""#)),
                (
                    "configuration",
                    Value::object([
                        ("dtype", config.get("dtype").cloned().expect("dtype")),
                        ("astype", config.get("astype").cloned().expect("astype")),
                    ]),
                ),
            ])
        })
        .collect();
    compressors.extend(codecs[at + 1..].iter().cloned());
    assert_eq!(layout.compressors, compressors, "{name}");
    // Every compressor of these fixtures is a row of the table (bz2 too, since it became
    // one) and reads in wasm.
    let item_size = layout.stored_item_size();
    assert!(
        BytesChain::from_v3(&layout.compressors, item_size).is_ok(),
        "{name}"
    );
    assert!(layout.compressors_fallback.is_none(), "{name}");
}

#[test]
fn fixtures_translate_and_open() {
    let (mut layouts, mut unsupported, mut refused) = (0, 0, 0);
    for c in CASES {
        let (zarray, zattrs) = load(c.name);
        if let Refused(code) = c.outcome {
            let e = to_v3(&zarray, zattrs.as_ref()).expect_err(c.name);
            assert_eq!(e.code(), code, "{}: {e}", c.name);
            continue;
        }
        let v3 = to_v3(&zarray, zattrs.as_ref()).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(
            v3,
            expected(c, &zarray, zattrs.as_ref()),
            "{}: translated to\n{v3}",
            c.name
        );
        if let OpenRefused(code) = c.outcome {
            let e = layout::open(&v3).map(|_| ()).expect_err(c.name);
            assert_eq!(e.code(), code, "{}: {e}", c.name);
            refused += 1;
            continue;
        }
        match (opened(c.name, &v3), &c.outcome) {
            (Opened::Layout(layout), Layout) => {
                check_layout(c, &layout, &zarray, None);
                layouts += 1;
            }
            (Opened::Layout(layout), Transposed(order)) => {
                check_layout(c, &layout, &zarray, Some(order));
                layouts += 1;
            }
            (Opened::Unsupported(reason), Unsupported(part)) => {
                assert!(reason.contains(part), "{}: {reason}", c.name);
                unsupported += 1;
            }
            (Opened::Layout(_), Unsupported(_)) => panic!("{}: opened, not unsupported", c.name),
            (Opened::Unsupported(reason), _) => panic!("{}: unsupported: {reason}", c.name),
            (_, Refused(_) | OpenRefused(_)) => unreachable!("refused cases are checked above"),
        }
    }
    assert_eq!((layouts, unsupported, refused), (40, 2, 2));
}

/// Whole documents, spelt out, for a few cases.
#[test]
fn whole_documents() {
    let docs = [
        (
            "f8_zstd",
            r#"{"zarr_format": 3, "node_type": "array", "data_type": "float64", "shape": [100],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [10]}},
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
                "fill_value": 0.0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 0}}],
                "attributes": {"units": "K", "long_name": "air temperature",
                               "valid_max": 4611686018427387905}}"#,
        ),
        (
            "order_f",
            r#"{"zarr_format": 3, "node_type": "array", "data_type": "float32", "shape": [4, 6, 8],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3, 4]}},
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
                "fill_value": 0.0,
                "codecs": [{"name": "transpose", "configuration": {"order": [2, 1, 0]}},
                           {"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 0}}],
                "attributes": {}}"#,
        ),
        (
            "slash",
            r#"{"zarr_format": 3, "node_type": "array", "data_type": "float32", "shape": [4, 6],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "/"}},
                "fill_value": 0.0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 0}}],
                "attributes": {}}"#,
        ),
        (
            "zp2_default",
            r#"{"zarr_format": 3, "node_type": "array", "data_type": "float64",
                "shape": [10000, 10000],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1000, 1000]}},
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
                "fill_value": 0.0,
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                            "shuffle": 1, "blocksize": 0}}],
                "attributes": {}}"#,
        ),
        (
            "zp2_fso",
            r#"{"zarr_format": 3, "node_type": "array", "data_type": "float64", "shape": [1000],
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [100]}},
                "chunk_key_encoding": {"name": "v2", "configuration": {"separator": "."}},
                "fill_value": "NaN",
                "codecs": [{"name": "scale_offset", "configuration": {"offset": 1000, "scale": 10}},
                           {"name": "cast_value", "configuration": {"data_type": "uint8",
                            "rounding": "nearest-even", "out_of_range": "wrap",
                            "scalar_map": {"encode": [["NaN", 0]]}}},
                           {"name": "bytes"},
                           {"name": "blosc", "configuration": {"cname": "lz4", "clevel": 5,
                            "shuffle": 1, "blocksize": 0}}],
                "attributes": {"_ARRAY_DIMENSIONS": ["time"], "units": "m"}}"#,
        ),
    ];
    for (name, doc) in docs {
        let (zarray, zattrs) = load(name);
        let v3 = to_v3(&zarray, zattrs.as_ref()).expect(name);
        assert_eq!(v3, j(doc), "{name}: {v3}");
        // Big integers stay exact through the text.
        assert_eq!(j(&v3.to_string()), v3, "{name}");
    }
}

/// The filter cases: the crate's chain decodes numcodecs' stored bytes to numcodecs' values,
/// bit for bit, and encodes numcodecs' values as numcodecs does, bit for bit, the float32 and
/// float16 ones included (numcodecs' arithmetic in the array's type; see make.py).
#[test]
fn filters_decode_as_numcodecs() {
    let values = j(&std::fs::read_to_string(dir().join("values.json")).expect("values.json"));
    let cases = values.as_object().expect("an object");
    let mut checked = 0;
    let mut encoded_where_float64_differs = 0;
    for (name, v) in cases.iter() {
        let (zarray, zattrs) = load(name);
        let v3 = to_v3(&zarray, zattrs.as_ref()).expect("to_v3");
        let Opened::Layout(layout) = opened(name, &v3) else {
            panic!("{name}: unsupported");
        };
        let hex = |key: &str| unhex(v.get(key).and_then(Value::as_str).expect(key));
        let encoded = hex("encoded");
        let decoded = hex("decoded");
        for (how, got) in [
            ("fused", layout.chain.decode(&encoded)),
            ("unfused", layout.chain.decode_unfused(&encoded)),
        ] {
            let got = got.unwrap_or_else(|e| panic!("{name}: decode ({how}): {e}"));
            assert_eq!(got.data_type(), layout.data_type(), "{name}");
            let got = got.to_le_bytes();
            let size = layout.data_type().size();
            let wrong: Vec<usize> = (0..decoded.len() / size)
                .filter(|i| got[i * size..(i + 1) * size] != decoded[i * size..(i + 1) * size])
                .collect();
            assert!(
                wrong.is_empty() && got.len() == decoded.len(),
                "{name} ({how}): {} of {} values differ from numcodecs, first at {:?}",
                wrong.len(),
                decoded.len() / size,
                wrong.first()
            );
            checked += decoded.len() / size;
        }
        if let Some(input) = v.get("encode_input") {
            let input =
                ArrayData::from_le_bytes(layout.data_type(), &unhex(input.as_str().expect("hex")))
                    .expect("values");
            let ours = layout.chain.encode(&input).expect("encode");
            let theirs = hex("encode_numcodecs");
            let size = layout.chain.encoded_data_type().size();
            let differs: Vec<u64> = (0..theirs.len() / size)
                .filter(|i| ours[i * size..(i + 1) * size] != theirs[i * size..(i + 1) * size])
                .map(|i| i as u64)
                .collect();
            // (make.py lists the values that float64 arithmetic would encode otherwise than
            // numcodecs: the float32 and float16 cases, which the package's own
            // fixedscaleoffset codec encodes in the array's type.)
            let float64_differs = v
                .get("encode_float64_differs")
                .and_then(Value::as_array)
                .expect("list")
                .len();
            assert_eq!(differs, Vec::<u64>::new(), "{name}: encoding");
            encoded_where_float64_differs += float64_differs;
        }
    }
    assert_eq!(cases.len(), 8);
    assert!(
        encoded_where_float64_differs > 0,
        "no case where float64 arithmetic differs"
    );
    assert!(checked > 2 * 3000, "{checked}");
}

/// float32 and float16 results beyond the type's range decode to infinity, as numpy's astype
/// gives (the fixedscaleoffset codec's rounding to the array's type).
#[test]
fn overflow_decodes_to_infinity() {
    for (name, dtype) in [
        ("fso_f4_i2_overflow", DataType::Float32),
        ("fso_f2_u1", DataType::Float16),
    ] {
        let values = j(&std::fs::read_to_string(dir().join("values.json")).expect("values"));
        let decoded = unhex(
            values
                .at(&[name, "decoded"])
                .and_then(Value::as_str)
                .expect("decoded"),
        );
        let data = ArrayData::from_le_bytes(dtype, &decoded).expect("values");
        let infinite = (0..data.len())
            .filter(|&i| {
                data.get(i)
                    .and_then(|s| s.as_f64())
                    .is_some_and(f64::is_infinite)
            })
            .count();
        assert!(infinite > 0, "{name}: the fixture reaches infinity");
    }
}

/// A NaN fill value passes the float -> integer cast on encode (mapped to 0), and a missing
/// chunk still reads as NaN.
#[test]
fn nan_fill_values_with_integer_storage() {
    for name in ["fso_f8_u2_nan", "astype_f8_i2_nan", "zp2_fso"] {
        let (zarray, zattrs) = load(name);
        let v3 = to_v3(&zarray, zattrs.as_ref()).expect("to_v3");
        let Opened::Layout(layout) = opened(name, &v3) else {
            panic!("{name}: unsupported");
        };
        assert!(
            layout.fill_value().as_f64().is_some_and(f64::is_nan),
            "{name}"
        );
        assert_eq!(
            layout.chain.encoded_fill_value().as_i128(),
            Some(0),
            "{name}"
        );
        assert_eq!(
            layout.to_json().get("fill_bytes"),
            Some(&j("[0, 0, 0, 0, 0, 0, 248, 127]")),
            "{name}"
        );
    }
}

fn with(zarray: &Value, key: &str, value: Option<Value>) -> Value {
    let mut map = zarray.as_object().expect("object").clone();
    match value {
        Some(v) => map.insert(key.into(), v),
        None => map = zarray_keys_without(&map, key),
    }
    Value::Object(map)
}

fn zarray_keys_without(
    map: &zarr_wasm_codecs::json::Map,
    key: &str,
) -> zarr_wasm_codecs::json::Map {
    let mut out = zarr_wasm_codecs::json::Map::new();
    for (k, v) in map.iter().filter(|(k, _)| k.as_str() != key) {
        out.insert(k.clone(), v.clone());
    }
    out
}

#[test]
fn malformed_metadata_is_invalid() {
    let (base, _) = load("f8_zstd");
    let bad: &[(&str, Option<&str>)] = &[
        ("zarr_format", None),
        ("zarr_format", Some("3")),
        ("zarr_format", Some(r#""2""#)),
        ("zarr_format", Some("2.0")),
        ("shape", None),
        ("shape", Some("100")),
        ("shape", Some("[-1]")),
        ("shape", Some("[1.5]")),
        ("shape", Some(r#"["100"]"#)),
        ("shape", Some("[100, 100]")),
        ("shape", Some("[18446744073709551616]")),
        ("chunks", None),
        ("chunks", Some("[]")),
        ("chunks", Some("null")),
        ("dtype", None),
        ("dtype", Some("8")),
        ("dtype", Some("null")),
        ("dtype", Some("{}")),
        ("order", Some(r#""X""#)),
        ("order", Some("1")),
        ("dimension_separator", Some(r#""-""#)),
        ("dimension_separator", Some("1")),
        ("filters", Some("{}")),
        ("filters", Some("[1]")),
        ("filters", Some(r#"[{"dtype": "<f8"}]"#)),
        ("filters", Some(r#"[{"id": 5}]"#)),
        ("compressor", Some(r#""zstd""#)),
        ("compressor", Some(r#"{"level": 1}"#)),
        ("compressor", Some("[]")),
    ];
    for (key, value) in bad {
        let zarray = with(&base, key, value.map(j));
        match to_v3(&zarray, None) {
            Err(Error::InvalidMetadata { message }) => assert!(!message.is_empty()),
            other => panic!("{key} = {value:?}: {other:?}"),
        }
    }
    for zarray in ["null", "[]", "2", r#""{}""#] {
        assert!(matches!(
            to_v3(&j(zarray), None),
            Err(Error::InvalidMetadata { .. })
        ));
    }
    for zattrs in ["[]", "1", r#""x""#] {
        assert!(matches!(
            to_v3(&base, Some(&j(zattrs))),
            Err(Error::InvalidMetadata { .. })
        ));
    }
    // Accepted: no order (C), null separator ("."), null zattrs, no filters or compressor.
    for (key, value) in [
        ("order", None),
        ("dimension_separator", Some("null")),
        ("filters", None),
        ("compressor", None),
        ("fill_value", None),
    ] {
        let zarray = with(&base, key, value.map(j));
        let v3 = to_v3(&zarray, Some(&Value::Null)).expect(key);
        assert!(matches!(opened(key, &v3), Opened::Layout(_)), "{key}");
    }
}

/// Odd values anywhere in every fixture's metadata: translation and opening never panic.
#[test]
fn no_panics_on_odd_metadata() {
    let odd = [
        "null",
        "true",
        "0",
        "-1",
        "1.5",
        "1e400",
        "18446744073709551616",
        r#""""#,
        r#""NaN""#,
        r#""<f8""#,
        r#""|u1""#,
        r#""<i8""#,
        r#""\u00e9""#,
        "[]",
        "[0]",
        "[null]",
        "[2, 2]",
        "{}",
        r#"{"id": "fixedscaleoffset"}"#,
        r#"{"id": "astype", "encode_dtype": "<f4", "decode_dtype": "<f8"}"#,
        r#"[{"id": "fixedscaleoffset", "offset": 0, "scale": 0, "dtype": "<f8", "astype": "|u1"}]"#,
    ];
    let odd: Vec<Value> = odd.iter().map(|t| j(t)).collect();
    let mut runs = 0;
    for c in CASES {
        let (zarray, zattrs) = load(c.name);
        let mut docs = vec![];
        mutations(&zarray, &odd, &mut |v| docs.push(v));
        for doc in docs {
            runs += 1;
            if let Ok(v3) = to_v3(&doc, zattrs.as_ref()) {
                if let Ok(Opened::Layout(layout)) = layout::open(&v3) {
                    let n = layout.chain.len().min(64) * 8;
                    // Any bytes decode to a chunk of the chain's length, or to an error with a
                    // code; the layout always has its JSON.
                    match layout.chain.decode(&vec![0x7f; n]) {
                        Ok(values) => assert_eq!(values.len(), layout.chain.len()),
                        Err(e) => assert!(!e.code().is_empty()),
                    }
                    assert!(layout.to_json().get("fill_bytes").is_some());
                }
            }
        }
    }
    assert!(runs > 10_000, "{runs}");
}

/// Calls `f` with `value` changed at one place: each member or item replaced by each of `odd`
/// or removed.
fn mutations(value: &Value, odd: &[Value], f: &mut dyn FnMut(Value)) {
    for o in odd {
        f(o.clone());
    }
    match value {
        Value::Object(map) => {
            for (key, member) in map.iter() {
                f(Value::Object(zarray_keys_without(map, key)));
                mutations(member, odd, &mut |m| {
                    let mut changed = map.clone();
                    changed.insert(key.clone(), m);
                    f(Value::Object(changed));
                });
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let mut fewer = items.clone();
                fewer.remove(i);
                f(Value::Array(fewer));
                mutations(item, odd, &mut |m| {
                    let mut changed = items.clone();
                    changed[i] = m;
                    f(Value::Array(changed));
                });
            }
        }
        _ => {}
    }
}
