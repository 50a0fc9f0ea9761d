//! Bit-for-bit comparison with what zarr-python 3.4.2 (and its cast engine) produced.
//! The fixtures and their generator are in tests/fixtures/.

mod common;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use common::{fixture, hex, j, opt_str, sj, unhex, Failures};
use serde_json::Value;
use zarr_wasm_codecs::codec::parse_shape;
use zarr_wasm_codecs::dtype::ALL_DATA_TYPES;
use zarr_wasm_codecs::{ArrayData, Chain, DataType, Scalar};

/// Where this package follows the spec (and the issue) rather than zarr-python 3.4.2. Each
/// listed case must really differ, and differ in exactly the stated way, so the list can hide
/// neither a fixed bug nor a new one.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Known {
    /// The spec: the first scalar_map entry for a key wins. zarr-python keeps the last.
    FirstKeyWins,
    /// zarr v3 hex scalars in scalar_map are read bit-exactly. zarr-python cannot parse them
    /// (the engine-direct fixtures give the expected values).
    HexInScalarMap,
    /// Unknown configuration keys are refused. zarr-python ignores unknown scalar_map keys.
    UnknownKeyRefused,
}

const REFERENCE_BUGS: &[(&str, Known)] = &[
    ("map/reference-bug/duplicate-key", Known::FirstKeyWins),
    ("map/reference-bug/hex-", Known::HexInScalarMap),
    (
        r#"raw/[{"name":"cast_value","configuration":{"data_type":"uint8","scalar_map":{"other""#,
        Known::UnknownKeyRefused,
    ),
];

/// JSON scalars where this package keeps the exact bits a "0x" hex string gives (the zarr v3
/// spec's reading) and the reference does not: it reads 4-digit hex through Python's `struct`,
/// which drops float16 NaN payloads, and it quiets a signalling NaN. Each must really differ.
const SCALAR_DIFFERENCES: &[(&str, &str)] = &[
    ("float16", "0x7e01"),
    ("float32", "0x7e01"),
    ("float64", "0x7e01"),
    ("float32", "0x7f800001"),
];

fn scalar_key(case: &Value) -> String {
    format!("{} {}", case["data_type"], case["json"])
}

#[test]
fn json_scalars_match_reference() {
    let cases = fixture("scalars.json");
    let mut f = Failures::new();
    for case in cases.as_array().expect("list") {
        let name = case["data_type"].as_str().expect("data_type");
        let ok = case["ok"].as_bool().expect("ok");
        if case.get("kind").and_then(Value::as_str) == Some("data_type") {
            // A real zarr type that is not numeric (bool, complex) is refused as unsupported;
            // a name the reference does not know is refused as unknown.
            let got = DataType::from_name(name);
            let numeric = ALL_DATA_TYPES.iter().any(|dt| dt.name() == name);
            let expected_code = match (ok, numeric) {
                (true, true) => None,
                (true, false) => Some("UNSUPPORTED_DATA_TYPE"),
                (false, _) => Some("UNKNOWN_DATA_TYPE"),
            };
            f.check(
                got.as_ref().err().map(|e| e.code()) == expected_code,
                || format!("data type {name}: got {got:?}, want {expected_code:?}"),
            );
            if let (Ok(dt), Some(size)) = (got, case.get("itemsize").and_then(Value::as_u64)) {
                f.check(dt.size() as u64 == size, || format!("{name} size"));
            }
            continue;
        }
        let dtype = DataType::from_name(name).expect("numeric type");
        if case.get("default").and_then(Value::as_bool) == Some(true) {
            let got = hex(&dtype.default_scalar().to_le_bytes());
            f.check(got == case["hex"].as_str().expect("hex"), || {
                format!("default {name}: {got}")
            });
            continue;
        }
        let got = Scalar::from_json(dtype, &j(&case["json"]));
        match (&got, ok) {
            (Ok(s), true) => {
                let bytes = hex(&s.to_le_bytes());
                let want = case["hex"].as_str().expect("hex");
                let known = SCALAR_DIFFERENCES
                    .iter()
                    .any(|&(t, j)| t == name && case["json"] == j);
                f.check((bytes == want) != known, || {
                    format!(
                        "{}: got {bytes}, want {want} (known difference: {known})",
                        scalar_key(case)
                    )
                });
                let json = sj(&s.to_json());
                // A NaN with a payload is written as hex to keep it; the reference writes "NaN".
                let payload_nan = json.as_str().is_some_and(|s| s.starts_with("0x"));
                if !(payload_nan && case["to_json"] == "NaN") {
                    f.check(json_equal(&json, &case["to_json"]), || {
                        format!(
                            "{} to_json: got {json}, want {}",
                            scalar_key(case),
                            case["to_json"]
                        )
                    });
                }
            }
            (Err(_), false) => f.checked += 1,
            _ => f.check(false, || {
                format!(
                    "{}: got {got:?}, reference ok={ok} {}",
                    scalar_key(case),
                    case
                )
            }),
        }
    }
    f.finish("json scalars");
}

