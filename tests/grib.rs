//! kerchunk's `grib` codec against ecCodes 2.50 (tests/fixtures/grib, written by its make.py):
//! every message of the manifest decodes, through the codec as zarr builds it, to the values
//! kerchunk's codec gives (float64 and float32, NaN where NaN), and to the latitudes and
//! longitudes it gives, bit for bit. Messages damaged in every way a message can be (cut short,
//! sections of the wrong length, impossible bits per value, a data section or a bitmap shorter
//! than the grid needs, a grid claiming more points than it holds) are refused CORRUPT_CHUNK,
//! never a panic; templates the decoder does not read are refused UNSUPPORTED, naming them.

#![cfg(all(feature = "grib", not(target_arch = "wasm32")))]

use std::fs;
use std::path::PathBuf;

use zarr_wasm_codecs::array::ArrayData;
use zarr_wasm_codecs::codec::grib::message::Message;
use zarr_wasm_codecs::codec::table::Module;
use zarr_wasm_codecs::codec::whole_chunk_codec;
use zarr_wasm_codecs::dtype::DataType;
use zarr_wasm_codecs::json;
use zarr_wasm_codecs::Error;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/grib")
}

/// A gzip member's contents (the expected values are stored gzipped).
fn gunzip(gz: &[u8]) -> Vec<u8> {
    assert_eq!(&gz[..3], &[0x1f, 0x8b, 8], "a gzip member");
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + u16::from_le_bytes([gz[at], gz[at + 1]]) as usize;
    }
    for bit in [8, 16] {
        if flags & bit != 0 {
            at += gz[at..].iter().position(|&b| b == 0).unwrap() + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    miniz_oxide::inflate::decompress_to_vec(&gz[at..]).expect("deflate")
}

fn read_f64(path: &str) -> Vec<f64> {
    let raw = gunzip(&fs::read(dir().join(path)).unwrap());
    raw.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn read_f32(path: &str) -> Vec<f32> {
    let raw = gunzip(&fs::read(dir().join(path)).unwrap());
    raw.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

struct Fixture {
    name: String,
    bytes: Vec<u8>,
    var: String,
    template: u64,
    points: usize,
    expected: serde_json::Value,
}

fn fixtures() -> Vec<Fixture> {
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir().join("manifest.json")).unwrap()).unwrap();
    let mut out = Vec::new();
    for m in manifest["messages"].as_array().unwrap() {
        let file = m["file"].as_str().unwrap();
        let offset = m["offset"].as_u64().unwrap() as usize;
        let length = m["length"].as_u64().unwrap() as usize;
        let whole = fs::read(dir().join(file)).unwrap();
        out.push(Fixture {
            name: format!("{file}#{}", m["index"]),
            bytes: whole[offset..offset + length].to_vec(),
            var: m["var"].as_str().unwrap_or("values").to_string(),
            template: m["keys"]["dataRepresentationTemplateNumber"]
                .as_u64()
                .unwrap(),
            points: m["keys"]["numberOfDataPoints"].as_u64().unwrap() as usize,
            expected: m
                .get("expected")
                .cloned()
                .unwrap_or(serde_json::Value::Null),
        });
    }
    assert!(out.len() >= 60, "the manifest lists every message");
    out
}

/// The codec as zarr builds it from kerchunk's filter `{"id": "grib", "var": .., "dtype": ..}`.
fn decode(bytes: &[u8], config: &str, dtype: DataType, count: usize) -> Result<ArrayData, Error> {
    let config = json::parse(config).unwrap();
    let codec = whole_chunk_codec(Module::Grib, Some(&config), dtype, &[count]).unwrap()?;
    let mut out = ArrayData::Float64(Vec::new());
    codec.decode_into(bytes, &mut out)?;
    Ok(out)
}

fn same_f64(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

fn same_f32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

#[test]
fn every_message_decodes_to_kerchunks_values() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in fixtures() {
        let Some(path64) = f.expected.get("float64").and_then(|v| v.as_str()) else {
            continue;
        };
        let expected = read_f64(path64);
        let config = format!(r#"{{"var":"{}","dtype":"float64"}}"#, f.var);
        match decode(&f.bytes, &config, DataType::Float64, expected.len()) {
            Ok(ArrayData::Float64(v)) if same_f64(&v, &expected) => {}
            Ok(_) => failures.push(format!("{}: float64 values differ", f.name)),
            Err(e) => failures.push(format!("{}: {e}", f.name)),
        }
        // kerchunk's default dtype (float32), into a float32 array.
        let expected32 = read_f32(f.expected["float32"].as_str().unwrap());
        let config = format!(r#"{{"var":"{}"}}"#, f.var);
        match decode(&f.bytes, &config, DataType::Float32, expected32.len()) {
            Ok(ArrayData::Float32(v)) if same_f32(&v, &expected32) => {}
            Ok(_) => failures.push(format!("{}: float32 values differ", f.name)),
            Err(e) => failures.push(format!("{}: float32: {e}", f.name)),
        }
        checked += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 40, "{checked} messages checked");
}

#[test]
fn every_message_gives_kerchunks_coordinates() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for f in fixtures() {
        for var in ["latitude", "longitude"] {
            let Some(path) = f.expected.get(var).and_then(|v| v.as_str()) else {
                continue;
            };
            let expected = read_f64(path);
            let config = format!(r#"{{"var":"{var}"}}"#);
            match decode(&f.bytes, &config, DataType::Float64, f.points) {
                Ok(ArrayData::Float64(v)) if same_f64(&v, &expected) => checked += 1,
                Ok(_) => failures.push(format!("{}: {var} differs", f.name)),
                Err(e) => failures.push(format!("{}: {var}: {e}", f.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 100, "{checked} coordinate arrays checked");
}

/// The rotated, polar stereographic and Mercator grids of tests/fixtures/grib/grids.py: each
/// message's values, latitudes and longitudes are ecCodes' (bit for bit here, where Rust's maths
/// functions are glibc's, as ecCodes' are).
#[test]
fn rotated_mercator_and_polar_stereographic_grids_are_eccodes() {
    let manifest = json::parse(&fs::read_to_string(dir().join("grids.json")).unwrap()).unwrap();
    let file = fs::read(dir().join("grids.grib2")).unwrap();
    let messages = manifest.get("messages").and_then(|m| m.as_array()).unwrap();
    assert_eq!(messages.len(), 6);
    for m in messages {
        let name = m.get("name").and_then(|n| n.as_str()).unwrap();
        let at = m.get("offset").and_then(|n| n.as_u64()).unwrap() as usize;
        let len = m.get("length").and_then(|n| n.as_u64()).unwrap() as usize;
        let msg = Message::parse(&file[at..at + len]).unwrap();
        let expected = |k: &str| {
            read_f64(
                m.get("expected")
                    .and_then(|e| e.get(k))
                    .and_then(|p| p.as_str())
                    .unwrap(),
            )
        };
        assert!(
            same_f64(&msg.values().unwrap(), &expected("values")),
            "{name}: values"
        );
        assert!(
            same_f64(&msg.latitudes().unwrap(), &expected("latitude")),
            "{name}: latitudes"
        );
        assert!(
            same_f64(&msg.longitudes().unwrap(), &expected("longitude")),
            "{name}: longitudes"
        );
    }
}

// Damaged and unsupported messages, made from the fixtures.

/// A message's sections after Section 0, as (number, whole section).
fn sections(m: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 16;
    while &m[at..at + 4] != b"7777" {
        let len = u32::from_be_bytes(m[at..at + 4].try_into().unwrap()) as usize;
        out.push((m[at + 4], m[at..at + len].to_vec()));
        at += len;
    }
    out
}

/// A message from `head`'s Section 0 and these sections, its total length set.
fn assemble(head: &[u8], sections: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut m = head[..16].to_vec();
    for (_, s) in sections {
        m.extend_from_slice(s);
    }
    m.extend_from_slice(b"7777");
    let total = m.len() as u64;
    m[8..16].copy_from_slice(&total.to_be_bytes());
    m
}

/// The message with section `number`'s octet `octet` (1-based) onward replaced by `bytes`.
fn patched(m: &[u8], number: u8, octet: usize, bytes: &[u8]) -> Vec<u8> {
    let mut secs = sections(m);
    let s = &mut secs.iter_mut().find(|(n, _)| *n == number).unwrap().1;
    s[octet - 1..octet - 1 + bytes.len()].copy_from_slice(bytes);
    assemble(m, &secs)
}

/// The message with section `number` shortened by `by` octets (its length octets too).
fn shortened(m: &[u8], number: u8, by: usize) -> Vec<u8> {
    let mut secs = sections(m);
    let s = &mut secs.iter_mut().find(|(n, _)| *n == number).unwrap().1;
    s.truncate(s.len() - by);
    let len = s.len() as u32;
    s[..4].copy_from_slice(&len.to_be_bytes());
    assemble(m, &secs)
}

/// Everything the message gives, through the message reader alone (so that no chunk length
/// check stands before the decoder's own).
fn read_all(m: &[u8]) -> Result<(), Error> {
    let msg = Message::parse(m)?;
    msg.values()?;
    msg.latitudes()?;
    msg.longitudes()?;
    Ok(())
}

fn code_of(m: &[u8]) -> &'static str {
    match read_all(m) {
        Ok(()) => "OK",
        Err(e) => e.code(),
    }
}

fn assert_corrupt(m: &[u8], what: &str) {
    let r = read_all(m);
    assert!(
        matches!(&r, Err(Error::CorruptChunk { .. })),
        "{what}: expected CORRUPT_CHUNK, got {r:?}"
    );
}

fn fixture(name: &str) -> Fixture {
    fixtures().into_iter().find(|f| f.name == name).unwrap()
}

/// One message of each template this decoder reads itself, with and without a bitmap.
fn own_templates() -> Vec<Fixture> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for f in fixtures() {
        let bitmap = sections(&f.bytes).iter().any(|(n, s)| *n == 6 && s[5] == 0);
        if [0, 2, 3, 4].contains(&f.template) && !seen.contains(&(f.template, bitmap)) {
            seen.push((f.template, bitmap));
            out.push(f);
        }
    }
    assert!(out.len() >= 7, "{} messages", out.len());
    out
}

/// A JPEG 2000 codestream whose header claims a larger image than the message's values is
/// refused before OpenJPEG allocates the image (a fuzzed message asked for gigabytes so).
#[test]
fn a_jpeg_2000_image_larger_than_the_field_is_refused_before_it_is_allocated() {
    let f = fixtures()
        .into_iter()
        .find(|f| f.template == 40)
        .expect("a JPEG 2000 message");
    let mut secs = sections(&f.bytes);
    let at = secs.iter().position(|(n, _)| *n == 7).unwrap();
    // SIZ: the marker, Lsiz and Rsiz (2 octets each), then Xsiz and Ysiz.
    let siz = secs[at]
        .1
        .windows(2)
        .position(|w| w == [0xFF, 0x51])
        .expect("a SIZ marker");
    for (xsiz, ysiz) in [(0x7FFF_FFFFu32, 0x7FFF_FFFFu32), (60_000, 60_000), (1, 1)] {
        let s7 = &mut secs[at].1;
        s7[siz + 6..siz + 10].copy_from_slice(&xsiz.to_be_bytes());
        s7[siz + 10..siz + 14].copy_from_slice(&ysiz.to_be_bytes());
        // One tile, as GRIB's encoders write: XTsiz and YTsiz the image's.
        s7[siz + 22..siz + 26].copy_from_slice(&xsiz.to_be_bytes());
        s7[siz + 26..siz + 30].copy_from_slice(&ysiz.to_be_bytes());
        let m = assemble(&f.bytes, &secs);
        let r = Message::parse(&m).and_then(|msg| msg.values());
        assert!(
            matches!(&r, Err(Error::CorruptChunk { .. })),
            "{xsiz} x {ysiz}: {r:?}"
        );
    }
}

#[test]
fn cut_messages_are_refused() {
    for f in fixtures() {
        let m = &f.bytes;
        let mut cuts: Vec<usize> = (0..m.len().min(200)).collect();
        cuts.extend((1..50).map(|i| m.len() * i / 50));
        cuts.extend(m.len() - 8..m.len());
        for cut in cuts {
            assert_corrupt(&m[..cut], &format!("{} cut at {cut}", f.name));
        }
        // One octet too many, or its end marker gone.
        let mut longer = m.clone();
        longer.push(0);
        assert_corrupt(&longer, &format!("{} with a trailing octet", f.name));
        let mut unmarked = m.clone();
        let end = unmarked.len() - 1;
        unmarked[end] = b'8';
        assert_corrupt(&unmarked, &format!("{} without 7777", f.name));
    }
}

#[test]
fn sections_of_the_wrong_length_are_refused() {
    for f in own_templates() {
        let m = &f.bytes;
        let mut at = 16;
        while &m[at..at + 4] != b"7777" {
            let len = u32::from_be_bytes(m[at..at + 4].try_into().unwrap());
            for wrong in [0, 1, 4, len + 1, len + 1000, u32::MAX] {
                let mut bad = m.clone();
                bad[at..at + 4].copy_from_slice(&wrong.to_be_bytes());
                assert_corrupt(
                    &bad,
                    &format!("{}: section at {at} of length {wrong}", f.name),
                );
            }
            at += len as usize;
        }
        // A total length that is not the message's.
        for wrong in [0u64, 16, m.len() as u64 - 1, m.len() as u64 + 1, u64::MAX] {
            let mut bad = m.clone();
            bad[8..16].copy_from_slice(&wrong.to_be_bytes());
            assert_corrupt(&bad, &format!("{}: total length {wrong}", f.name));
        }
        // Sections too short for their templates.
        for (number, by) in [(3u8, 10usize), (5, 5)] {
            let short = shortened(m, number, by);
            assert_eq!(
                code_of(&short),
                "CORRUPT_CHUNK",
                "{}: section {number} short",
                f.name
            );
        }
    }
}

#[test]
fn impossible_bits_per_value_are_refused() {
    for f in own_templates().into_iter().filter(|f| f.template != 4) {
        let limit = if f.template == 0 { 64 } else { 32 };
        for bits in [limit + 1, 100, 255] {
            let bad = patched(&f.bytes, 5, 20, &[bits as u8]);
            assert_corrupt(&bad, &format!("{}: {bits} bits per value", f.name));
        }
    }
    // Complex packing's group widths and lengths.
    for f in own_templates()
        .into_iter()
        .filter(|f| f.template == 2 || f.template == 3)
    {
        for (octet, what) in [
            (37, "width bits"),
            (47, "length bits"),
            (36, "width reference"),
        ] {
            let bad = patched(&f.bytes, 5, octet, &[200]);
            assert_corrupt(&bad, &format!("{}: {what} 200", f.name));
        }
    }
}

#[test]
fn a_data_section_or_bitmap_shorter_than_the_grid_is_refused() {
    for f in own_templates() {
        let data_len = sections(&f.bytes)
            .iter()
            .find(|(n, _)| *n == 7)
            .unwrap()
            .1
            .len();
        for by in [1, 2, 7, data_len / 2, data_len - 5] {
            assert_corrupt(
                &shortened(&f.bytes, 7, by),
                &format!("{}: section 7 less {by}", f.name),
            );
        }
        let s6 = sections(&f.bytes)
            .into_iter()
            .find(|(n, _)| *n == 6)
            .unwrap()
            .1;
        if s6[5] == 0 {
            for by in [1, s6.len() - 6] {
                assert_corrupt(
                    &shortened(&f.bytes, 6, by),
                    &format!("{}: bitmap less {by}", f.name),
                );
            }
            // A bitmap that sets more points than Section 7 codes.
            let mut secs = sections(&f.bytes);
            let s6 = &mut secs.iter_mut().find(|(n, _)| *n == 6).unwrap().1;
            s6[6..].fill(0xFF);
            assert_corrupt(
                &assemble(&f.bytes, &secs),
                &format!("{}: bitmap all set", f.name),
            );
        }
        // More values or points than the message holds: refused before anything is allocated.
        for count in [0x7FFF_FFFFu32, u32::MAX] {
            let more_values = patched(&f.bytes, 5, 6, &count.to_be_bytes());
            assert_ne!(code_of(&more_values), "OK", "{}: {count} values", f.name);
            let more_points = patched(&f.bytes, 3, 7, &count.to_be_bytes());
            assert_ne!(code_of(&more_points), "OK", "{}: {count} points", f.name);
            // Through the codec, the chunk's length stands first.
            let r = decode(&more_values, r#"{"var":"x"}"#, DataType::Float32, f.points);
            assert!(matches!(
                r,
                Err(Error::ChunkLength { .. } | Error::CorruptChunk { .. })
            ));
        }
    }
}

#[test]
fn damaged_headers_are_refused_without_panic() {
    // Every octet of the sections' headers and templates set to values that break them: the
    // reader may refuse (with a code) or read a different field, never panic or hang.
    for f in own_templates() {
        let head = f.bytes.len().min(300);
        for at in 0..head {
            for v in [0u8, 1, 0x7F, 0x80, 0xFF] {
                let mut bad = f.bytes.clone();
                bad[at] = v;
                let _ = code_of(&bad);
            }
        }
    }
}

#[test]
fn unsupported_templates_are_refused_naming_them() {
    let simple = fixture("simple.grib2#0");
    for n in [1u16, 50, 51, 61, 200, 40010] {
        let bad = patched(&simple.bytes, 5, 10, &n.to_be_bytes());
        let e = Message::parse(&bad).and_then(|m| m.values()).unwrap_err();
        assert_eq!(e.code(), "UNSUPPORTED");
        assert!(
            e.to_string()
                .contains(&format!("data representation template 5.{n}")),
            "{e}"
        );
    }
    // Another grid: its values are still read, its coordinates refused naming it.
    let expected = read_f64(simple.expected["float64"].as_str().unwrap());
    for n in [12u16, 40, 90, 101] {
        let other = patched(&simple.bytes, 3, 13, &n.to_be_bytes());
        let msg = Message::parse(&other).unwrap();
        assert!(
            same_f64(&msg.values().unwrap(), &expected),
            "values under template 3.{n}"
        );
        let e = msg.latitudes().unwrap_err();
        assert_eq!(e.code(), "UNSUPPORTED");
        assert!(
            e.to_string()
                .contains(&format!("grid definition template 3.{n}")),
            "{e}"
        );
    }
    // A bitmap defined elsewhere (254) or predefined, IEEE of 128 bits, differencing of order 3.
    let bad = patched(&simple.bytes, 6, 6, &[254]);
    assert_eq!(code_of(&bad), "UNSUPPORTED");
    let bad = patched(&simple.bytes, 6, 6, &[7]);
    assert_eq!(code_of(&bad), "UNSUPPORTED");
    let ieee = own_templates()
        .into_iter()
        .find(|f| f.template == 4)
        .unwrap();
    assert_eq!(code_of(&patched(&ieee.bytes, 5, 12, &[3])), "UNSUPPORTED");
    let spatial = own_templates()
        .into_iter()
        .find(|f| f.template == 3)
        .unwrap();
    assert_eq!(
        code_of(&patched(&spatial.bytes, 5, 48, &[3])),
        "UNSUPPORTED"
    );
    // GRIB edition 1.
    let mut edition1 = simple.bytes.clone();
    edition1[7] = 1;
    assert_eq!(code_of(&edition1), "UNSUPPORTED");
}

#[test]
fn a_message_of_several_fields_reads_as_its_first() {
    // ecCodes' handle on a message that repeats Sections 4-7 (or 3-7) is its first field.
    let a = fixture("simple.grib2#0");
    let b = fixture("simple.grib2#1");
    let expected = read_f64(a.expected["float64"].as_str().unwrap());
    for from in [4u8, 3] {
        let mut secs = sections(&a.bytes);
        secs.extend(sections(&b.bytes).into_iter().filter(|(n, _)| *n >= from));
        let multi = assemble(&a.bytes, &secs);
        let config = format!(r#"{{"var":"{}","dtype":"float64"}}"#, a.var);
        match decode(&multi, &config, DataType::Float64, expected.len()) {
            Ok(ArrayData::Float64(v)) => assert!(same_f64(&v, &expected)),
            other => panic!("{other:?}"),
        }
        // A repeated section 1 or a section 8 in the middle is not a field.
        let mut bad = sections(&a.bytes);
        bad.extend(sections(&b.bytes).into_iter().filter(|(n, _)| *n == 1));
        assert_corrupt(&assemble(&a.bytes, &bad), "section 1 after the first field");
    }
}
