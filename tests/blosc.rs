#![cfg(all(feature = "compress", not(target_arch = "wasm32")))]
//! blosc 1 decoding against numcodecs 0.17.1 (c-blosc 1.21): every chunk of
//! tests/fixtures/compress/blosc/ (written by its make.py) decodes to what numcodecs decodes it
//! to; damaged and hostile chunks give CORRUPT_CHUNK errors, never a panic.

use std::path::PathBuf;

mod common;
use common::{fnv1a64, random_bytes};

use serde_json::Value;
use zarr_wasm_codecs::codec::bytes_to_bytes::{blosc, BytesCodec, DEFAULT_LIMIT};
use zarr_wasm_codecs::error::Error;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/compress/blosc")
}

struct Case {
    id: String,
    chunk: Vec<u8>,
    data: Vec<u8>,
}

/// Every fixture, with its decoded bytes regenerated from its recipe (checked against the
/// hash of what numcodecs decoded).
fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest.json");
    let manifest: Value = serde_json::from_str(&text).expect("manifest is JSON");
    let mut files = std::collections::HashMap::new();
    let mut out = Vec::new();
    for case in manifest["cases"].as_array().expect("cases") {
        let id = case["id"].as_str().expect("id").to_string();
        let file = case["file"].as_str().expect("file");
        let bytes = files
            .entry(file.to_string())
            .or_insert_with(|| std::fs::read(dir().join(file)).expect("chunk file"));
        let at = case["offset"].as_u64().expect("offset") as usize;
        let len = case["length"].as_u64().expect("length") as usize;
        let chunk = bytes[at..at + len].to_vec();
        let data = recipe(&case["data"]);
        assert_eq!(
            format!("{:016x}", fnv1a64(&data)),
            case["fnv1a64"].as_str().expect("hash"),
            "{id}: the recipe does not give what numcodecs decoded"
        );
        out.push(Case { id, chunk, data });
    }
    assert!(out.len() > 700, "{} cases", out.len());
    out
}