/// JSON numbers compare by value (1 and 1.0 are the same number to a reader).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x.to_string() == y.to_string() || x.as_f64() == y.as_f64()
        }
        _ => a == b,
    }
}

struct Outcome {
    ok: Option<String>,
    err: Option<String>,
}

impl Outcome {
    fn is_overflow(&self) -> bool {
        self.err
            .as_deref()
            .is_some_and(|e| e.ends_with("(OVERFLOW)"))
    }
}

/// zarr-python 3.4.2 computes int64 scale_offset in int64 and wraps silently on overflow (its
/// widening is to int64 itself); the spec and this package refuse. For an int64 array with
/// only scale_offset, this gives what the reference wrote: the exact result, wrapped.
struct Int64Wrap {
    offset: i128,
    scale: i128,
}

/// Reads stored int64 chunk bytes in the case's byte order.
fn stored_int64(case: &Value, bytes: &[u8]) -> ArrayData {
    let big = case["codecs"]
        .as_array()
        .and_then(|c| c.last())
        .and_then(|b| b.pointer("/configuration/endian"))
        == Some(&Value::from("big"));
    if big {
        ArrayData::from_be_bytes(DataType::Int64, bytes).expect("int64")
    } else {
        ArrayData::from_le_bytes(DataType::Int64, bytes).expect("int64")
    }
}

impl Int64Wrap {
    fn of(case: &Value) -> Option<Self> {
        if case["data_type"] != "int64" {
            return None;
        }
        let codecs = case["codecs"].as_array()?;
        let [so, _bytes] = codecs.as_slice() else {
            return None;
        };
        if so["name"] != "scale_offset" {
            return None;
        }
        let get = |k: &str, d: i64| {
            let v = so["configuration"]
                .get(k)
                .cloned()
                .unwrap_or(Value::from(d));
            Scalar::from_json(DataType::Int64, &j(&v)).ok()?.as_i128()
        };
        Some(Self {
            offset: get("offset", 0)?,
            scale: get("scale", 1)?,
        })
    }

    fn hex(values: impl Iterator<Item = i128>) -> String {
        values.map(|v| hex(&(v as i64).to_le_bytes())).collect()
    }

    fn encode(&self, xs: &[i128]) -> String {
        Self::hex(xs.iter().map(|x| (x - self.offset) * self.scale))
    }

    fn decode(&self, xs: &[i128]) -> String {
        Self::hex(xs.iter().map(|x| x / self.scale + self.offset))
    }
}

#[derive(Clone, Copy)]
enum Dir {
    Encode,
    Decode,
}

fn as_i128s(data: &ArrayData) -> Vec<i128> {
    (0..data.len())
        .filter_map(|i| data.get(i).and_then(|v| v.as_i128()))
        .collect()
}

