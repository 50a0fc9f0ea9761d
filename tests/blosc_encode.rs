#![cfg(all(feature = "compress", not(target_arch = "wasm32")))]
//! blosc 1 encoding against numcodecs 0.17.1 (c-blosc 1.21, one thread), with the cases of
//! tests/fixtures/compress/blosc_encode/ (its make.py says how they are made and checked):
//! - numcodecs' chunks decode here to the data;
//! - every case encodes here to the chunk whose hash numcodecs verified (make.py --check
//!   decoded it with numcodecs' `Blosc().decode`), so that a change to the encoder fails until
//!   the fixtures are made and checked again;
//! - our headers are numcodecs' (flags, type size, sizes, block size), and as many chunks per
//!   compressor as make.py counted are byte-identical to numcodecs';
//! - random parameters round-trip; an input over blosc's limit is an error.

use std::collections::HashMap;
use std::path::PathBuf;

mod common;
use common::{fnv1a64, random_bytes};

use serde_json::Value;
use zarr_wasm_codecs::codec::bytes_to_bytes::{
    blosc, BloscCompressor, BloscParams, BloscShuffle, BytesCodec, DEFAULT_LIMIT,
};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compress/blosc_encode")
}

/// A chunk's hash as the manifest writes it.
fn hash(data: &[u8]) -> String {
    format!("{:016x}", fnv1a64(data))
}

/// make.py's `smooth` recipe.
fn smooth(n: usize, t: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + t);
    for i in 0..n.div_ceil(t) {
        match t {
            1 => out.push((i / 5 % 251) as u8),
            2 => out.extend_from_slice(&((7 * i as i64 - 5000) as i16).to_le_bytes()),
            4 => out.extend_from_slice(&((0.125 * i as f64 + 3.5) as f32).to_le_bytes()),
            8 => out.extend_from_slice(&(100.0 + 0.001 * i as f64).to_le_bytes()),
            _ => {
                let word = (13 * i as u64).to_le_bytes();
                out.extend((0..t).map(|j| word.get(j).copied().unwrap_or(0)));
            }
        }
    }
    out.truncate(n);
    out
}

/// make.py's recipes.
fn recipe(spec: &Value) -> Vec<u8> {
    let n = spec["n"].as_u64().expect("n") as usize;
    let t = spec["t"].as_u64().expect("t") as usize;
    let seed = spec["seed"].as_u64().unwrap_or(0);
    match spec["kind"].as_str().expect("kind") {
        "smooth" => smooth(n, t),
        "random" => random_bytes(n, seed),
        "zeros" => vec![0; n],
        "noisy" => {
            let noise = random_bytes(n, seed);
            let mut out = smooth(n, t);
            for (p, byte) in out.iter_mut().enumerate() {
                if t == 1 {
                    *byte = (*byte & 0xf8) | (noise[p] & 0x07);
                } else if p % t < t / 2 {
                    *byte = noise[p];
                }
            }
            out
        }
        other => panic!("unknown recipe {other}"),
    }
}

fn cname(name: &str) -> BloscCompressor {
    BloscCompressor::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| *c)
        .unwrap_or_else(|| panic!("unknown cname {name}"))
}

/// make.py's `params`: [cname, clevel, shuffle, blocksize, typesize].
fn params(p: &Value) -> BloscParams {
    let p = p.as_array().expect("params");
    BloscParams {
        cname: cname(p[0].as_str().expect("cname")),
        clevel: p[1].as_u64().expect("clevel") as u8,
        shuffle: match p[2].as_i64().expect("shuffle") {
            0 => BloscShuffle::None,
            1 => BloscShuffle::Byte,
            2 => BloscShuffle::Bit,
            -1 => BloscShuffle::Auto,
            other => panic!("shuffle {other}"),
        },
        blocksize: p[3].as_u64().expect("blocksize") as usize,
        typesize: p[4].as_u64().expect("typesize") as usize,
    }
}

