//! The codecs VirtualiZarr names HDF5 filters with (imagecodecs' `imagecodecs_lzf`,
//! `imagecodecs_lz4h5`, `imagecodecs_bz2`) against reference chunks
//! (tests/fixtures/compress/imagecodecs, with the script that wrote them): what imagecodecs'
//! encoders write and what HDF5 files hold (h5py's LZF filter, hdf5plugin's LZ4 and BZip2, read
//! back raw). Each decodes to its values, exactly, with the size known and without, as a codec
//! and through a zarr v2 `.zarray` and a zarr v3 zarr.json read by the layout; damaged chunks
//! are errors with a code, never a panic; a write that needs one of them is refused.

#![cfg(all(feature = "archive", not(target_arch = "wasm32")))]

use std::fs;
use std::path::PathBuf;

use zarr_wasm_codecs::codec::bytes_to_bytes::{BytesChain, BytesCodec, DEFAULT_LIMIT};
use zarr_wasm_codecs::codec::table;
use zarr_wasm_codecs::json::{self, Value};
use zarr_wasm_codecs::layout::{self, v2::to_v3, Opened};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compress/imagecodecs")
}

fn j(text: &str) -> Value {
    json::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn manifest() -> Value {
    j(&fs::read_to_string(dir().join("manifest.json")).unwrap())
}

fn read(file: &Value) -> Vec<u8> {
    fs::read(dir().join(file.as_str().unwrap())).unwrap()
}

/// A numcodecs codec config (`{"id", ...}`) as zarr v3 codec metadata, under `name` (one of
/// its row's v3 names) or the row's first.
fn v3_codec(config: &Value, name: Option<&str>) -> Value {
    let map = config.as_object().unwrap();
    let row = table::by_v2_id(map.get("id").unwrap().as_str().unwrap()).unwrap();
    let mut rest = json::Map::new();
    for (k, v) in map.iter().filter(|(k, _)| k.as_str() != "id") {
        rest.insert(k.clone(), v.clone());
    }
    Value::object([
        ("name", Value::from(name.unwrap_or(row.v3_names[0]))),
        ("configuration", Value::Object(rest)),
    ])
}

struct Case {
    name: String,
    source: String,
    /// The numcodecs configs, in encode order.
    chain: Vec<Value>,
    encoded: Vec<u8>,
    decoded: Vec<u8>,
}

impl Case {
    fn bytes_chain(&self, names: Option<usize>) -> BytesChain {
        let list: Vec<Value> = self
            .chain
            .iter()
            .map(|c| {
                let id = c.get("id").unwrap().as_str().unwrap();
                let row = table::by_v2_id(id).unwrap();
                v3_codec(
                    c,
                    names.map(|i| row.v3_names[i.min(row.v3_names.len() - 1)]),
                )
            })
            .collect();
        BytesChain::from_v3(&list, 1).unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    /// The one codec of a single-codec case, configured.
    fn codec(&self) -> Option<BytesCodec> {
        if self.chain.len() != 1 {
            return None;
        }
        Some(self.bytes_chain(None).codecs[0])
    }
}

fn cases() -> Vec<Case> {
    let m = manifest();
    let cases: Vec<Case> = m
        .get("cases")
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            name: c.get("encoded").unwrap().as_str().unwrap().to_string(),
            source: c.get("source").unwrap().as_str().unwrap().to_string(),
            chain: c.get("chain").unwrap().as_array().unwrap().clone(),
            encoded: read(c.get("encoded").unwrap()),
            decoded: read(c.get("input").unwrap()),
        })
        .collect();
    assert_eq!(cases.len(), 71);
    cases
}

fn count(cases: &[Case], id: &str, source: &str) -> usize {
    cases
        .iter()
        .filter(|c| {
            c.source == source
                && c.chain
                    .iter()
                    .any(|x| x.get("id").and_then(Value::as_str) == Some(id))
        })
        .count()
}