/// A case where this package intentionally differs from the reference (see [`Known`]).
fn check_known_difference(f: &mut Failures, case: &Value, known: Known) {
    let id = case["id"].as_str().unwrap_or_default();
    let shape = parse_shape(&j(&case["shape"])).expect("shape");
    let chain = Chain::new(
        &j(&case["data_type"]),
        &j(&case["fill_value"]),
        &j(&case["codecs"]),
        &shape,
    );
    if known == Known::UnknownKeyRefused {
        let reference_accepted = case["metadata_error"].is_null();
        return f.check(reference_accepted && chain.is_err(), || {
            format!("{id}: expected this package alone to refuse the unknown key")
        });
    }
    let chain = match chain {
        Ok(c) => c,
        Err(e) => {
            return f.check(false, || {
                format!("{id}: refused ({e}) but the spec accepts it")
            })
        }
    };
    let dtype = chain.data_type();
    match known {
        Known::UnknownKeyRefused => {}
        Known::HexInScalarMap => {
            // The values themselves are checked by the engine-direct fixtures.
            f.check(
                case.get("metadata_error").is_some_and(|v| !v.is_null())
                    || case.pointer("/decode/error").is_some_and(|v| !v.is_null())
                    || case.pointer("/encode/error").is_some_and(|v| !v.is_null()),
                || format!("{id}: the reference no longer fails on hex in scalar_map"),
            );
            if let Some(stored) = case.pointer("/decode/stored").and_then(Value::as_str) {
                f.check(chain.decode(&unhex(stored)).is_ok(), || {
                    format!("{id}: decode failed")
                });
            }
        }
        Known::FirstKeyWins => {
            // The same chain with every later duplicate key dropped is what the spec means.
            let mut codecs = case["codecs"].clone();
            for codec in codecs.as_array_mut().expect("codecs") {
                for dir in ["encode", "decode"] {
                    if let Some(Value::Array(pairs)) =
                        codec.pointer_mut(&format!("/configuration/scalar_map/{dir}"))
                    {
                        let mut seen = Vec::new();
                        pairs.retain(|p| {
                            let key = p[0].to_string();
                            let first = !seen.contains(&key);
                            seen.push(key);
                            first
                        });
                    }
                }
            }
            let first_wins = Chain::new(
                &j(&case["data_type"]),
                &j(&case["fill_value"]),
                &j(&codecs),
                &shape,
            )
            .expect("deduplicated chain");
            if let Some(enc) = case.get("encode").filter(|v| !v.is_null()) {
                let values = ArrayData::from_le_bytes(
                    dtype,
                    &unhex(enc["values"].as_str().expect("values")),
                )
                .expect("values");
                let ours = chain.encode(&values).ok();
                f.check(
                    ours.is_some() && ours == first_wins.encode(&values).ok(),
                    || format!("{id}: encode is not first-wins"),
                );
                f.check(
                    ours.map(|b| hex(&b)).as_deref() != opt_str(enc, "stored"),
                    || format!("{id}: the reference now agrees on encode"),
                );
            }
            if let Some(dec) = case.get("decode").filter(|v| !v.is_null()) {
                let stored = unhex(dec["stored"].as_str().expect("stored"));
                let ours = chain.decode(&stored).ok();
                f.check(
                    ours.is_some() && ours == first_wins.decode(&stored).ok(),
                    || format!("{id}: decode is not first-wins"),
                );
                f.check(
                    ours.map(|a| hex(&a.to_le_bytes())).as_deref() != opt_str(dec, "values"),
                    || format!("{id}: the reference now agrees on decode"),
                );
            }
        }
    }
}

fn outcome<T>(r: zarr_wasm_codecs::Result<T>, show: impl Fn(&T) -> String) -> Outcome {
    match r {
        Ok(v) => Outcome {
            ok: Some(show(&v)),
            err: None,
        },
        Err(e) => Outcome {
            ok: None,
            err: Some(format!("{} ({})", e, e.code())),
        },
    }
}

/// Compares one operation's outcome with the reference's: the same bytes, or both an error.
fn compare(f: &mut Failures, id: &str, what: &str, got: Outcome, want: Option<&str>) {
    match (got.ok, want) {
        (Some(g), Some(w)) => f.check(g == w, || format!("{id} {what}: got {g}, want {w}")),
        (None, None) => f.checked += 1,
        (g, w) => f.check(false, || {
            format!(
                "{id} {what}: got {}, reference {}",
                g.unwrap_or_else(|| got.err.unwrap_or_default()),
                w.map_or("an error".to_string(), str::to_string)
            )
        }),
    }
}

fn single_element_chain(case: &Value) -> zarr_wasm_codecs::Result<Chain> {
    Chain::new(
        &j(&case["data_type"]),
        &j(&case["fill_value"]),
        &j(&case["codecs"]),
        &[1],
    )
}

