//! The package's own zfp decoder (src/codec/zfp_kernel.rs) against zfp-rs, the reference
//! (bit-identical to the zfp C library): thousands of random chunks (every data type, 1-D to 4-D
//! shapes with partial blocks, smooth, noisy, tiny, zero and extreme values, every mode with
//! random parameters, reversible too) are encoded by zfp-rs and decoded by both, which must give the same
//! values bit for bit; so must truncated, corrupted and random streams, under one rule.
//!
//! The rule for any stream: the kernel reads a stream as its bytes and refuses (CHUNK_LENGTH)
//! one whose blocks need bits past its last byte, where zfp-rs reads a partial last 64-bit
//! word as if padded with zeros. So for a stream whose length is a multiple of 8 both give the
//! same values or both refuse; for other lengths, the same values, or the kernel refuses with
//! CHUNK_LENGTH.
//!
//! Every case is built from its seed alone, and a failure prints it with the case: run
//! `ZFP_KERNEL_SEED=<seed> cargo test --test zfp_kernel` to replay that one case.
#![cfg(feature = "zfp")]

mod common;

use common::{hex, j};
use half::f16;
use serde_json::{json, Value};
use zarr_wasm_codecs::codec::zfp::Zfp;
use zarr_wasm_codecs::{ArrayData, DataType, Error};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Cases per run: fewer unoptimised (CI's `cargo test`, and wasm-pack's tests, build without
/// optimisation): about 3 s there, natively or as wasm, and 2 s optimised.
const CASES: u64 = if cfg!(debug_assertions) { 10000 } else { 40000 };

/// The first case's seed; case `i` has seed `FIRST_SEED + i`.
const FIRST_SEED: u64 = 0x5eed_0000_0000;

/// SplitMix64: small, fast, and every seed gives its own sequence.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        // Apart from the first draw, neighbouring seeds share nothing.
        rng.next();
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo) as u64 + 1;
        lo + (self.next() % span) as i64
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[(self.next() % items.len() as u64) as usize]
    }
}

/// zfp's four types first (most cases), then the promoted ones.
const TYPES: [DataType; 15] = [
    DataType::Float32,
    DataType::Float64,
    DataType::Int32,
    DataType::Int64,
    DataType::Float32,
    DataType::Float64,
    DataType::Int32,
    DataType::Int64,
    DataType::Int16,
    DataType::UInt8,
    DataType::Float16,
    DataType::Int8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
];

/// What a chunk holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Values {
    /// A sum of waves over the coordinates, of a random magnitude.
    Smooth,
    /// Independent values of a random magnitude.
    Noisy,
    /// Waves with noise on them.
    SmoothNoisy,
    /// Random finite bit patterns: floats of any sign and exponent, integers of any value.
    Wide,
    /// Floats near and below the smallest normal (subnormals); small integers.
    Tiny,
    /// Zeros (floats: some of them -0).
    Zeros,
    /// Zeros with a few random values.
    Sparse,
    /// One random value everywhere.
    Constant,
    /// The type's extremes: largest, smallest, zero, one, the smallest subnormal.
    Extremes,
}

const VALUES: [Values; 9] = [
    Values::Smooth,
    Values::Noisy,
    Values::SmoothNoisy,
    Values::Wide,
    Values::Tiny,
    Values::Zeros,
    Values::Sparse,
    Values::Constant,
    Values::Extremes,
];

/// The stream a case decodes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stream {
    /// zfp-rs's stream of the chunk.
    Encoded,
    /// That stream cut short (any length, at and off 8-byte boundaries).
    Truncated,
    /// That stream with random bits flipped.
    Flipped,
    /// That stream with random bytes after it.
    Extended,
    /// Random bytes, of a random length around the encoded one.
    Garbage,
}

/// One random case.
struct Case {
    seed: u64,
    dtype: DataType,
    /// C order, as a zarr chunk shape.
    shape: Vec<usize>,
    config: Value,
    values: Values,
    source: Stream,
}

impl Case {
    fn describe(&self) -> String {
        format!(
            "seed {:#x}: {} {:?} {} ({:?} values, {:?} stream)",
            self.seed, self.dtype, self.shape, self.config, self.values, self.source
        )
    }
}

