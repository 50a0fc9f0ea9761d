//! Template 5.42's Section 7: the coded integers in CCSDS 121.0-B (adaptive entropy coding).
//!
//! ecCodes 2.50 (`grib_accessor_class_data_ccsds_packing`) hands the section to libaec's
//! `aec_buffer_decode` with the message's `bitsPerValue`, `ccsdsBlockSize`, `ccsdsRsi` and
//! `ccsdsFlags`, less two: it clears `AEC_DATA_3BYTE` and sets `AEC_DATA_MSB` to the host's
//! byte order, so that libaec writes each sample as a native integer of 1, 2 or 4 bytes
//! (`ceil(bitsPerValue / 8)` bytes, 3 rounded up to 4), and reads the `numberOfValues`
//! integers from there. The flags kept shape the stream: `AEC_DATA_PREPROCESS` (ecCodes
//! writes 14, 3BYTE | MSB | PREPROCESS), `AEC_RESTRICTED`, `AEC_PAD_RSI`, and
//! `AEC_DATA_SIGNED`, whose negative samples libaec sign-extends to the integer's width (read
//! back as unsigned: -1 in 12 bits is 0xFFFF).
//!
//! Here rust-aec decodes the samples, and the integers are built as ecCodes reads them. A
//! stream that ends before `count` samples is an error (libaec's output buffer, which ecCodes
//! zeroes first, would keep zeros there); samples past `count` are not read, as in libaec.

// The message decoder (message.rs) calls `decode`; until it does, only the tests do.
#![cfg_attr(not(test), allow(dead_code))]

use crate::error::{Error, Result};

/// The section 5 parameters of template 5.42 that the stream needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    /// Bits per value (octet 20).
    pub bits: u8,
    /// `ccsdsFlags` (libaec's flags).
    pub flags: u8,
    /// `ccsdsBlockSize`.
    pub block_size: u8,
    /// `ccsdsRsi` (reference sample interval).
    pub rsi: u16,
}

const WHAT: &str = "CCSDS (template 5.42)";

fn corrupt(message: impl std::fmt::Display) -> Error {
    Error::corrupt("grib", format!("{WHAT}: {message}"))
}

/// libaec's flags (libaec.h).
const SIGNED: u8 = 1;
const PREPROCESS: u8 = 8;
const RESTRICTED: u8 = 16;
const PAD_RSI: u8 = 32;
const NOT_ENFORCE: u8 = 64;