struct Case {
    id: String,
    cname: String,
    params: BloscParams,
    data: Vec<u8>,
    /// numcodecs' header: flags, type size, nbytes, block size, cbytes.
    theirs_header: [usize; 5],
    theirs_hash: String,
    /// numcodecs' chunk, where make.py kept it.
    theirs_chunk: Option<Vec<u8>>,
    /// The hash of our chunk that numcodecs decoded (make.py --check), if checked.
    ours_hash: Option<String>,
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest is JSON")
}

fn cases(manifest: &Value) -> Vec<Case> {
    let theirs = std::fs::read(dir().join("theirs.bin")).expect("theirs.bin");
    let list = manifest["cases"].as_array().expect("cases");
    let out: Vec<Case> = list
        .iter()
        .map(|c| {
            let t = &c["theirs"];
            let header: Vec<usize> = t["header"]
                .as_array()
                .expect("header")
                .iter()
                .map(|v| v.as_u64().expect("header field") as usize)
                .collect();
            let theirs_chunk = t.get("offset").map(|offset| {
                let at = offset.as_u64().expect("offset") as usize;
                let len = t["length"].as_u64().expect("length") as usize;
                theirs[at..at + len].to_vec()
            });
            Case {
                id: c["id"].as_str().expect("id").to_string(),
                cname: c["params"][0].as_str().expect("cname").to_string(),
                params: params(&c["params"]),
                data: recipe(&c["data"]),
                theirs_header: header.try_into().expect("5 header fields"),
                theirs_hash: t["fnv1a64"].as_str().expect("hash").to_string(),
                theirs_chunk,
                ours_hash: c
                    .get("ours")
                    .map(|o| o["fnv1a64"].as_str().expect("our hash").to_string()),
            }
        })
        .collect();
    assert!(out.len() > 900, "{} cases", out.len());
    out
}

fn header(chunk: &[u8]) -> [usize; 5] {
    let word = |at: usize| u32::from_le_bytes(chunk[at..at + 4].try_into().unwrap()) as usize;
    [
        usize::from(chunk[2]),
        usize::from(chunk[3]),
        word(4),
        word(8),
        word(12),
    ]
}

const MEMCPYED: usize = 0x02;

/// numcodecs' chunks (those make.py kept: compressed, many blocks, every compressor) decode
/// here to the data they were made from.
#[test]
fn theirs_decode_here() {
    let manifest = manifest();
    let mut decoded = HashMap::<String, usize>::new();
    for case in cases(&manifest) {
        let Some(chunk) = &case.theirs_chunk else {
            continue;
        };
        assert_eq!(hash(chunk), case.theirs_hash, "{}", case.id);
        let n = case.data.len();
        let out = blosc::decode(chunk, Some(n), n).unwrap_or_else(|e| panic!("{}: {e}", case.id));
        assert!(out == case.data, "{}: decoded to other bytes", case.id);
        *decoded.entry(case.cname).or_default() += 1;
    }
    for (name, _) in BloscCompressor::ALL {
        assert!(
            decoded.get(name).copied().unwrap_or(0) >= 3,
            "{name}: {decoded:?}"
        );
    }
    eprintln!("numcodecs' chunks decoded: {decoded:?}");
}

/// Writes our chunk of every case (ours.bin, ours.json) for make.py --check.
#[test]
#[ignore = "writes the fixtures make.py --check verifies"]
fn write_ours() {
    let manifest = manifest();
    let mut bin = Vec::new();
    let mut index = serde_json::Map::new();
    for case in cases(&manifest) {
        let chunk = blosc::encode(&case.data, case.params).expect(&case.id);
        let mut at = serde_json::Map::new();
        at.insert("offset".into(), Value::from(bin.len()));
        at.insert("length".into(), Value::from(chunk.len()));
        index.insert(case.id, Value::Object(at));
        bin.extend_from_slice(&chunk);
    }
    std::fs::write(dir().join("ours.bin"), &bin).expect("ours.bin");
    let json = serde_json::to_string(&Value::Object(index)).expect("JSON");
    std::fs::write(dir().join("ours.json"), json).expect("ours.json");
    eprintln!("{} bytes of chunks written", bin.len());
}