/// A random configuration for `dtype`: every mode (fixed_accuracy for floats only).
fn config(rng: &mut Rng, dtype: DataType) -> Value {
    let modes = if dtype.is_float() { 5 } else { 4 };
    match rng.range(0, modes - 1) {
        0 => {
            let rate = match rng.range(0, 3) {
                // Whole bits per value.
                0 | 1 => rng.range(1, 64) as f64,
                // Eighths, from 0.5.
                2 => rng.range(4, 512) as f64 / 8.0,
                // Anything in between.
                _ => 0.5 + 63.5 * rng.unit(),
            };
            json!({"mode": "fixed_rate", "rate": rate})
        }
        1 => json!({"mode": "fixed_precision", "precision": rng.range(1, 64)}),
        2 => {
            let maxbits = match rng.range(0, 3) {
                // Budgets below a float block's header (1 + 8 or 11 bits) too.
                0 => rng.range(0, 8),
                1 => rng.range(9, 128),
                2 => rng.range(129, 4096),
                _ => rng.range(4097, 16658),
            };
            let minbits = match rng.range(0, 3) {
                0 => maxbits,
                1 => 0,
                _ => rng.range(0, maxbits),
            };
            // minexp below -1074 is zfp's reversible mode.
            json!({"mode": "expert", "minbits": minbits, "maxbits": maxbits,
                "maxprec": rng.range(1, 64), "minexp": rng.range(-1100, 100)})
        }
        3 => json!({"mode": "reversible"}),
        _ => {
            let tolerance = if rng.one_in(4) {
                // Powers of two: exactly at an exponent's edge.
                2f64.powi(rng.range(-40, 3) as i32)
            } else {
                10f64.powf(-12.0 + 13.0 * rng.unit())
            };
            json!({"mode": "fixed_accuracy", "tolerance": tolerance})
        }
    }
}

/// The chunk's values in [-1, 1]: smooth over it (C order, last dimension fastest), noisy, or a
/// mix of both.
fn field(rng: &mut Rng, shape: &[usize], smooth: f64) -> Vec<f64> {
    let len: usize = shape.iter().product();
    let waves: Vec<(Vec<f64>, f64, f64)> = (0..3)
        .map(|_| {
            let freq = shape.iter().map(|_| rng.unit() * 1.5).collect();
            (freq, rng.unit() * 6.3, rng.unit())
        })
        .collect();
    let total: f64 = waves.iter().map(|w| w.2).sum::<f64>().max(1e-9);
    let offset = rng.unit() * 2.0 - 1.0;
    let mut coords = vec![0usize; shape.len()];
    let mut out = Vec::with_capacity(len);
    for _ in 0..len {
        let wave: f64 = waves
            .iter()
            .map(|(freq, phase, amp)| {
                let t: f64 = coords.iter().zip(freq).map(|(&c, f)| c as f64 * f).sum();
                amp * (t + phase).sin()
            })
            .sum::<f64>()
            / total;
        let noise = rng.unit() * 2.0 - 1.0;
        out.push((smooth * (offset + wave) / 2.0 + (1.0 - smooth) * noise).clamp(-1.0, 1.0));
        for (c, &n) in coords.iter_mut().zip(shape).rev() {
            *c += 1;
            if *c < n {
                break;
            }
            *c = 0;
        }
    }
    out
}

/// A float type's layout, for bit patterns: exponent bits, mantissa bits.
fn float_bits(dtype: DataType) -> (u32, u32) {
    match dtype {
        DataType::Float16 => (5, 10),
        DataType::Float32 => (8, 23),
        _ => (11, 52),
    }
}

/// A random finite float of `dtype` as bits, its biased exponent at most `max_exponent`.
fn float_pattern(rng: &mut Rng, dtype: DataType, max_exponent: u64) -> u64 {
    let (ebits, mbits) = float_bits(dtype);
    let sign = rng.next() & 1;
    let exponent = rng.next() % (max_exponent + 1);
    let mantissa = rng.next() & ((1 << mbits) - 1);
    sign << (ebits + mbits) | exponent << mbits | mantissa
}