#[test]
fn the_fixtures_cover_each_codec_from_both_sources() {
    let cases = cases();
    assert_eq!(count(&cases, "imagecodecs_lzf", "imagecodecs"), 14);
    assert_eq!(count(&cases, "imagecodecs_lz4h5", "imagecodecs"), 18);
    assert_eq!(count(&cases, "imagecodecs_bz2", "imagecodecs"), 14);
    // h5py's LZF (alone and after shuffle; the chunks it did not compress are stored
    // unfiltered, below), hdf5plugin's LZ4 (one block, 16 KiB blocks) and BZip2.
    assert_eq!(count(&cases, "imagecodecs_lzf", "hdf5"), 7);
    assert_eq!(count(&cases, "imagecodecs_lz4h5", "hdf5"), 12);
    assert_eq!(count(&cases, "imagecodecs_bz2", "hdf5"), 6);
    // HDF5's LZ4 chunk of 51 200 bytes in 16 KiB blocks: two lz4 blocks, two stored raw.
    let c = cases
        .iter()
        .find(|c| c.name == "large_f4.h5-lz4-block16384.bin")
        .unwrap();
    assert_eq!(
        &c.encoded[..12],
        &[0, 0, 0, 0, 0, 0, 0xc8, 0, 0, 0, 0x40, 0]
    );
}

#[test]
fn every_chunk_decodes_to_its_values() {
    for c in cases() {
        let n = c.decoded.len();
        // Through each of the codecs' v3 names.
        for names in [None, Some(0), Some(1)] {
            let chain = c.bytes_chain(names);
            assert_eq!(
                chain.decode(&c.encoded, Some(n)).as_deref(),
                Ok(&c.decoded[..]),
                "{} ({names:?})",
                c.name
            );
        }
        if let Some(codec) = c.codec() {
            for expected in [Some(n), None] {
                assert_eq!(
                    codec.decode(&c.encoded, expected, DEFAULT_LIMIT).as_deref(),
                    Ok(&c.decoded[..]),
                    "{} (size {expected:?})",
                    c.name
                );
            }
        }
    }
}

#[test]
fn another_size_than_the_chunk_needs_is_refused() {
    for c in cases() {
        let chain = c.bytes_chain(None);
        for wrong in [c.decoded.len() + 1, c.decoded.len().wrapping_sub(1)] {
            if wrong == usize::MAX {
                continue;
            }
            let e = chain.decode(&c.encoded, Some(wrong)).unwrap_err();
            assert!(
                matches!(e.code(), "CORRUPT_CHUNK" | "CHUNK_LENGTH"),
                "{}: {e}",
                c.name
            );
        }
    }
}

#[test]
fn a_limit_below_the_output_is_refused() {
    for c in cases().into_iter().filter(|c| c.decoded.len() > 100) {
        let Some(codec) = c.codec() else { continue };
        let e = codec.decode(&c.encoded, None, 100).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{}: {e}", c.name);
    }
}

/// Cut anywhere, or with a byte changed: an error with a code, or (LZF and lz4 have no
/// checksum) an output of the chunk's size; never a panic.
#[test]
fn cut_and_damaged_chunks_are_errors_or_the_right_size() {
    for c in cases().into_iter().filter(|c| !c.decoded.is_empty()) {
        let n = c.decoded.len();
        let chain = c.bytes_chain(None);
        let len = c.encoded.len();
        let cuts: Vec<usize> = [0, 1, 3, 4, 11, 12, 15, 16, len / 2, len - 1]
            .into_iter()
            .filter(|&k| k < len)
            .collect();
        for cut in cuts {
            let e = chain
                .decode(&c.encoded[..cut], Some(n))
                .expect_err(&format!("{} cut to {cut}", c.name));
            assert!(
                matches!(e.code(), "CORRUPT_CHUNK" | "CHUNK_LENGTH"),
                "{} cut to {cut}: {e}",
                c.name
            );
        }
        let step = (len / 64).max(1);
        for i in (0..len).step_by(step) {
            for flip in [0x01, 0xa5] {
                let mut bad = c.encoded.clone();
                bad[i] ^= flip;
                match chain.decode(&bad, Some(n)) {
                    Ok(out) => assert_eq!(out.len(), n, "{} byte {i}", c.name),
                    Err(e) => assert!(
                        matches!(e.code(), "CORRUPT_CHUNK" | "CHUNK_LENGTH" | "CHECKSUM"),
                        "{} byte {i}: {e}",
                        c.name
                    ),
                }
                if let Some(codec) = c.codec() {
                    if let Ok(out) = codec.decode(&bad, None, DEFAULT_LIMIT) {
                        assert!(out.len() <= DEFAULT_LIMIT, "{} byte {i}", c.name);
                    }
                }
            }
        }
    }
}