/// The fixtures' summary, per compressor, as make.py --check counted it.
fn summary(manifest: &Value, name: &str, key: &str) -> usize {
    manifest["summary"][name][key]
        .as_u64()
        .unwrap_or_else(|| panic!("summary {name} {key}")) as usize
}

/// Every case encodes to the chunk numcodecs decoded (its hash), which our decoder decodes
/// too; headers are numcodecs'; the byte-identical counts are make.py's.
#[test]
fn ours_are_what_numcodecs_verified() {
    let manifest = manifest();
    assert_eq!(
        manifest["checked"],
        Value::Bool(true),
        "make.py --check has not verified our chunks"
    );
    let mut failures = Vec::new();
    #[derive(Default, Debug)]
    struct Count {
        cases: usize,
        identical: usize,
        memcpyed_differs: usize,
        ours_bytes: usize,
        theirs_bytes: usize,
    }
    let mut counts = HashMap::<String, Count>::new();
    for case in cases(&manifest) {
        let n = case.data.len();
        let chunk = blosc::encode(&case.data, case.params).expect(&case.id);
        let chunk_hash = hash(&chunk);
        if Some(&chunk_hash) != case.ours_hash.as_ref() {
            failures.push(format!(
                "{}: our chunk is not the one numcodecs verified",
                case.id
            ));
        }
        // Our decoder reads it, with and without the size, and through the codec.
        for (expected, limit) in [(Some(n), n), (None, DEFAULT_LIMIT)] {
            match blosc::decode(&chunk, expected, limit) {
                Ok(out) if out == case.data => {}
                other => {
                    failures.push(format!("{}: decoded {:?}", case.id, other.map(|o| o.len())))
                }
            }
        }
        let codec = BytesCodec::Blosc(case.params);
        assert_eq!(
            codec.encode(&case.data).expect(&case.id),
            chunk,
            "{}",
            case.id
        );
        // The header: numcodecs' but for whether the chunk is stored memcpyed, which may
        // differ where the compressors inside differ (they fit the input's size or not).
        let ours = header(&chunk);
        let theirs = case.theirs_header;
        let flags_differ = ours[0] ^ theirs[0];
        let memcpyed_differs = flags_differ == MEMCPYED;
        if (flags_differ != 0 && !memcpyed_differs) || ours[1..4] != theirs[1..4] {
            failures.push(format!(
                "{}: header {ours:?}, numcodecs' {theirs:?}",
                case.id
            ));
        }
        assert!(ours[4] == chunk.len() && ours[4] <= n + 16, "{}", case.id);
        // Stored memcpyed both, or blosclz's streams: the same bytes.
        let identical = chunk_hash == case.theirs_hash;
        if ours[0] & MEMCPYED != 0 && theirs[0] & MEMCPYED != 0 && !identical {
            failures.push(format!("{}: memcpyed, yet not numcodecs' bytes", case.id));
        }
        if case.cname == "blosclz" && !identical {
            failures.push(format!("{}: blosclz, yet not numcodecs' bytes", case.id));
        }
        let count = counts.entry(case.cname.clone()).or_default();
        count.cases += 1;
        count.identical += usize::from(identical);
        count.memcpyed_differs += usize::from(memcpyed_differs);
        count.ours_bytes += chunk.len();
        count.theirs_bytes += theirs[4];
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(40)].join("\n")
    );
    for (name, _) in BloscCompressor::ALL {
        let c = &counts[name];
        let expected = [
            ("cases", c.cases),
            ("identical", c.identical),
            ("memcpyed_differs", c.memcpyed_differs),
            ("ours_bytes", c.ours_bytes),
            ("theirs_bytes", c.theirs_bytes),
        ];
        for (key, value) in expected {
            assert_eq!(value, summary(&manifest, name, key), "{name} {key}");
        }
        eprintln!("{name}: {c:?}");
    }
}

