//! `numcodecs.pcodec` against numcodecs 0.17.1 + pcodec 1.1.0's streams
//! (tests/fixtures/pcodec/chunks, with the script that wrote them): every stream decodes to the
//! values numcodecs encoded, bit for bit; encoding those values with the same configuration
//! gives numcodecs' bytes; streams of the wrong length or damaged ones are errors with a code,
//! never a panic or a wrong answer; configurations numcodecs refuses are refused.

#![cfg(all(feature = "pcodec", not(target_arch = "wasm32")))]

use std::fs;
use std::path::PathBuf;

use zarr_wasm_codecs::codec::pcodec::Pcodec;
use zarr_wasm_codecs::dtype::DataType;
use zarr_wasm_codecs::json::{self, Value};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pcodec")
}

struct Chunk {
    name: String,
    dtype: DataType,
    config: Value,
    stream: Vec<u8>,
    values: Vec<u8>,
    n: usize,
}

fn chunks() -> Vec<Chunk> {
    let manifest = json::parse(&fs::read_to_string(dir().join("manifest.json")).unwrap()).unwrap();
    let list = manifest.get("raw_chunks").unwrap().as_array().unwrap();
    let out: Vec<Chunk> = list
        .iter()
        .map(|c| {
            let text = |key: &str| c.get(key).unwrap().as_str().unwrap().to_string();
            Chunk {
                name: text("name"),
                dtype: DataType::from_name(&text("dtype")).unwrap(),
                config: c.get("config").unwrap().clone(),
                stream: fs::read(dir().join(text("file"))).unwrap(),
                values: fs::read(dir().join(text("values_file"))).unwrap(),
                n: c.get("n").unwrap().as_u64().unwrap() as usize,
            }
        })
        .collect();
    assert_eq!(out.len(), 19);
    out
}

#[test]
fn numcodecs_streams_decode_to_their_values_bit_for_bit() {
    for c in chunks() {
        let codec = Pcodec::new(Some(&c.config), c.dtype).unwrap();
        assert_eq!(c.values.len(), c.n * c.dtype.size(), "{}", c.name);
        let decoded = codec
            .decode(&c.stream, c.n)
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(decoded, c.values, "{}", c.name);
    }
}

#[test]
fn encoding_numcodecs_values_gives_numcodecs_bytes() {
    let mut same = 0;
    for c in chunks() {
        let codec = Pcodec::new(Some(&c.config), c.dtype).unwrap();
        let encoded = codec
            .encode(&c.values)
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        // Whatever the bytes, they decode to the values.
        assert_eq!(codec.decode(&encoded, c.n).unwrap(), c.values, "{}", c.name);
        if encoded == c.stream {
            same += 1;
        } else {
            eprintln!(
                "{}: {} bytes here, {} by numcodecs",
                c.name,
                encoded.len(),
                c.stream.len()
            );
        }
    }
    // The same pco version writes the same bytes (natively here; the wasm build is checked
    // against the stores by the Node tests).
    assert_eq!(same, 19);
}

#[test]
fn a_stream_of_another_length_or_damaged_is_corrupt_chunk() {
    for c in chunks() {
        let codec = Pcodec::new(Some(&c.config), c.dtype).unwrap();
        for n in [c.n + 1, c.n.saturating_sub(1)] {
            if n == c.n {
                continue;
            }
            let e = codec.decode(&c.stream, n).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{} as {n} values: {e}", c.name);
        }
        // Every truncation, and every single-byte change, either decodes to something (a
        // change in the numbers' bits may be another valid stream) or is refused with the
        // code; it never panics.
        for len in 0..c.stream.len() {
            if let Err(e) = codec.decode(&c.stream[..len], c.n) {
                assert_eq!(e.code(), "CORRUPT_CHUNK", "{} cut to {len}: {e}", c.name);
            }
        }
        for i in 0..c.stream.len().min(64) {
            let mut damaged = c.stream.clone();
            damaged[i] ^= 0x5a;
            if let Err(e) = codec.decode(&damaged, c.n) {
                assert_eq!(e.code(), "CORRUPT_CHUNK", "{} byte {i}: {e}", c.name);
            }
        }
    }
    let codec = Pcodec::new(None, DataType::Float64).unwrap();
    assert_eq!(codec.decode(&[], 4).unwrap_err().code(), "CORRUPT_CHUNK");
    assert_eq!(
        codec.decode(b"not a pco stream", 4).unwrap_err().code(),
        "CORRUPT_CHUNK"
    );
}

#[test]
fn a_stream_of_another_data_type_is_refused() {
    let c = chunks()
        .into_iter()
        .find(|c| c.dtype == DataType::Float64)
        .unwrap();
    for other in [DataType::Int64, DataType::Float32, DataType::UInt16] {
        let codec = Pcodec::new(None, other).unwrap();
        let n = c.n * DataType::Float64.size() / other.size();
        let e = codec.decode(&c.stream, n).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{other}: {e}");
    }
}

#[test]
fn configurations_numcodecs_refuses_are_refused() {
    let config = |text: &str| json::parse(text).unwrap();
    for bad in [
        r#"{"level": 13}"#,
        r#"{"level": -1}"#,
        r#"{"level": "8"}"#,
        r#"{"mode_spec": "try_dict"}"#,
        r#"{"delta_spec": "try_conv1"}"#,
        r#"{"delta_spec": "try_consecutive"}"#,
        r#"{"delta_spec": "no_op", "delta_encoding_order": 2}"#,
        r#"{"delta_spec": "try_lookback", "delta_encoding_order": 1}"#,
        r#"{"delta_encoding_order": 8}"#,
        r#"{"paging_spec": "exact"}"#,
        r#"{"equal_pages_up_to": 0}"#,
        r#"{"compression_level": 8}"#,
        r#"[]"#,
    ] {
        let e = Pcodec::new(Some(&config(bad)), DataType::Float64).unwrap_err();
        assert_eq!(e.code(), "INVALID_CONFIG", "{bad}: {e}");
    }
    for good in [
        "{}",
        r#"{"level": 0, "mode_spec": "classic", "delta_spec": "none"}"#,
        r#"{"delta_spec": "auto", "delta_encoding_order": 3}"#,
        r#"{"delta_spec": "try_consecutive", "delta_encoding_order": 0}"#,
        r#"{"delta_encoding_order": null, "equal_pages_up_to": 1}"#,
    ] {
        Pcodec::new(Some(&config(good)), DataType::Int32).unwrap_or_else(|e| panic!("{good}: {e}"));
    }
    for dtype in [DataType::Int8, DataType::UInt8] {
        let e = Pcodec::new(None, dtype).unwrap_err();
        assert_eq!(e.code(), "UNSUPPORTED_DATA_TYPE");
    }
}
