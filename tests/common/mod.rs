//! Shared helpers for the fixture-driven tests.
#![allow(dead_code)]

use serde_json::Value;

/// A serde_json value (the tests build configurations with `json!`) as the crate's own JSON
/// value, through its text.
pub fn j(v: &Value) -> zarr_wasm_codecs::json::Value {
    zarr_wasm_codecs::json::parse(&v.to_string()).expect("serde_json writes JSON")
}

/// The crate's JSON value as a serde_json value, through its text.
pub fn sj(v: &zarr_wasm_codecs::json::Value) -> Value {
    serde_json::from_str(&v.to_string()).expect("the crate writes JSON")
}

/// The reference fixtures, compiled in so the same tests run natively and as wasm.
pub fn fixture(name: &str) -> Value {
    let text = match name {
        "chains.json" => include_str!("../fixtures/chains.json"),
        "scalars.json" => include_str!("../fixtures/scalars.json"),
        "zfp/cases.json" => include_str!("../fixtures/zfp/cases.json"),
        "zfpy/cases.json" => include_str!("../fixtures/zfpy/cases.json"),
        other => panic!("no fixture {other}"),
    };
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{name} is not JSON: {e}"))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex string {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// A field that is either absent, null, or a string.
pub fn opt_str<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Prints every failure and fails the test once, with a count.
pub struct Failures {
    items: Vec<String>,
    pub checked: usize,
}

impl Failures {
    pub fn new() -> Self {
        Self {
            items: Vec::new(),
            checked: 0,
        }
    }
    pub fn check(&mut self, ok: bool, msg: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            self.items.push(msg());
        }
    }
    pub fn finish(self, what: &str) {
        // In the panic message too: stderr does not reach the wasm test runner.
        let shown: Vec<String> = self
            .items
            .iter()
            .take(40)
            .map(|i| format!("FAIL {}", i.chars().take(400).collect::<String>()))
            .collect();
        assert!(
            self.items.is_empty(),
            "{what}: {} of {} checks failed\n{}",
            self.items.len(),
            self.checked,
            shown.join("\n")
        );
        eprintln!("{what}: {} checks passed", self.checked);
    }
}

/// The FNV-1a 64-bit hash (the fixtures' make.py scripts record it for data they do not store).
pub fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `n` bytes: the little-endian bytes of successive splitmix64 outputs from `seed` (the
/// fixtures' make.py scripts' `random` recipe).
pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(n);
    out
}