/// Smooth float64 data (make.py's recipe), byte-shuffled, every level: our chunks are within
/// 10% of numcodecs' size for lz4 and zstd, blosclz's the same size (they are the same bytes).
#[test]
fn sizes_on_smooth_float64_are_numcodecs_like() {
    let manifest = manifest();
    for case in cases(&manifest) {
        if !case.id.starts_with("levels/") || case.params.clevel == 0 {
            continue;
        }
        let ours = blosc::encode(&case.data, case.params)
            .expect(&case.id)
            .len();
        let theirs = case.theirs_header[4];
        let ratio = ours as f64 / theirs as f64;
        // lz4hc: lz4_flex has no high-compression search (c-blosc's lz4hc is up to 1.4x
        // smaller here); zlib: miniz_oxide's level 2 is 1.45x zlib's.
        let within = match case.params.cname {
            BloscCompressor::BloscLz => ratio == 1.0,
            BloscCompressor::Lz4 | BloscCompressor::Zstd => ratio < 1.1,
            BloscCompressor::Lz4Hc | BloscCompressor::Zlib => ratio < 1.5,
        };
        assert!(within, "{}: {ours} bytes, numcodecs {theirs}", case.id);
    }
}

fn round_trip(data: &[u8], p: BloscParams) {
    let chunk = blosc::encode(data, p).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    assert!(chunk.len() <= data.len() + 16, "{p:?}");
    let back = blosc::decode(&chunk, Some(data.len()), data.len())
        .unwrap_or_else(|e| panic!("{p:?}: {e}"));
    assert!(
        back == data,
        "{p:?}: {} bytes round-trip to other bytes",
        data.len()
    );
}

/// Our encoder, then our decoder, gives the input back, for random inputs and parameters.
#[test]
fn random_parameters_round_trip() {
    use proptest::prelude::*;
    let strategy = (
        0usize..5,
        0u8..=9,
        0usize..4,
        prop_oneof![
            Just(1usize),
            Just(2),
            Just(3),
            Just(4),
            Just(8),
            Just(12),
            Just(16),
            1usize..300
        ],
        prop_oneof![Just(0usize), 1usize..70_000],
        0usize..4,
        0usize..200_000,
        any::<u64>(),
    );
    let config = ProptestConfig {
        cases: 300,
        ..ProptestConfig::default()
    };
    proptest!(config, |((c, clevel, s, typesize, blocksize, kind, n, seed) in strategy)| {
        let n = if seed % 3 == 0 { n % 1000 } else { n };
        let data = match kind {
            0 => smooth(n, typesize.min(20)),
            1 => random_bytes(n, seed),
            2 => vec![(seed & 255) as u8; n],
            _ => {
                // Runs of repeated random bytes, and far repeats.
                let noise = random_bytes(n, seed);
                (0..n).map(|i| noise[(i / 7) % 9000]).collect()
            }
        };
        let p = BloscParams {
            cname: BloscCompressor::ALL[c].1,
            clevel,
            shuffle: [BloscShuffle::None, BloscShuffle::Byte, BloscShuffle::Bit, BloscShuffle::Auto][s],
            typesize,
            blocksize,
        };
        round_trip(&data, p);
    });
}

/// Every compressor, filter and level on a few inputs that exercise the ends: lengths around
/// 128, blocks just over a multiple of the type size, long runs.
#[test]
fn edge_lengths_round_trip() {
    for (name, c) in BloscCompressor::ALL {
        for shuffle in [
            BloscShuffle::None,
            BloscShuffle::Byte,
            BloscShuffle::Bit,
            BloscShuffle::Auto,
        ] {
            for typesize in [1, 2, 4, 7, 8, 16, 17] {
                for n in [
                    0,
                    1,
                    15,
                    16,
                    17,
                    66,
                    127,
                    128,
                    129,
                    1000,
                    8 * 128 * typesize + 5,
                ] {
                    for clevel in [0, 1, 9] {
                        for data in [smooth(n, typesize), random_bytes(n, n as u64), vec![7; n]] {
                            let p = BloscParams {
                                cname: c,
                                clevel,
                                shuffle,
                                typesize,
                                blocksize: if n % 2 == 0 { 0 } else { 256 },
                            };
                            round_trip(&data, p);
                        }
                    }
                }
            }
        }
        eprintln!("{name} ok");
    }
}