fn float_values(rng: &mut Rng, dtype: DataType, shape: &[usize], kind: Values) -> Vec<u64> {
    let len: usize = shape.iter().product();
    let (ebits, mbits) = float_bits(dtype);
    let max_exponent = (1u64 << ebits) - 2;
    let bits = |x: f64| match dtype {
        DataType::Float16 => u64::from(f16::from_f64(x).to_bits()),
        DataType::Float32 => u64::from((x as f32).to_bits()),
        _ => x.to_bits(),
    };
    // A magnitude anywhere in the type's range: 2^-(bias + mantissa bits + 2) to 2^(bias).
    let bias = (1i64 << (ebits - 1)) - 1;
    let magnitude = |rng: &mut Rng| 2f64.powi(rng.range(-bias - mbits as i64 - 2, bias) as i32);
    match kind {
        Values::Smooth | Values::Noisy | Values::SmoothNoisy => {
            let smooth = match kind {
                Values::Smooth => 1.0,
                Values::Noisy => 0.0,
                _ => 0.9,
            };
            let scale = magnitude(rng);
            field(rng, shape, smooth)
                .into_iter()
                .map(|x| bits(x * scale))
                .collect()
        }
        Values::Wide => (0..len)
            .map(|_| float_pattern(rng, dtype, max_exponent))
            .collect(),
        Values::Tiny => {
            let top = rng.range(0, i64::from(ebits) * 4) as u64;
            (0..len).map(|_| float_pattern(rng, dtype, top)).collect()
        }
        Values::Zeros => {
            let negative = 1u64 << (ebits + mbits);
            (0..len)
                .map(|_| if rng.one_in(5) { negative } else { 0 })
                .collect()
        }
        Values::Sparse => (0..len)
            .map(|_| {
                if rng.one_in(7) {
                    float_pattern(rng, dtype, max_exponent)
                } else {
                    0
                }
            })
            .collect(),
        Values::Constant => {
            let v = float_pattern(rng, dtype, max_exponent);
            vec![v; len]
        }
        Values::Extremes => {
            let sign = 1u64 << (ebits + mbits);
            let largest = (max_exponent << mbits) | ((1 << mbits) - 1);
            let smallest_normal = 1 << mbits;
            let one = (bias as u64) << mbits;
            let choices = [
                largest,
                largest | sign,
                smallest_normal,
                smallest_normal | sign,
                1,
                1 | sign,
                0,
                sign,
                one,
                one | sign,
            ];
            (0..len).map(|_| rng.pick(&choices)).collect()
        }
    }
}

/// An integer type's range.
fn int_range(dtype: DataType) -> (i128, i128) {
    match dtype {
        DataType::Int8 => (i8::MIN.into(), i8::MAX.into()),
        DataType::Int16 => (i16::MIN.into(), i16::MAX.into()),
        DataType::Int32 => (i32::MIN.into(), i32::MAX.into()),
        DataType::Int64 => (i64::MIN.into(), i64::MAX.into()),
        DataType::UInt8 => (0, u8::MAX.into()),
        DataType::UInt16 => (0, u16::MAX.into()),
        DataType::UInt32 => (0, u32::MAX.into()),
        _ => (0, u64::MAX.into()),
    }
}

fn int_values(rng: &mut Rng, dtype: DataType, shape: &[usize], kind: Values) -> Vec<i128> {
    let len: usize = shape.iter().product();
    let (lo, hi) = int_range(dtype);
    let width = (hi - lo) as f64;
    let any = |rng: &mut Rng| lo + (u128::from(rng.next()) % (hi - lo + 1) as u128) as i128;
    match kind {
        Values::Smooth | Values::Noisy | Values::SmoothNoisy | Values::Tiny => {
            let smooth = match kind {
                Values::Smooth => 1.0,
                Values::Noisy | Values::Tiny => 0.0,
                _ => 0.9,
            };
            // Half the range, or far less (Tiny: a few units).
            let scale = if kind == Values::Tiny {
                rng.range(1, 8) as f64
            } else {
                width / 2.0 * 2f64.powi(-(rng.range(0, 60) as i32))
            };
            let centre = (lo + hi) as f64 / 2.0 + (rng.unit() - 0.5) * width;
            field(rng, shape, smooth)
                .into_iter()
                .map(|x| ((centre + x * scale) as i128).clamp(lo, hi))
                .collect()
        }
        Values::Wide => (0..len).map(|_| any(rng)).collect(),
        Values::Zeros => vec![0.clamp(lo, hi); len],
        Values::Sparse => (0..len)
            .map(|_| if rng.one_in(7) { any(rng) } else { 0 })
            .map(|v| v.clamp(lo, hi))
            .collect(),
        Values::Constant => {
            let v = any(rng);
            vec![v; len]
        }
        Values::Extremes => {
            let choices = [lo, hi, lo + 1, hi - 1, 0, 1, -1, lo / 2, hi / 2];
            (0..len).map(|_| rng.pick(&choices).clamp(lo, hi)).collect()
        }
    }
}

