//! The scaling every packed template shares: Y = (X * 2^E + R) * 10^-D, computed as ecCodes
//! computes it, since its own steps decide the last bits of every value.

use super::section::Section;
use crate::error::Result;

/// `n` to the power `s` as ecCodes' `codes_power` builds it: by repeated multiplication or
/// division from 1. For 10^-D this is 1/10/10/..., which differs from the correctly rounded
/// power in the last bit for some D (6 to 14 among others); for 2^E it is exact (until it
/// underflows).
pub(super) fn codes_power(s: i64, n: f64) -> f64 {
    if s == 0 {
        return 1.0;
    }
    if s == 1 {
        return n;
    }
    let mut value = 1.0;
    let mut s = s;
    while s < 0 {
        value /= n;
        s += 1;
    }
    while s > 0 {
        value *= n;
        s -= 1;
    }
    value
}

/// The reference value's 32 bits as ecCodes reads GRIB2's IEEE single (`grib_long_to_ieee`),
/// not as the hardware does: a subnormal gets the implicit leading bit and the smallest
/// normal exponent (0x00000001 reads 2^-126 + 2^-149, not 2^-149), -0 reads +0, and the
/// all-ones exponent (infinities, NaNs) reads as 0 with its sign (ecCodes' table of powers
/// stops at 2^104, and the entry after its end is the 0 that begins the next table).
pub(super) fn reference_value(bits: u32) -> f64 {
    let negative = bits & 0x8000_0000 != 0;
    let mut exponent = (bits >> 23) & 0xFF;
    let mantissa = bits & 0x7F_FFFF;
    if exponent == 0 && mantissa == 0 {
        return 0.0;
    }
    if exponent == 0 {
        exponent = 1;
    }
    let scale = if exponent == 255 {
        0.0
    } else {
        // 2^(exponent - 150), exactly (a normal double for every exponent 1..=254).
        f64::from_bits(((exponent as u64 + 1023 - 150) & 0x7FF) << 52)
    };
    let value = (mantissa | 0x80_0000) as f64 * scale;
    if negative {
        -value
    } else {
        value
    }
}

/// R, 2^E and 10^-D of a template that starts with template 5.0's octets 12-19.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scaling {
    pub reference: f64,
    pub binary: f64,
    pub decimal: f64,
}

impl Scaling {
    pub fn read(s5: &Section) -> Result<Self> {
        Ok(Self {
            reference: reference_value(s5.u32(12)?),
            binary: codes_power(s5.i16(16)?, 2.0),
            decimal: codes_power(-s5.i16(18)?, 10.0),
        })
    }

    /// One coded integer's value. The order of operations is ecCodes' (no fused multiply-add:
    /// Rust never contracts, and ecCodes' builds for x86-64 and wasm have none either).
    #[inline(always)]
    pub fn apply(&self, x: f64) -> f64 {
        (x * self.binary + self.reference) * self.decimal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_are_built_by_steps() {
        assert_eq!(codes_power(0, 10.0), 1.0);
        assert_eq!(codes_power(-1, 10.0), 0.1);
        // 1/10/10/10/10/10/10 is 1.0000000000000002e-6, not the literal 1e-6.
        assert_eq!(codes_power(-6, 10.0), 1.0000000000000002e-6);
        assert_ne!(codes_power(-6, 10.0), 1e-6);
        assert_eq!(codes_power(-3, 2.0), 0.125);
        assert_eq!(codes_power(5, 2.0), 32.0);
    }

    #[test]
    fn reference_value_reads_as_ecc_reads_it() {
        assert_eq!(reference_value(0x3F80_0000), 1.0);
        assert_eq!(reference_value(0xC120_0000), -10.0);
        assert_eq!(reference_value(0x8000_0000).to_bits(), 0);
        // Values ecCodes 2.50 gives for these bits (codes_get(h, "referenceValue")).
        assert_eq!(reference_value(0x0000_0001), 1.175494490952134e-38);
        assert_eq!(reference_value(0x0040_0000), 1.7632415262334313e-38);
        assert_eq!(reference_value(0x7F80_0000), 0.0);
        assert_eq!(reference_value(0x7FC0_0000), 0.0);
    }
}