fn case(name: &str) -> Case {
    cases().into_iter().find(|c| c.name == name).unwrap()
}

/// The LZ4 filter's header and block sizes, changed: refused (`CORRUPT_CHUNK`).
#[test]
fn lz4h5_wrong_sizes_are_refused() {
    for name in [
        "large_f4.h5-lz4-block16384.bin",
        "large_f4.lz4h5-block4096.bin",
        "smooth_f4.h5-lz4.bin",
    ] {
        let c = case(name);
        let codec = c.codec().unwrap();
        let n = c.decoded.len();
        let refused = |stream: &[u8], expected: Option<usize>| {
            let e = codec
                .decode(stream, expected, DEFAULT_LIMIT)
                .expect_err(&format!("{name}: {stream:02x?}", stream = &stream[..16]));
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{name}: {e}");
        };
        let with_header = |total: i64, block: i32| {
            let mut s = c.encoded.clone();
            s[..8].copy_from_slice(&total.to_be_bytes());
            s[8..12].copy_from_slice(&block.to_be_bytes());
            s
        };
        let block = i32::from_be_bytes(c.encoded[8..12].try_into().unwrap());
        // The total: one more, one less, negative, past the limit.
        for total in [n as i64 + 1, n as i64 - 1, -1, i64::MAX, 1 << 31] {
            refused(&with_header(total, block), Some(n));
            refused(&with_header(total, block), None);
        }
        // The block size: 0, negative, one more or less than the blocks are.
        for b in [0, -1, i32::MIN, block - 1] {
            refused(&with_header(n as i64, b), Some(n));
        }
        if (block as usize) < n {
            refused(&with_header(n as i64, block + 1), Some(n));
        }
        // The first block's stored size: 0, negative, past the end, one less.
        let first = i32::from_be_bytes(c.encoded[12..16].try_into().unwrap());
        for size in [0, -1, c.encoded.len() as i32, first - 1] {
            let mut s = c.encoded.clone();
            s[12..16].copy_from_slice(&size.to_be_bytes());
            refused(&s, Some(n));
        }
        // A byte after the last block.
        let mut s = c.encoded.clone();
        s.push(0);
        refused(&s, Some(n));
    }
}

/// LZF streams damaged where it matters: a back-reference before the start of the output, a
/// literal run past the end of the stream, a back-reference cut short, a header that says
/// another size than the stream holds.
#[test]
fn lzf_damage_is_refused() {
    let c = case("smooth_f4.lzf.bin");
    let codec = c.codec().unwrap();
    let n = c.decoded.len();
    let refused = |stream: &[u8], codec: BytesCodec| {
        let e = codec
            .decode(stream, Some(n), DEFAULT_LIMIT)
            .expect_err("refused");
        assert!(matches!(e.code(), "CORRUPT_CHUNK" | "CHUNK_LENGTH"), "{e}");
        e
    };
    // The stream starts with a literal run; as a back-reference it reaches before the start.
    assert!(c.encoded[0] < 32);
    let mut s = c.encoded.clone();
    s[0] = 0x20;
    let e = refused(&s, codec);
    assert!(e.to_string().contains("before the start"), "{e}");
    // A literal run longer than what is left.
    let e = refused(&[31, 1, 2, 3], codec);
    assert!(e.to_string().contains("past the end"), "{e}");
    // A back-reference with its distance byte cut off, and with its length byte too.
    refused(&[0, 1, 0x20], codec);
    refused(&[0, 1, 0xe0], codec);
    refused(&[0, 1, 0xe0, 4], codec);
    // More output than the chunk has: the stream twice.
    let mut twice = c.encoded.clone();
    twice.extend_from_slice(&c.encoded);
    assert_eq!(refused(&twice, codec).code(), "CORRUPT_CHUNK");
    // The header: another size than the chunk's, than the stream's.
    let h = case("smooth_f4.lzf-header.bin");
    let header = h.codec().unwrap();
    assert_eq!(header, BytesCodec::Lzf { header: true });
    for size in [n as u32 + 1, n as u32 - 1, u32::MAX] {
        let mut s = h.encoded.clone();
        s[..4].copy_from_slice(&size.to_le_bytes());
        assert_eq!(refused(&s, header).code(), "CORRUPT_CHUNK");
        let e = header.decode(&s, None, DEFAULT_LIMIT).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
    }
    // A headerless stream read with a header, and the other way round: refused.
    refused(&c.encoded, header);
    refused(&h.encoded, codec);
}

