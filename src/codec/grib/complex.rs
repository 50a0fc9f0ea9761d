//! Templates 5.2 (complex packing) and 5.3 (complex packing and spatial differencing), read as
//! ecCodes' `data_g22order_packing` reads them.
//!
//! Section 7 holds, each part starting on an octet boundary: for 5.3 the first one or two
//! original values and the overall minimum of the differences (`octets` each, the minimum
//! sign and magnitude), then the groups' reference values (`bits` each), their widths, their
//! scaled lengths, and the groups' packed values back to back. A value is its group's
//! reference plus its packed integer; with missing value management 1 (or 2), the all-ones
//! integer (or it and the one below) of a group's width marks a missing value, or, in a
//! group of width 0, the all-ones reference of `bits` bits (or it and the one below).
//! Spatial differencing is then undone over the values present, the first one or two taken
//! from the descriptors. Everything is decoded in one pass, group after group, into `out`.

use super::bits::{read_wide, BitStream};
use super::scaling::Scaling;
use super::section::{corrupt, unsupported, Section};
use crate::error::Result;

/// Widths this decoder reads with its 32-bit stream. ecCodes' missing-value test builds the
/// all-ones value as `(1 << width) - 1` in a C `int`, defined only below 31 bits (32 wraps to
/// 0 on x86-64, reproduced here); no encoder writes wider groups.
const MAX_WIDTH: u32 = 32;

struct Groups {
    count: usize,
    width_reference: u32,
    width_bits: u32,
    length_reference: i64,
    length_increment: i64,
    last_length: i64,
    length_bits: u32,
}

/// Appends the template's `count` values to `out`, NaN where a value is missing.
pub(super) fn decode(
    s5: &Section,
    template: u16,
    data: &[u8],
    count: usize,
    scaling: Scaling,
    out: &mut Vec<f64>,
) -> Result<()> {
    let is_3 = template == 3;
    s5.require(if is_3 { 49 } else { 47 }, "its template")?;
    let bits = s5.u8(20)? as u32;
    let management = s5.u8(23)?;
    let groups = Groups {
        count: s5.u32(32)? as usize,
        width_reference: s5.u8(36)? as u32,
        width_bits: s5.u8(37)? as u32,
        length_reference: s5.u32(38)? as i64,
        length_increment: s5.u8(42)? as i64,
        last_length: s5.u32(43)? as i64,
        length_bits: s5.u8(47)? as u32,
    };
    let (order, octets) = if is_3 {
        (s5.u8(48)?, s5.u8(49)? as u32)
    } else {
        (0, 0)
    };

    // ecCodes writes a field whose every value is missing as one group of width 0 whose
    // reference (0 bits) is the missing value, and leaves Section 7 empty; its decoder then
    // reads the group's parameters from whatever follows the message. Read as the zeros the
    // encoder meant, they give what it meant: every value missing.
    let zeros = [0u8; 8];
    let data = if data.is_empty()
        && groups.count == 1
        && bits == 0
        && management > 0
        && groups.width_reference == 0
    {
        &zeros[..]
    } else {
        data
    };

    // A field of one value is coded with no groups (ecCodes 2.50, ECC-2095).
    if groups.count == 0 {
        out.resize(out.len() + count, scaling.reference);
        return Ok(());
    }
    if order > 2 {
        return Err(unsupported(format!(
            "spatial differencing of order {order} (template 5.3 defines orders 1 and 2)"
        )));
    }
    if management > 2 {
        return Err(unsupported(format!(
            "missing value management {management} in complex packing (code table 5.5 defines 0, 1 and 2)"
        )));
    }
    for (what, b) in [
        ("group reference values", bits),
        ("group widths", groups.width_bits),
        ("scaled group lengths", groups.length_bits),
    ] {
        if b > MAX_WIDTH {
            return Err(corrupt(format!(
                "complex packing with {b}-bit {what} (at most {MAX_WIDTH})"
            )));
        }
    }
    if groups.count > count {
        return Err(corrupt(format!(
            "{} groups for {count} values",
            groups.count
        )));
    }

    // The descriptors of spatial differencing, then the three arrays of group parameters.
    let descriptor_bits = if order > 0 {
        if !(1..=8).contains(&octets) {
            return Err(corrupt(format!(
                "spatial differencing with {octets}-octet descriptors (1 to 8)"
            )));
        }
        (order as u64 + 1) * octets as u64 * 8
    } else {
        0
    };
    let n = groups.count as u64;
    let references = descriptor_bits / 8;
    let widths = (descriptor_bits + n * bits as u64).div_ceil(8);
    let lengths = widths + (n * groups.width_bits as u64).div_ceil(8);
    let values = lengths + (n * groups.length_bits as u64).div_ceil(8);
    if values > data.len() as u64 {
        return Err(corrupt(format!(
            "section 7 holds {} octets, the group descriptors of complex packing need {values}",
            data.len()
        )));
    }
    let part = |from: u64| &data[from as usize..];

    let mut extras = [0i64; 2];
    let mut bias = 0i64;
    if order > 0 {
        let field = octets * 8;
        for (i, e) in extras.iter_mut().take(order as usize).enumerate() {
            *e = read_wide(data, i as u64 * field as u64, field) as i64;
        }
        let at = order as u64 * field as u64;
        let magnitude = read_wide(data, at + 1, field - 1) as i64;
        bias = if read_wide(data, at, 1) == 1 {
            magnitude.wrapping_neg()
        } else {
            magnitude
        };
    }

    // First pass: the groups' widths and lengths, so that the packed values are known to fit
    // before one is read.
    let mut needed: u128 = 0;
    let mut covered: i64 = 0;
    {
        let mut w = BitStream::new(part(widths));
        let mut l = BitStream::new(part(lengths));
        for g in 0..groups.count {
            let (width, length) = group_shape(&groups, g, &mut w, &mut l)?;
            covered += length;
            if covered > count as i64 {
                return Err(corrupt(format!(
                    "complex packing: the groups hold more than the {count} values of section 5"
                )));
            }
            needed += width as u128 * length as u128;
        }
    }
    // ecCodes gives 0 (scaled) for values the groups do not reach; no encoder leaves any, and
    // a count no group holds could ask for any amount of memory, so such a message is refused.
    if covered != count as i64 {
        return Err(corrupt(format!(
            "complex packing: the groups hold {covered} of the {count} values of section 5"
        )));
    }
    let room = (data.len() as u64 - values) as u128 * 8;
    if needed > room {
        return Err(corrupt(format!(
            "section 7 holds {room} bits of packed values, the groups need {needed}"
        )));
    }

    let start = out.len();
    out.reserve(count);
    let mut sink = Sink {
        out,
        scaling,
        order,
        pending: order,
        extras,
        bias,
        last: if order == 2 { extras[1] } else { extras[0] },
        penultimate: extras[0],
    };
    let mut r = BitStream::new(part(references));
    let mut w = BitStream::new(part(widths));
    let mut l = BitStream::new(part(lengths));
    let mut v = BitStream::new(part(values));
    for g in 0..groups.count {
        let reference = r.take(bits) as i64;
        let (width, length) = group_shape(&groups, g, &mut w, &mut l)?;
        let length = length as usize;
        match (management, width) {
            (0, 0) => (0..length).for_each(|_| sink.put(reference)),
            (0, _) => (0..length).for_each(|_| sink.put(reference + v.take(width) as i64)),
            (_, 0) => {
                let all_ones = all_ones(bits);
                let missing =
                    reference == all_ones || (management == 2 && reference == all_ones - 1);
                if missing {
                    (0..length).for_each(|_| sink.missing());
                } else {
                    (0..length).for_each(|_| sink.put(reference));
                }
            }
            (_, _) => {
                let primary = all_ones(width);
                let secondary = if management == 2 {
                    primary - 1
                } else {
                    primary
                };
                for _ in 0..length {
                    let x = v.take(width) as i64;
                    if x == primary || x == secondary {
                        sink.missing();
                    } else {
                        sink.put(reference + x);
                    }
                }
            }
        }
    }
    debug_assert_eq!(sink.out.len() - start, count);
    Ok(())
}