/// The chunk's values as the array type.
fn chunk(rng: &mut Rng, dtype: DataType, shape: &[usize], kind: Values) -> ArrayData {
    if dtype.is_float() {
        let v = float_values(rng, dtype, shape, kind);
        return match dtype {
            DataType::Float16 => {
                ArrayData::Float16(v.into_iter().map(|b| f16::from_bits(b as u16)).collect())
            }
            DataType::Float32 => {
                ArrayData::Float32(v.into_iter().map(|b| f32::from_bits(b as u32)).collect())
            }
            _ => ArrayData::Float64(v.into_iter().map(f64::from_bits).collect()),
        };
    }
    let v = int_values(rng, dtype, shape, kind).into_iter();
    match dtype {
        DataType::Int8 => ArrayData::Int8(v.map(|x| x as i8).collect()),
        DataType::Int16 => ArrayData::Int16(v.map(|x| x as i16).collect()),
        DataType::Int32 => ArrayData::Int32(v.map(|x| x as i32).collect()),
        DataType::Int64 => ArrayData::Int64(v.map(|x| x as i64).collect()),
        DataType::UInt8 => ArrayData::UInt8(v.map(|x| x as u8).collect()),
        DataType::UInt16 => ArrayData::UInt16(v.map(|x| x as u16).collect()),
        DataType::UInt32 => ArrayData::UInt32(v.map(|x| x as u32).collect()),
        _ => ArrayData::UInt64(v.map(|x| x as u64).collect()),
    }
}

/// A random chunk shape: 1 to 4 dimensions of 1 to 13 (small ones more often, so that 4-D
/// chunks stay quick).
fn shape(rng: &mut Rng) -> Vec<usize> {
    let ndim = rng.range(1, 4) as usize;
    let most = [13, 13, 9, 6][ndim - 1];
    (0..ndim)
        .map(|_| {
            if rng.one_in(3) {
                rng.range(1, 13) as usize
            } else {
                rng.range(1, most) as usize
            }
        })
        .collect()
}

/// The stream of `source` made from the encoded one.
fn derive(rng: &mut Rng, source: Stream, encoded: &[u8]) -> Vec<u8> {
    let mut out = encoded.to_vec();
    // Half of the lengths chosen here are whole 64-bit words.
    let length = |rng: &mut Rng, most: usize| {
        let n = rng.range(0, most as i64) as usize;
        if rng.one_in(2) {
            n / 8 * 8
        } else {
            n
        }
    };
    match source {
        Stream::Encoded => {}
        Stream::Truncated => {
            let n = length(rng, encoded.len().saturating_sub(1));
            out.truncate(n);
        }
        Stream::Flipped => {
            if !out.is_empty() {
                for _ in 0..rng.range(1, 8) {
                    let bit = rng.range(0, out.len() as i64 * 8 - 1) as usize;
                    out[bit / 8] ^= 1 << (bit % 8);
                }
            }
        }
        Stream::Extended => {
            let n = length(rng, 24);
            out.extend((0..n).map(|_| rng.next() as u8));
        }
        Stream::Garbage => {
            let n = length(rng, encoded.len() * 2 + 16);
            out = (0..n).map(|_| rng.next() as u8).collect();
            // Sometimes mostly zero bits or mostly one bits: long runs of empty or full
            // group tests.
            match rng.range(0, 3) {
                0 => out.iter_mut().for_each(|b| *b &= rng.next() as u8),
                1 => out.iter_mut().for_each(|b| *b |= rng.next() as u8),
                _ => {}
            }
        }
    }
    out
}