#[test]
fn codec_chains_match_reference() {
    let cases = fixture("chains.json");
    let mut f = Failures::new();
    let mut bugs_seen = vec![false; REFERENCE_BUGS.len()];
    let (mut n_encode, mut n_decode, mut n_meta_err, mut n_int64_wraps) = (0, 0, 0, 0);
    for case in cases.as_array().expect("list") {
        let id = case["id"].as_str().expect("id");
        if let Some(i) = REFERENCE_BUGS.iter().position(|(p, _)| id.starts_with(p)) {
            bugs_seen[i] = true;
            check_known_difference(&mut f, case, REFERENCE_BUGS[i].1);
            continue;
        }
        let dtype = DataType::from_json(&j(&case["data_type"]));
        let shape = parse_shape(&j(&case["shape"])).expect("shape");
        let chain = Chain::new(
            &j(&case["data_type"]),
            &j(&case["fill_value"]),
            &j(&case["codecs"]),
            &shape,
        );
        let wrap = Int64Wrap::of(case);
        let reference_accepted = case["metadata_error"].is_null();
        if let (Some(w), Err(e), true) = (&wrap, &chain, reference_accepted) {
            // The fill value overflows int64 through scale_offset: refused here, wrapped there.
            n_int64_wraps += 1;
            let fill = Scalar::from_json(DataType::Int64, &j(&case["fill_value"])).expect("fill");
            let want = w.encode(&[fill.as_i128().expect("int")]);
            let reference = case["encoded_fill_value"]["hex"].as_str();
            f.check(
                e.code() == "INVALID_METADATA" && Some(want.as_str()) == reference,
                || {
                    format!(
                        "{id}: refused ({e}) but the reference did not just wrap the fill value"
                    )
                },
            );
            continue;
        }
        if let Some(reason) = opt_str(case, "metadata_error") {
            n_meta_err += 1;
            f.check(chain.is_err(), || {
                format!("{id}: reference refused the metadata ({reason}) but it was accepted")
            });
            continue;
        }
        let chain = match chain {
            Ok(c) => c,
            Err(e) => {
                f.check(false, || format!("{id}: metadata refused: {e}"));
                continue;
            }
        };
        let dtype = dtype.expect("data type");
        if let Some(fill) = case.get("encoded_fill_value").filter(|v| !v.is_null()) {
            let got = chain.encoded_fill_value();
            f.check(
                got.data_type().name() == fill["data_type"]
                    && hex(&got.to_le_bytes()) == fill["hex"],
                || format!("{id}: encoded fill {got:?}, want {fill}"),
            );
        }
        let one = || single_element_chain(case).expect("1-element chain");
        // Compares an outcome with the reference's; an int64 overflow must be one the
        // reference wrapped.
        let mut check = |f: &mut Failures,
                         what: &str,
                         got: Outcome,
                         want: Option<&str>,
                         input: &ArrayData,
                         dir: Dir| {
            match wrap.as_ref().filter(|_| got.is_overflow()) {
                Some(w) => {
                    n_int64_wraps += 1;
                    let exact = as_i128s(input);
                    let wrapped = match dir {
                        Dir::Encode => w.encode(&exact),
                        Dir::Decode => w.decode(&exact),
                    };
                    f.check(Some(wrapped.as_str()) == want, || {
                        format!("{id} {what}: overflow here, but the reference did not wrap")
                    });
                }
                None => compare(f, id, what, got, want),
            }
        };
        if let Some(enc) = case.get("encode").filter(|v| !v.is_null()) {
            n_encode += 1;
            let values =
                ArrayData::from_le_bytes(dtype, &unhex(enc["values"].as_str().expect("values")))
                    .expect("values");
            let got = outcome(chain.encode(&values), |b| hex(b));
            check(
                &mut f,
                "encode",
                got,
                opt_str(enc, "stored"),
                &values,
                Dir::Encode,
            );
            if let Some(per) = enc.get("per_element").and_then(Value::as_array) {
                let one = one();
                for (i, want) in per.iter().enumerate() {
                    let v = ArrayData::from_le_bytes(dtype, &values_element(&values, i))
                        .expect("element");
                    let got = outcome(one.encode(&v), |b| hex(b));
                    check(
                        &mut f,
                        &format!("encode[{i}]"),
                        got,
                        want.as_str(),
                        &v,
                        Dir::Encode,
                    );
                }
            }
        }
        if let Some(dec) = case.get("decode").filter(|v| !v.is_null()) {
            n_decode += 1;
            let stored = unhex(dec["stored"].as_str().expect("stored"));
            let want = opt_str(dec, "values");
            // The stored values, for checking an int64 wrap (only int64 chains use them).
            let input = stored_int64(case, &stored[..stored.len() / 8 * 8]);
            let got = outcome(chain.decode(&stored), |a| hex(&a.to_le_bytes()));
            check(&mut f, "decode", got, want, &input, Dir::Decode);
            let got = outcome(chain.decode_unfused(&stored), |a| hex(&a.to_le_bytes()));
            check(
                &mut f,
                "decode (codec by codec)",
                got,
                want,
                &input,
                Dir::Decode,
            );
            if let Some(per) = dec.get("per_element").and_then(Value::as_array) {
                let one = one();
                let size = stored.len() / per.len().max(1);
                for (i, want) in per.iter().enumerate() {
                    let bytes = &stored[i * size..(i + 1) * size];
                    let got = outcome(one.decode(bytes), |a| hex(&a.to_le_bytes()));
                    let input = ArrayData::from_le_bytes(chain.encoded_data_type(), bytes)
                        .expect("element");
                    check(
                        &mut f,
                        &format!("decode[{i}]"),
                        got,
                        want.as_str(),
                        &input,
                        Dir::Decode,
                    );
                }
            }
        }
    }
    for ((prefix, why), seen) in REFERENCE_BUGS.iter().zip(bugs_seen) {
        f.check(seen, || {
            format!("known difference {prefix} ({why:?}) has no fixture")
        });
    }
    eprintln!("cases: {n_encode} encodes, {n_decode} decodes, {n_meta_err} refused metadata");
    f.finish("codec chains");
}

fn values_element(values: &ArrayData, i: usize) -> Vec<u8> {
    values.get(i).expect("element").to_le_bytes()
}