/// The `count` coded integers of an AEC stream.
pub(crate) fn decode(stream: &[u8], params: Params, count: usize) -> Result<Vec<u32>> {
    let Params {
        bits,
        flags,
        block_size,
        rsi,
    } = params;
    if bits == 0 {
        // A constant field: ecCodes reads no stream, every value is the reference value.
        return Ok(vec![0; count]);
    }
    // libaec's aec_decode_init refuses these.
    if bits > 32 {
        return Err(corrupt(format!("{bits} bits a value (32 at most)")));
    }
    if flags & NOT_ENFORCE != 0 {
        if block_size % 2 != 0 {
            return Err(corrupt(format!("an odd block size, {block_size}")));
        }
    } else if !matches!(block_size, 8 | 16 | 32 | 64) {
        return Err(corrupt(format!(
            "block size {block_size} (8, 16, 32 or 64)"
        )));
    }
    if rsi == 0 || rsi > 4096 {
        return Err(corrupt(format!(
            "a reference sample interval of {rsi} (1 to 4096)"
        )));
    }
    if !matches!(block_size, 8 | 16 | 32 | 64) {
        return Err(Error::Unsupported {
            message: format!(
                "grib: {WHAT}: block size {block_size} (libaec's AEC_NOT_ENFORCE) is not read"
            ),
        });
    }
    let mut aec = rust_aec::AecFlags::MSB | rust_aec::AecFlags::DATA_3BYTE;
    for (flag, theirs) in [
        (SIGNED, rust_aec::AecFlags::DATA_SIGNED),
        (PREPROCESS, rust_aec::AecFlags::DATA_PREPROCESS),
        (RESTRICTED, rust_aec::AecFlags::RESTRICTED),
        (PAD_RSI, rust_aec::AecFlags::PAD_RSI),
    ] {
        if flags & flag != 0 {
            aec |= theirs;
        }
    }
    let aec = rust_aec::AecParams::new(bits, u32::from(block_size), u32::from(rsi), aec);
    let samples = rust_aec::decode(stream, aec, count).map_err(corrupt)?;
    // rust-aec's samples: big-endian, in 1, 2 or 3 bytes (the bits' bytes).
    let bytes = usize::from(bits).div_ceil(8);
    if samples.len() != count * bytes {
        return Err(corrupt(format!(
            "{} samples, not {count}",
            samples.len() / bytes
        )));
    }
    let sample = |b: &[u8]| b.iter().fold(0u32, |x, &b| x << 8 | u32::from(b));
    let out = if flags & SIGNED != 0 && bits < 32 {
        // Sign-extended to the width of ecCodes' integer (3 bytes are 4).
        let width = if bytes == 3 { 32 } else { bytes as u32 * 8 };
        let container = u32::MAX >> (32 - width);
        let high = container & !((1u32 << bits) - 1);
        let sign = 1u32 << (bits - 1);
        samples
            .chunks_exact(bytes)
            .map(|b| {
                let x = sample(b) & ((sign << 1).wrapping_sub(1));
                if x & sign != 0 {
                    x | high
                } else {
                    x
                }
            })
            .collect()
    } else {
        samples.chunks_exact(bytes).map(sample).collect()
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::jpeg2000::fixtures::{self, Case};
    use super::*;

    fn cases() -> Vec<Case> {
        fixtures::cases(42)
    }

    fn params(case: &Case) -> Params {
        let (flags, block_size, rsi) = case.ccsds.unwrap();
        Params {
            bits: case.bits,
            flags,
            block_size,
            rsi,
        }
    }

    #[test]
    fn streams_decode_to_libaec_integers() {
        let cases = cases();
        assert!(cases.len() >= 10);
        for case in &cases {
            let got = decode(&case.stream, params(case), case.count)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(got == case.expected, "{}: differs from libaec", case.name);
        }
    }

    #[test]
    fn a_constant_field_reads_no_stream() {
        let p = Params {
            bits: 0,
            flags: 14,
            block_size: 32,
            rsi: 128,
        };
        assert_eq!(decode(&[], p, 3).unwrap(), vec![0; 3]);
    }

    #[test]
    fn parameters_libaec_refuses_are_errors() {
        let case = &cases()[0];
        let p = params(case);
        for bad in [
            Params { bits: 33, ..p },
            Params {
                block_size: 12,
                ..p
            },
            Params {
                block_size: 7,
                flags: p.flags | NOT_ENFORCE,
                ..p
            },
            Params { rsi: 0, ..p },
            Params { rsi: 4097, ..p },
        ] {
            let e = decode(&case.stream, bad, case.count).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{bad:?}: {e}");
        }
    }

    #[test]
    fn damaged_streams_are_errors() {
        for case in cases() {
            let s = &case.stream;
            for cut in [0, 1, 2, s.len() / 3, s.len() / 2] {
                let e = decode(&s[..cut], params(&case), case.count).unwrap_err();
                assert_eq!(e.code(), "CORRUPT_CHUNK", "{} cut at {cut}: {e}", case.name);
            }
        }
        let p = Params {
            bits: 16,
            flags: 14,
            block_size: 32,
            rsi: 128,
        };
        for garbage in fixtures::garbage() {
            // Noise is a valid AEC stream as far as it goes: too short for 100,000 values.
            let e = decode(&garbage, p, 100_000).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        }
    }

    #[test]
    fn more_values_than_the_stream_holds_are_an_error() {
        let case = &cases()[0];
        let e = decode(&case.stream, params(case), case.count * 2 + 64).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
    }

    #[test]
    fn mutated_streams_never_panic() {
        fixtures::mutate(&cases(), 1000, |case, stream| {
            if let Ok(v) = decode(stream, params(case), case.count) {
                assert_eq!(v.len(), case.count);
            }
        });
    }
}