/// Chunks HDF5 stored without their LZF filter (h5py's filter is optional: where LZF would not
/// make a chunk smaller, HDF5 keeps it as it is and sets a bit of the chunk's filter mask,
/// which a reference to the chunk does not carry): read as the dataset's filters say, they are
/// refused, not misread.
#[test]
fn chunks_hdf5_left_unfiltered_are_refused() {
    let m = manifest();
    let list = m.get("hdf5_unfiltered").unwrap().as_array().unwrap();
    assert_eq!(list.len(), 5);
    for u in list {
        let stored = read(u.get("stored").unwrap());
        let decoded = read(u.get("input").unwrap());
        let c = Case {
            name: u.get("stored").unwrap().as_str().unwrap().into(),
            source: "hdf5".into(),
            chain: u.get("chain").unwrap().as_array().unwrap().clone(),
            encoded: stored,
            decoded,
        };
        let e = c
            .bytes_chain(None)
            .decode(&c.encoded, Some(c.decoded.len()))
            .expect_err(&c.name);
        assert!(
            matches!(e.code(), "CORRUPT_CHUNK" | "CHUNK_LENGTH"),
            "{}: {e}",
            c.name
        );
    }
}

/// imagecodecs' `header` is true by default (its numcodecs and zarr codecs' `Lzf(header=True)`):
/// a configuration without it reads a header. h5py's chunks have none; make.py records that
/// imagecodecs itself misreads them with the default.
#[test]
fn lzf_header_defaults_to_true() {
    let default = BytesCodec::from_v2_id("imagecodecs_lzf").unwrap();
    assert_eq!(default, BytesCodec::Lzf { header: true });
    let m = manifest();
    let misread = m
        .at(&["hdf5_lzf_with_header_true", "misread"])
        .and_then(Value::as_array)
        .unwrap();
    assert_eq!(misread.len(), 3);
    for file in misread {
        let c = case(file.as_str().unwrap());
        assert!(default
            .decode(&c.encoded, Some(c.decoded.len()), DEFAULT_LIMIT)
            .is_err());
    }
}