/// A group's width and length (the last group's length is given whole).
#[inline]
fn group_shape(
    groups: &Groups,
    g: usize,
    widths: &mut BitStream,
    lengths: &mut BitStream,
) -> Result<(u32, i64)> {
    let width = widths.take(groups.width_bits) + groups.width_reference as u64;
    let scaled = lengths.take(groups.length_bits) as i64;
    let length = if g + 1 == groups.count {
        groups.last_length
    } else {
        scaled * groups.length_increment + groups.length_reference
    };
    if width > MAX_WIDTH as u64 {
        return Err(corrupt(format!(
            "complex packing: group {g} is {width} bits wide (at most {MAX_WIDTH})"
        )));
    }
    Ok((width as u32, length))
}

/// The all-ones value of `bits` bits as ecCodes computes it, `(1 << bits) - 1` in a 32-bit C
/// `int` on x86-64 (the shift count taken modulo 32).
fn all_ones(bits: u32) -> i64 {
    1i32.wrapping_shl(bits).wrapping_sub(1) as i64
}

/// Undoes spatial differencing value by value and scales into the output.
struct Sink<'o> {
    out: &'o mut Vec<f64>,
    scaling: Scaling,
    order: u8,
    /// How many of the first present values are still to be replaced by the descriptors.
    pending: u8,
    extras: [i64; 2],
    bias: i64,
    last: i64,
    penultimate: i64,
}

impl Sink<'_> {
    #[inline(always)]
    fn missing(&mut self) {
        self.out.push(f64::NAN);
    }

    #[inline(always)]
    fn put(&mut self, x: i64) {
        // ecCodes keeps these in C longs, wrapping as two's complement on overflow.
        let x = if self.pending > 0 {
            let x = self.extras[(self.order - self.pending) as usize];
            self.pending -= 1;
            x
        } else {
            match self.order {
                0 => x,
                1 => {
                    let y = x.wrapping_add(self.last).wrapping_add(self.bias);
                    self.last = y;
                    y
                }
                _ => {
                    let y = x
                        .wrapping_add(self.bias)
                        .wrapping_add(self.last)
                        .wrapping_add(self.last)
                        .wrapping_sub(self.penultimate);
                    self.penultimate = self.last;
                    self.last = y;
                    y
                }
            }
        };
        // ecCodes marks missing values as LONG_MAX, so a value that comes out as LONG_MAX reads
        // as missing too.
        self.out.push(if x == i64::MAX {
            f64::NAN
        } else {
            self.scaling.apply(x as f64)
        });
    }
}