/// The rule the two decoders must keep for `stream` (see the top of this file): whether both
/// decoded it, or what breaks the rule.
fn agree(zfp: &Zfp, stream: &[u8]) -> std::result::Result<bool, String> {
    match (
        zfp.decode_with_kernel(stream),
        zfp.decode_with_zfp_rs(stream),
    ) {
        (Ok(ours), Ok(theirs)) => match differ(&ours, &theirs) {
            None => Ok(true),
            Some(d) => Err(format!("values differ from {d}")),
        },
        (Err(_), Err(_)) => Ok(false),
        (Err(e), Ok(_)) if !stream.len().is_multiple_of(8) && e.code() == "CHUNK_LENGTH" => {
            Ok(false)
        }
        (Err(e), Ok(_)) => Err(format!("the kernel refuses ({e}) what zfp-rs decodes")),
        (Ok(ours), Err(e)) => {
            // Is it only the padding after the last block that is missing? Then zfp-rs
            // decodes the stream with zero bytes up to the length it asked for as the kernel
            // decoded the stream without them.
            let padded = match e {
                Error::ChunkLength { expected, .. } if expected > stream.len() => {
                    let mut padded = stream.to_vec();
                    padded.resize(expected.next_multiple_of(8), 0);
                    match zfp.decode_with_zfp_rs(&padded) {
                        Ok(theirs) => match differ(&ours, &theirs) {
                            None => "; zfp-rs decodes it padded with zeros to the same values",
                            Some(_) => "; zfp-rs decodes it padded with zeros to other values",
                        },
                        Err(_) => "; zfp-rs refuses it padded with zeros too",
                    }
                }
                _ => "",
            };
            Err(format!(
                "the kernel decodes what zfp-rs refuses ({e}){padded}"
            ))
        }
    }
}

/// Where two decodes of the same type differ: the first element, and how many.
fn differ(ours: &ArrayData, theirs: &ArrayData) -> Option<String> {
    if ours.data_type() != theirs.data_type() {
        return Some(format!(
            "the type: the kernel gives {}, zfp-rs {}",
            ours.data_type(),
            theirs.data_type()
        ));
    }
    let size = ours.data_type().size();
    let (a, b) = (ours.to_le_bytes(), theirs.to_le_bytes());
    let element = |bytes: &[u8], i: usize| bytes[i * size..(i + 1) * size].to_vec();
    let differing: Vec<usize> = (0..ours.len())
        .filter(|&i| element(&a, i) != element(&b, i))
        .collect();
    let &first = differing.first()?;
    Some(format!(
        "element {first} ({} differ of {}): kernel {} zfp-rs {}",
        differing.len(),
        ours.len(),
        hex(&element(&a, first)),
        hex(&element(&b, first))
    ))
}

/// What one case came to.
enum Outcome {
    /// The codec refused the configuration for this type and shape, or the encoder the
    /// values (neither is expected).
    Skipped,
    /// Both decoded it, to the same values.
    Decoded,
    /// Both refused it, or the kernel alone, as the rule allows.
    Refused,
    /// A disagreement: the stream's length and the message.
    Failed(usize, String),
}

/// Builds case `seed` and decodes its stream both ways.
fn run(seed: u64) -> (Case, Outcome) {
    let mut rng = Rng::new(seed);
    let dtype = rng.pick(&TYPES);
    let shape = shape(&mut rng);
    let config = config(&mut rng, dtype);
    let values = rng.pick(&VALUES);
    let source = match rng.range(0, 19) {
        0..=10 => Stream::Encoded,
        11..=13 => Stream::Truncated,
        14..=15 => Stream::Flipped,
        16 => Stream::Extended,
        _ => Stream::Garbage,
    };
    let case = Case {
        seed,
        dtype,
        shape,
        config,
        values,
        source,
    };
    let Ok(zfp) = Zfp::new(Some(&j(&case.config)), dtype, &case.shape) else {
        return (case, Outcome::Skipped);
    };
    let data = chunk(&mut rng, dtype, &case.shape, values);
    let Ok(encoded) = zfp.encode(&data) else {
        return (case, Outcome::Skipped);
    };
    let stream = derive(&mut rng, source, &encoded);
    // A whole stream as zfp-rs wrote it decodes, whatever follows it.
    let whole = matches!(source, Stream::Encoded | Stream::Extended);
    let outcome = match agree(&zfp, &stream) {
        Ok(true) => Outcome::Decoded,
        Ok(false) if !whole => Outcome::Refused,
        found => {
            let message = found
                .err()
                .unwrap_or_else(|| "both refuse a whole stream".into());
            let shown = if stream.len() <= 512 {
                hex(&stream)
            } else {
                format!("{}...", hex(&stream[..512]))
            };
            Outcome::Failed(
                stream.len(),
                format!("{message}; stream ({} bytes) {shown}", stream.len()),
            )
        }
    };
    (case, outcome)
}