#[test]
fn configurations_are_checked() {
    let code = |codecs: &str| {
        BytesChain::from_v3(j(codecs).as_array().unwrap(), 1)
            .err()
            .map(|e| e.code())
    };
    for ok in [
        r#"[{"name": "imagecodecs_lzf"}]"#,
        r#"[{"name": "imagecodecs_lzf", "configuration": {"header": false}}]"#,
        r#"[{"name": "numcodecs.imagecodecs_lzf", "configuration": {"header": true}}]"#,
        r#"[{"name": "imagecodecs_lz4h5", "configuration": {"level": null, "hc": false, "blocksize": null}}]"#,
        r#"[{"name": "numcodecs.imagecodecs_lz4h5", "configuration": {"level": 9, "hc": true, "blocksize": 4096}}]"#,
        r#"[{"name": "imagecodecs_bz2", "configuration": {"level": null}}]"#,
        r#"[{"name": "numcodecs.imagecodecs_bz2", "configuration": {"level": 9}}]"#,
    ] {
        assert_eq!(code(ok), None, "{ok}");
    }
    for bad in [
        r#"[{"name": "imagecodecs_lzf", "configuration": {"header": 1}}]"#,
        r#"[{"name": "imagecodecs_lzf", "configuration": {"level": 1}}]"#,
        r#"[{"name": "imagecodecs_lz4h5", "configuration": {"blocksize": 0}}]"#,
        r#"[{"name": "imagecodecs_lz4h5", "configuration": {"hc": "yes"}}]"#,
        r#"[{"name": "imagecodecs_lz4h5", "configuration": {"header": true}}]"#,
        r#"[{"name": "imagecodecs_bz2", "configuration": {"level": "9"}}]"#,
        r#"[{"name": "imagecodecs_bz2", "configuration": {"blocksize": 9}}]"#,
    ] {
        assert_eq!(code(bad), Some("INVALID_CONFIG"), "{bad}");
    }
}

/// The codecs decode only: a write that needs one is refused (`UNSUPPORTED`), as a chain or
/// one codec, and the table says where each decodes.
#[test]
fn writes_are_refused() {
    for (name, module) in [
        ("imagecodecs_lzf", "compress"),
        ("imagecodecs_lz4h5", "compress"),
        ("imagecodecs_bz2", "archive"),
    ] {
        let list = j(&format!(r#"[{{"name": "{name}"}}]"#));
        let chain = BytesChain::from_v3(list.as_array().unwrap(), 1).unwrap();
        let codec = chain.codecs[0];
        assert!(!codec.encodes(), "{name}");
        assert_eq!(codec.module().name(), module, "{name}");
        let e = chain.encode(b"some values").unwrap_err();
        assert_eq!(e.code(), "UNSUPPORTED", "{name}: {e}");
        assert!(e.to_string().contains(name), "{e}");
        assert_eq!(codec.encode(b"").unwrap_err().code(), "UNSUPPORTED");
    }
    // (numcodecs' bz2, the same kernel, still encodes.)
    let bz2 = BytesCodec::from_v2_id("bz2").unwrap();
    assert!(bz2.encodes() && bz2.encode(b"values").is_ok());
}

/// A chunk read through the layout of the `.zarray` VirtualiZarr writes (the HDF5 filters as
/// `filters` or `compressor`), and of a zarr.json with the v3 names: the values come out.
fn read_through(meta: &Value, stored: &[u8], values: &[u8], what: &str) {
    let Opened::Layout(layout) = layout::open(meta).unwrap_or_else(|e| panic!("{what}: {e}"))
    else {
        panic!("{what}: unsupported");
    };
    assert!(
        layout.compressors_fallback.is_none(),
        "{what}: {:?}",
        layout.compressors_fallback
    );
    let chain = BytesChain::from_v3(&layout.compressors, layout.stored_item_size())
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let bytes = chain
        .decode(stored, Some(values.len()))
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = layout
        .chain
        .decode(&bytes)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.to_le_bytes(), values, "{what}");
}

#[test]
fn zarr_v2_and_v3_metadata_read_them() {
    // (case file, dtype, shape, filters, compressor)
    let v2 = [
        (
            "smooth_f4.lzf-header.bin",
            "<f4",
            "[64, 64]",
            "null",
            r#"{"id": "imagecodecs_lzf"}"#,
        ),
        (
            "constant_f8.h5-lzf.bin",
            "<f8",
            "[32, 32]",
            "null",
            r#"{"id": "imagecodecs_lzf", "header": false}"#,
        ),
        (
            "large_f4.h5-lz4-block16384.bin",
            "<f4",
            "[80, 160]",
            r#"[{"id": "imagecodecs_lz4h5"}]"#,
            "null",
        ),
        (
            "noisy_i2.h5-lz4.bin",
            "<i2",
            "[64, 64]",
            r#"[{"id": "imagecodecs_lz4h5", "level": null, "hc": false, "blocksize": null}]"#,
            "null",
        ),
        (
            "smooth_f4.h5-shuffle-lzf.bin",
            "<f4",
            "[64, 64]",
            r#"[{"id": "shuffle", "elementsize": 4}, {"id": "imagecodecs_lzf", "header": false}]"#,
            "null",
        ),
        (
            "noisy_i2.h5-bzip2.bin",
            "<i2",
            "[64, 64]",
            "null",
            r#"{"id": "imagecodecs_bz2", "level": null}"#,
        ),
    ];
    for (file, dtype, shape, filters, compressor) in v2 {
        let c = case(file);
        let zarray = j(&format!(
            r#"{{"zarr_format": 2, "shape": {shape}, "chunks": {shape}, "dtype": "{dtype}",
                "order": "C", "fill_value": 0, "filters": {filters}, "compressor": {compressor}}}"#
        ));
        let meta = to_v3(&zarray, None).unwrap_or_else(|e| panic!("{file}: {e}"));
        read_through(&meta, &c.encoded, &c.decoded, &format!("{file} (v2)"));
        // The same as zarr v3, under each of the codecs' v3 names.
        for i in 0..2 {
            let list: Vec<Value> = c
                .chain
                .iter()
                .map(|x| {
                    let row = table::by_v2_id(x.get("id").unwrap().as_str().unwrap()).unwrap();
                    v3_codec(x, Some(row.v3_names[i.min(row.v3_names.len() - 1)]))
                })
                .collect();
            let data_type = match dtype {
                "<f4" => "float32",
                "<f8" => "float64",
                _ => "int16",
            };
            let meta = j(&format!(
                r#"{{"zarr_format": 3, "node_type": "array", "data_type": "{data_type}",
                    "shape": {shape}, "fill_value": 0,
                    "chunk_grid": {{"name": "regular", "configuration": {{"chunk_shape": {shape}}}}},
                    "chunk_key_encoding": {{"name": "default"}},
                    "codecs": [{{"name": "bytes", "configuration": {{"endian": "little"}}}}, {}]}}"#,
                list.iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            read_through(&meta, &c.encoded, &c.decoded, &format!("{file} (v3 {i})"));
        }
    }
}