/// An input over blosc's limit (2^31 - 1 - 16 bytes) and a level over 9 are errors, not
/// panics.
#[test]
fn errors_not_panics() {
    let p = BloscParams {
        cname: BloscCompressor::Lz4,
        clevel: 5,
        shuffle: BloscShuffle::Byte,
        typesize: 4,
        blocksize: 0,
    };
    // Zero pages, never touched: the size alone is refused.
    let big = vec![0u8; (i32::MAX as usize) - 15];
    let e = blosc::encode(&big, p).expect_err("over the limit");
    assert_eq!(e.code(), "INVALID_CONFIG", "{e}");
    drop(big);
    let e = blosc::encode(&[0; 1000], BloscParams { clevel: 10, ..p }).expect_err("clevel 10");
    assert_eq!(e.code(), "INVALID_CONFIG", "{e}");
}

/// Smooth float64 whose every mantissa bit varies (a cubic), for the speed measurement.
fn cubic(count: usize) -> Vec<u8> {
    (0..count)
        .flat_map(|i| {
            let x = i as f64 * 0.001;
            (((3.0 * x - 2.0) * x + 1.0) * x).to_le_bytes()
        })
        .collect()
}

/// Encoding speed, in a release build (`cargo test --profile release-compress --features
/// compress --test blosc_encode -- --ignored --nocapture encode_speed`): 4 MiB of float64,
/// make.py's smooth ramp (`100 + 0.001 i`) and a cubic of `0.001 i` (Python: the same
/// numpy expressions), byte- and bit-shuffled, level 5; and the filters alone.
#[test]
#[ignore = "a measurement"]
fn encode_speed() {
    let count = (4 << 20) / 8;
    let time = |rounds: usize, f: &mut dyn FnMut() -> usize| {
        let mut best = f64::MAX;
        let mut size = 0;
        for _ in 0..rounds {
            let start = std::time::Instant::now();
            size = f();
            best = best.min(start.elapsed().as_secs_f64());
        }
        (best, size)
    };
    for (dname, data) in [("ramp", smooth(count * 8, 8)), ("cubic", cubic(count))] {
        let mb = data.len() as f64 / 1e6;
        let (s, _) = time(20, &mut || {
            BytesCodec::Shuffle(8).encode(&data).unwrap().len()
        });
        eprintln!(
            "{dname:5} byte shuffle alone (numcodecs' shuffle codec): {:7.1} MB/s",
            mb / s
        );
        for (name, c) in BloscCompressor::ALL {
            for shuffle in [BloscShuffle::Byte, BloscShuffle::Bit] {
                let p = BloscParams {
                    cname: c,
                    clevel: 5,
                    shuffle,
                    typesize: 8,
                    blocksize: 0,
                };
                let slow = matches!(c, BloscCompressor::Zlib | BloscCompressor::Lz4Hc);
                let (best, size) = time(if slow { 3 } else { 10 }, &mut || {
                    blosc::encode(&data, p).unwrap().len()
                });
                let chunk = blosc::encode(&data, p).unwrap();
                let (decode, _) = time(5, &mut || {
                    blosc::decode(&chunk, Some(data.len()), data.len())
                        .unwrap()
                        .len()
                });
                assert!(blosc::decode(&chunk, Some(data.len()), data.len()).unwrap() == data);
                eprintln!(
                    "{dname:5} {name:8} {:4}: encode {:7.1} MB/s, {size} bytes (ratio {:.1}); decode {:7.1} MB/s",
                    format!("{shuffle:?}"),
                    mb / best,
                    data.len() as f64 / size as f64,
                    mb / decode
                );
            }
        }
    }
}