#[test]
fn kernel_decodes_as_zfp_rs_does() {
    #[cfg(not(target_arch = "wasm32"))]
    if let Ok(text) = std::env::var("ZFP_KERNEL_SEED") {
        let text = text.trim();
        let seed = match text.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16),
            None => text.parse(),
        }
        .expect("ZFP_KERNEL_SEED is a number");
        let (case, outcome) = run(seed);
        if let Outcome::Failed(_, message) = outcome {
            panic!("{}: {message}", case.describe());
        }
        return;
    }
    let mut failures: Vec<(usize, usize, String)> = Vec::new();
    let (mut decoded, mut refused, mut skipped) = (0, 0, 0);
    let mut by_source = [0usize; 5];
    for i in 0..CASES {
        let (case, outcome) = run(FIRST_SEED + i);
        match outcome {
            Outcome::Skipped => {
                skipped += 1;
                continue;
            }
            Outcome::Decoded => decoded += 1,
            Outcome::Refused => refused += 1,
            Outcome::Failed(length, message) => {
                let len = case.shape.iter().product();
                failures.push((len, length, format!("{}: {message}", case.describe())));
            }
        }
        by_source[case.source as usize] += 1;
    }
    let run = CASES - skipped;
    eprintln!(
        "{run} cases ({decoded} decoded, {refused} refused by both or by the kernel alone as \
         allowed, {} disagreeing; encoded, truncated, flipped, extended, garbage streams: \
         {by_source:?}), {skipped} configurations skipped",
        failures.len()
    );
    // The smallest chunks and streams first: the easiest to follow.
    failures.sort_by_key(|f| (f.0, f.1));
    let shown: Vec<&str> = failures.iter().take(10).map(|f| f.2.as_str()).collect();
    let kinds = ["values differ", "the kernel refuses", "the kernel decodes"].map(|kind| {
        let n = failures.iter().filter(|f| f.2.contains(kind)).count();
        format!("{kind}: {n}")
    });
    assert!(
        failures.is_empty(),
        "{} of {CASES} cases disagree ({}); the smallest:\n{}",
        failures.len(),
        kinds.join(", "),
        shown.join("\n")
    );
    // Every configuration drawn is valid and every chunk finite: none should be skipped.
    assert!(skipped * 20 < CASES, "{skipped} of {CASES} cases skipped");
    assert!(refused * 3 < run, "{refused} of {run} cases refused");
}

/// Decodes `stream` both ways for a codec of `config`, and returns what the rule finds.
fn disagreement(config: Value, dtype: DataType, shape: &[usize], stream: &str) -> Option<String> {
    let zfp = Zfp::new(Some(&j(&config)), dtype, shape).expect("codec");
    agree(&zfp, &common::unhex(stream))
        .err()
        .map(|message| format!("{config} {dtype} {shape:?}: {message}"))
}

// The smallest cases of the disagreements the random cases have found, as tests of their own.

#[test]
fn expert_minexp_below_zfp_min_exp_is_reversible() {
    // zfp reads minexp < -1074 as reversible mode: zfp-rs writes [1, 2, 3, 4] reversibly, as
    // this stream, and decodes it so; it is not a lossy stream.
    let config =
        json!({"mode": "expert", "minbits": 0, "maxbits": 16658, "maxprec": 64, "minexp": -1075});
    let found = disagreement(config, DataType::Int32, &[4], "1f000000f0000000");
    assert!(found.is_none(), "{}", found.unwrap_or_default());
}

#[test]
fn expert_maxbits_below_the_float_header() {
    // A float64 block's header is 12 bits; zfp-rs gives the coefficients of a block with
    // maxbits 11 no bits at all (zfp-rs's docs/differences-from-c.md, "max_bits below the block
    // header"), so its stream of [1.0] is the header alone.
    let config =
        json!({"mode": "expert", "minbits": 0, "maxbits": 11, "maxprec": 64, "minexp": -1074});
    let found = disagreement(config, DataType::Float64, &[1], "0108000000000000");
    assert!(found.is_none(), "{}", found.unwrap_or_default());
}

#[test]
fn a_block_padded_past_the_stream_end() {
    // At rate 20 an int32 block is 80 bits; this one's coefficients (32 empty bit planes) end
    // within the first word, its padding to 80 bits in the missing second word. zfp-rs calls
    // the stream truncated; a stream whose length is whole words must get the same answer.
    let config = json!({"mode": "fixed_rate", "rate": 20});
    let found = disagreement(config, DataType::Int32, &[1], "0000000000000000");
    assert!(found.is_none(), "{}", found.unwrap_or_default());
}