/// Arbitrary bytes as a chunk of each codec, the size known or not: an error with a code, or
/// an output of the chunk's size (within the limit where the size is not known); never a
/// panic.
mod arbitrary {
    use proptest::prelude::*;
    use zarr_wasm_codecs::codec::bytes_to_bytes::BytesCodec;

    const LIMIT: usize = 1 << 16;

    fn check(codec: BytesCodec, stream: &[u8], expected: Option<usize>) {
        match codec.decode(stream, expected, LIMIT) {
            Ok(out) => match expected {
                Some(n) => assert_eq!(out.len(), n),
                None => assert!(out.len() <= LIMIT),
            },
            Err(e) => assert!(
                matches!(e.code(), "CORRUPT_CHUNK" | "CHUNK_LENGTH"),
                "{codec:?}: {e}"
            ),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn any_bytes(stream in proptest::collection::vec(any::<u8>(), 0..600), size in 0usize..4000,
                     known in any::<bool>()) {
            let expected = known.then_some(size);
            for codec in [
                BytesCodec::Lzf { header: false },
                BytesCodec::Lzf { header: true },
                BytesCodec::Lz4H5,
            ] {
                check(codec, &stream, expected);
            }
        }

        /// LZ4 HDF5 headers that are mostly right: a total and a block size near the stream's.
        #[test]
        fn lz4h5_near_misses(total in 0i64..3000, block in -2i32..1200,
                             body in proptest::collection::vec(any::<u8>(), 0..400)) {
            let mut stream = total.to_be_bytes().to_vec();
            stream.extend_from_slice(&block.to_be_bytes());
            stream.extend_from_slice(&body);
            check(BytesCodec::Lz4H5, &stream, None);
            check(BytesCodec::Lz4H5, &stream, Some(total as usize));
        }
    }
}