fn ramp(n: usize, t: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + t);
    for i in 0..n.div_ceil(t) {
        match t {
            2 => out.extend_from_slice(&((3 * i as i64 - 2000) as i16).to_le_bytes()),
            4 => out.extend_from_slice(&((0.5 * i as f64) as f32).to_le_bytes()),
            8 => out.extend_from_slice(&(0.25 * i as f64 - 100.0).to_le_bytes()),
            1 => out.push((i / 4 % 256) as u8),
            _ => {
                let word = (7 * i as u64).to_le_bytes();
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
    let t = spec["typesize"].as_u64().expect("typesize") as usize;
    let seed = spec["seed"].as_u64().unwrap_or(0);
    match spec["kind"].as_str().expect("kind") {
        "ramp" => ramp(n, t),
        "random" => random_bytes(n, seed),
        "mixed" => {
            let mut out = ramp(n, t);
            out[n / 2..].copy_from_slice(&random_bytes(n, seed)[n / 2..]);
            out
        }
        "noisy" => {
            let noise = random_bytes(n, seed);
            let mut out = ramp(n, t);
            for (p, byte) in out.iter_mut().enumerate() {
                if t == 1 {
                    *byte = (*byte & 0xf0) | (noise[p] & 0x0f);
                } else if p % t < t / 2 {
                    *byte = noise[p];
                }
            }
            out
        }
        other => panic!("unknown recipe {other}"),
    }
}

fn header(chunk: &[u8]) -> (u8, usize, usize, usize, usize) {
    let word = |at: usize| u32::from_le_bytes(chunk[at..at + 4].try_into().unwrap()) as usize;
    (chunk[2], usize::from(chunk[3]), word(4), word(8), word(12))
}

fn put(chunk: &mut [u8], at: usize, value: u32) {
    chunk[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Decodes, with and without the expected size; fails unless both give CORRUPT_CHUNK.
fn refused(chunk: &[u8], expected: usize) -> Result<(), String> {
    for (exp, limit) in [(Some(expected), expected), (None, DEFAULT_LIMIT)] {
        match blosc::decode(chunk, exp, limit) {
            Err(e) if e.code() == "CORRUPT_CHUNK" => {}
            Err(e) => return Err(format!("{} error: {e}", e.code())),
            Ok(out) => return Err(format!("decoded to {} bytes", out.len())),
        }
    }
    Ok(())
}

/// A stream of a compressed chunk: where its bytes start, how many, whether stored raw.
type Stream = (usize, usize, bool);

/// Where each block's streams lie in a compressed chunk: (block start, its streams),
/// following the split rule of README_HEADER.rst / blosc.c.
fn streams(chunk: &[u8]) -> Vec<(usize, Vec<Stream>)> {
    let (flags, t, nbytes, bs, _) = header(chunk);
    let nblocks = nbytes.div_ceil(bs);
    let word = |at: usize| u32::from_le_bytes(chunk[at..at + 4].try_into().unwrap()) as usize;
    (0..nblocks)
        .map(|j| {
            let size = if j + 1 < nblocks { bs } else { nbytes - j * bs };
            let split = flags & 0x10 == 0 && t <= 16 && size / t >= 128 && size == bs;
            let parts = if split { t } else { 1 };
            let start = word(16 + 4 * j);
            let mut at = start;
            let list = (0..parts)
                .map(|_| {
                    let csize = word(at);
                    let s = (at + 4, csize, csize == size / parts);
                    at += 4 + csize;
                    s
                })
                .collect();
            (start, list)
        })
        .collect()
}

fn compressed(case: &Case) -> bool {
    let (flags, _, nbytes, _, _) = header(&case.chunk);
    nbytes > 0 && flags & 0x02 == 0
}

/// make.py counts what its chunks exercise; every part of the format must be there (a
/// regenerated set that lost one fails here).
#[test]
fn fixtures_cover_the_format() {
    let text = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest.json");
    let manifest: Value = serde_json::from_str(&text).expect("manifest is JSON");
    let coverage = manifest["coverage"].as_object().expect("coverage");
    for key in [
        "compressed chunks, blosclz",
        "compressed chunks, lz4",
        "compressed chunks, zlib",
        "compressed chunks, zstd",
        "memcpyed chunks",
        "partial last blocks",
        "blocks split into several streams",
        "streams stored raw",
        "byte-shuffled blocks",
        "byte-shuffled blocks with a partial element",
        "bitshuffled blocks",
        "bitshuffled blocks with a partial element",
        "bitshuffle blocks left unfiltered (element count not a multiple of 8)",
        "chunks with blocks out of order",
        "blosclz far matches",
    ] {
        let count = coverage.get(key).and_then(Value::as_u64).unwrap_or(0);
        assert!(count > 0, "no fixture has {key}");
    }
    // lz4hc shares lz4's compressor code: its cases are there by name.
    assert!(cases().iter().any(|c| c.id.starts_with("lz4hc/")));
}

#[test]
fn fixtures_decode_as_numcodecs_decodes_them() {
    let cases = cases();
    let mut failures = Vec::new();
    for case in &cases {
        let n = case.data.len();
        let results = [
            blosc::decode(&case.chunk, Some(n), n),
            blosc::decode(&case.chunk, None, DEFAULT_LIMIT),
            blosc::decode(&case.chunk, None, n),
            BytesCodec::from_v3_name("blosc")
                .unwrap()
                .decode(&case.chunk, Some(n), DEFAULT_LIMIT),
        ];
        for (way, result) in results.into_iter().enumerate() {
            match result {
                Ok(out) if out == case.data => {}
                Ok(out) => {
                    let first = out.iter().zip(&case.data).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{} (way {way}): {} bytes, first difference at {first:?}",
                        case.id,
                        out.len()
                    ));
                }
                Err(e) => failures.push(format!("{} (way {way}): {e}", case.id)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} decodings failed:\n{}",
        failures.len(),
        4 * cases.len(),
        failures[..failures.len().min(40)].join("\n")
    );
    eprintln!("{} fixtures decoded 4 ways each", cases.len());
}

#[test]
fn the_limit_and_the_expected_size_are_enforced() {
    let cases = cases();
    let mut checked = 0;
    for case in cases.iter().filter(|c| !c.data.is_empty()).step_by(7) {
        let n = case.data.len();
        for expected in [n - 1, n + 1, 0, 2 * n] {
            if expected == n {
                continue;
            }
            for limit in [expected, DEFAULT_LIMIT] {
                match blosc::decode(&case.chunk, Some(expected), limit) {
                    Err(e) if e.code() == "CORRUPT_CHUNK" => {}
                    other => panic!("{}: expected {expected}: {other:?}", case.id),
                }
            }
            checked += 1;
        }
        let over = blosc::decode(&case.chunk, None, n - 1).expect_err(&case.id);
        assert_eq!(over.code(), "CORRUPT_CHUNK", "{}", case.id);
    }
    // A header declaring 2 GiB, with the chunk's true size expected, or a small limit: refused
    // before anything that size is allocated (the test would run out of memory otherwise).
    let mut chunk = vec![2, 1, 0x01, 4];
    chunk.extend_from_slice(&0x7fff_ffe0u32.to_le_bytes());
    chunk.extend_from_slice(&0x7fff_ffe0u32.to_le_bytes());
    chunk.extend_from_slice(&36u32.to_le_bytes());
    chunk.extend_from_slice(&[0; 20]);
    assert_eq!(
        blosc::decode(&chunk, Some(100), 100).unwrap_err().code(),
        "CORRUPT_CHUNK"
    );
    assert_eq!(
        blosc::decode(&chunk, None, 1 << 20).unwrap_err().code(),
        "CORRUPT_CHUNK"
    );
    eprintln!("{checked} wrong expected sizes refused");
}

#[test]
fn empty_and_truncated_chunks_are_refused() {
    assert_eq!(
        blosc::decode(&[], None, DEFAULT_LIMIT).unwrap_err().code(),
        "CORRUPT_CHUNK"
    );
    assert_eq!(
        blosc::decode(&[], Some(0), 0).unwrap_err().code(),
        "CORRUPT_CHUNK"
    );
    let cases = cases();
    let mut checked = 0;
    for case in cases.iter().filter(|c| !c.data.is_empty()).step_by(5) {
        let n = case.data.len();
        let len = case.chunk.len();
        for cut in (0..len).step_by(len / 97 + 1).chain([len - 1]) {
            let short = &case.chunk[..cut];
            refused(short, n).unwrap_or_else(|e| panic!("{} cut to {cut}: {e}", case.id));
            // With the header's compressed size made to agree, the damage is found further in.
            if cut >= 16 {
                let mut patched = short.to_vec();
                put(&mut patched, 12, cut as u32);
                refused(&patched, n)
                    .unwrap_or_else(|e| panic!("{} cut to {cut}, cbytes patched: {e}", case.id));
            }
            checked += 1;
        }
    }
    eprintln!("{checked} truncations refused");
}

#[test]
fn a_compressed_size_other_than_the_input_is_refused() {
    let mut checked = 0;
    for case in cases().iter().step_by(3) {
        let n = case.data.len();
        let len = case.chunk.len() as u32;
        for cbytes in [len - 1, len + 1, 0, u32::MAX] {
            let mut chunk = case.chunk.clone();
            put(&mut chunk, 12, cbytes);
            refused(&chunk, n).unwrap_or_else(|e| panic!("{} cbytes {cbytes}: {e}", case.id));
        }
        let mut longer = case.chunk.clone();
        longer.push(0);
        refused(&longer, n).unwrap_or_else(|e| panic!("{} with a byte more: {e}", case.id));
        // A byte more that the header counts too: left over after the last block.
        if compressed(case) {
            put(&mut longer, 12, len + 1);
            refused(&longer, n).unwrap_or_else(|e| panic!("{} with a byte more: {e}", case.id));
        }
        checked += 1;
    }
    eprintln!("{checked} chunks checked");
}

#[test]
fn corrupt_block_start_tables_are_refused() {
    let cases = cases();
    let mut checked = 0;
    for case in cases.iter().filter(|c| compressed(c)) {
        let n = case.data.len();
        let (_, _, nbytes, bs, cbytes) = header(&case.chunk);
        let nblocks = nbytes.div_ceil(bs);
        let table_end = 16 + 4 * nblocks;
        let blocks = streams(&case.chunk);
        for j in 0..nblocks.min(4) {
            let start = blocks[j].0;
            let mut bad = vec![
                0,
                15,
                table_end - 1,
                cbytes,
                cbytes - 1,
                cbytes + 100,
                u32::MAX as usize,
            ];
            bad.extend([start + 1, start - 1, start + 4]);
            if nblocks > 1 {
                // Another block's start (two blocks read the same streams, one is never read).
                bad.push(blocks[(j + 1) % nblocks].0);
            }
            for value in bad {
                if value == start {
                    continue;
                }
                let mut chunk = case.chunk.clone();
                put(&mut chunk, 16 + 4 * j, value as u32);
                refused(&chunk, n).unwrap_or_else(|e| {
                    panic!(
                        "{}: block {j} starting at {value} not {start}: {e}",
                        case.id
                    )
                });
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
    eprintln!("{checked} corrupt block starts refused");
}

#[test]
fn garbage_in_compressed_streams_is_refused() {
    let cases = cases();
    let mut checked = 0;
    for case in cases.iter().filter(|c| compressed(c)) {
        let n = case.data.len();
        for (j, (_, list)) in streams(&case.chunk).iter().enumerate().take(3) {
            for (s, &(at, csize, raw)) in list.iter().enumerate().take(3) {
                if raw || csize < 4 {
                    continue;
                }
                let noise = random_bytes(csize, (j * 31 + s) as u64);
                let patterns: [&dyn Fn(usize) -> u8; 3] = [&|_| 0xff, &|i| noise[i], &|i| {
                    if i % 2 == 0 {
                        0xe0
                    } else {
                        0x00
                    }
                }];
                for (p, pattern) in patterns.iter().enumerate() {
                    let mut chunk = case.chunk.clone();
                    for (i, byte) in chunk[at..at + csize].iter_mut().enumerate() {
                        *byte = pattern(i);
                    }
                    refused(&chunk, n).unwrap_or_else(|e| {
                        panic!("{}: block {j} stream {s} garbage {p}: {e}", case.id)
                    });
                    checked += 1;
                }
                // A stream's size one off: its bytes and the next stream's are misread.
                for delta in [-1i64, 1] {
                    let mut chunk = case.chunk.clone();
                    put(&mut chunk, at - 4, (csize as i64 + delta) as u32);
                    refused(&chunk, n).unwrap_or_else(|e| {
                        panic!("{}: block {j} stream {s} size {delta:+}: {e}", case.id)
                    });
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
    eprintln!("{checked} damaged streams refused");
}

#[test]
fn hostile_headers_are_refused() {
    let cases = cases();
    let base = cases
        .iter()
        .find(|c| c.id == "lz4/shuffle/t4/b256/ramp/c5")
        .expect("case");
    let memcpyed = cases
        .iter()
        .find(|c| c.id == "clevel0/shuffle/t4")
        .expect("case");
    let n = base.data.len();
    type Edit<'a> = (&'a str, &'a Case, Box<dyn Fn(&mut Vec<u8>) + 'a>);
    let edits: Vec<Edit> = vec![
        ("version 1", base, Box::new(|c| c[0] = 1)),
        ("version 3", base, Box::new(|c| c[0] = 3)),
        ("compressor format version 2", base, Box::new(|c| c[1] = 2)),
        ("reserved flag", base, Box::new(|c| c[2] |= 0x08)),
        ("snappy", base, Box::new(|c| c[2] = (c[2] & 0x1f) | 2 << 5)),
        (
            "compressor 5",
            base,
            Box::new(|c| c[2] = (c[2] & 0x1f) | 5 << 5),
        ),
        (
            "compressor 7",
            base,
            Box::new(|c| c[2] = (c[2] & 0x1f) | 7 << 5),
        ),
        (
            "zstd for lz4",
            base,
            Box::new(|c| c[2] = (c[2] & 0x1f) | 4 << 5),
        ),
        (
            "zlib for lz4",
            base,
            Box::new(|c| c[2] = (c[2] & 0x1f) | 3 << 5),
        ),
        ("blosclz for lz4", base, Box::new(|c| c[2] &= 0x1f)),
        ("type size 0", base, Box::new(|c| c[3] = 0)),
        ("block size 0", base, Box::new(|c| put(c, 8, 0))),
        (
            "block size over nbytes",
            base,
            Box::new(|c| put(c, 8, n as u32 + 1)),
        ),
        ("block size 2^31", base, Box::new(|c| put(c, 8, 1 << 31))),
        ("block size 1", base, Box::new(|c| put(c, 8, 1))),
        ("block size 255", base, Box::new(|c| put(c, 8, 255))),
        (
            "nbytes 2^31 - 1",
            base,
            Box::new(|c| put(c, 4, i32::MAX as u32)),
        ),
        (
            "memcpyed flag on compressed data",
            base,
            Box::new(|c| c[2] |= 0x02),
        ),
        (
            "memcpyed, nbytes one more",
            memcpyed,
            Box::new(|c| put(c, 4, n as u32 + 1)),
        ),
        (
            "memcpyed, nbytes one less",
            memcpyed,
            Box::new(|c| put(c, 4, n as u32 - 1)),
        ),
        (
            "memcpyed, block size 0",
            memcpyed,
            Box::new(|c| put(c, 8, 0)),
        ),
        ("memcpyed, type size 0", memcpyed, Box::new(|c| c[3] = 0)),
        (
            "a table longer than the chunk",
            base,
            Box::new(|c| put(c, 8, 1)),
        ),
        (
            "a stream size of 2^32 - 1",
            base,
            Box::new(|c| {
                let at = u32::from_le_bytes(c[16..20].try_into().unwrap()) as usize;
                put(c, at, u32::MAX);
            }),
        ),
        (
            "a stream size of 2^31",
            base,
            Box::new(|c| {
                let at = u32::from_le_bytes(c[16..20].try_into().unwrap()) as usize;
                put(c, at, 1 << 31);
            }),
        ),
    ];
    for (what, case, edit) in &edits {
        let mut chunk = case.chunk.clone();
        edit(&mut chunk);
        let (_, _, nbytes, _, _) = header(&chunk);
        for expected in [n, nbytes] {
            match blosc::decode(&chunk, Some(expected), expected.max(n)) {
                Err(Error::CorruptChunk { codec: "blosc", .. }) => {}
                other => panic!("{what}, expected {expected}: {other:?}"),
            }
        }
        match blosc::decode(&chunk, None, DEFAULT_LIMIT) {
            Err(Error::CorruptChunk { codec: "blosc", .. }) => {}
            other => panic!("{what}: {other:?}"),
        }
    }
    // A shuffled chunk whose type size does not divide a split block: its streams cannot
    // have equal sizes (c-blosc never writes one).
    let split = cases
        .iter()
        .find(|c| c.id == "lz4/shuffle/t4/b1536/ramp/c9")
        .expect("case");
    let mut chunk = split.chunk.clone();
    chunk[3] = 7;
    refused(&chunk, split.data.len()).unwrap();
    eprintln!("{} hostile headers refused", edits.len() + 1);
}

/// Deterministic random damage to every compressed fixture: decoding never panics, and gives
/// either CORRUPT_CHUNK or the declared number of bytes. (blosc 1 has no checksum: a changed
/// literal byte, or a changed raw stream, decodes to other data without error, in c-blosc
/// too; zlib streams carry an Adler-32 and zstd frames their sizes, which catch more.)
#[test]
fn random_damage_never_panics() {
    let cases = cases();
    let mut state = 0x1234_5678u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut refused_count, mut decoded) = (0, 0);
    for case in cases.iter().filter(|c| compressed(c)) {
        let n = case.data.len();
        for _ in 0..40 {
            let mut chunk = case.chunk.clone();
            let len = chunk.len();
            for _ in 0..1 + next() % 3 {
                let at = (next() as usize) % len;
                match next() % 4 {
                    0 => chunk[at] ^= 1 << (next() % 8),
                    1 => chunk[at] = next() as u8,
                    2 => chunk[at] = chunk[at].wrapping_add(1),
                    _ => chunk[at] = 0xff,
                }
            }
            let (_, _, nbytes, _, _) = header(&chunk);
            for (expected, limit) in [(Some(n), n), (None, 4 * n)] {
                match blosc::decode(&chunk, expected, limit) {
                    Ok(out) => {
                        assert_eq!(out.len(), nbytes, "{}", case.id);
                        assert!(out.len() <= limit, "{}", case.id);
                        decoded += 1;
                    }
                    Err(e) => {
                        assert_eq!(e.code(), "CORRUPT_CHUNK", "{}: {e}", case.id);
                        refused_count += 1;
                    }
                }
            }
        }
    }
    eprintln!("random damage: {refused_count} refused, {decoded} decoded (undetectable damage)");
}
