//! Section 6's bitmap (indicator 0): one bit per grid point, 1 where Section 7 holds a value.
//! ecCodes' `data_apply_bitmap` gives the coded values in order at the points set and its
//! missing value elsewhere (NaN here).

use super::section::corrupt;
use crate::error::Result;

/// The number of points set among the first `points` bits, once the bitmap is known to hold
/// them.
pub(super) fn present(bitmap: &[u8], points: usize) -> Result<usize> {
    let octets = points.div_ceil(8);
    if bitmap.len() < octets {
        return Err(corrupt(format!(
            "section 6 holds a bitmap of {} octets, the grid's {points} points need {octets}",
            bitmap.len()
        )));
    }
    let full = points / 8;
    let mut ones: usize = bitmap[..full].iter().map(|b| b.count_ones() as usize).sum();
    if !points.is_multiple_of(8) {
        let mask = 0xFFu8 << (8 - points % 8);
        ones += (bitmap[full] & mask).count_ones() as usize;
    }
    Ok(ones)
}

/// Spreads the coded values `values[start..]` over the `points` grid points, in place (from
/// the last point back, so that no value is overwritten before it is moved).
pub(super) fn apply(
    bitmap: &[u8],
    points: usize,
    values: &mut Vec<f64>,
    start: usize,
) -> Result<()> {
    let coded = values.len() - start;
    if coded == 0 {
        // ecCodes gives every point missing when no value is coded, whatever the bitmap says.
        values.resize(start + points, f64::NAN);
        return Ok(());
    }
    let ones = present(bitmap, points)?;
    if ones > coded {
        return Err(corrupt(format!(
            "the bitmap sets {ones} points, section 7 codes {coded} values"
        )));
    }
    values.resize(start + points, f64::NAN);
    let grid = &mut values[start..];
    let mut j = ones;
    for i in (0..points).rev() {
        if (bitmap[i / 8] >> (7 - i % 8)) & 1 == 1 {
            j -= 1;
            grid[i] = grid[j];
        } else {
            grid[i] = f64::NAN;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_values_over_the_points_set() {
        let bitmap = [0b1011_0000, 0b1000_0000];
        let mut v = vec![7.0, 1.0, 2.0, 3.0, 4.0];
        apply(&bitmap, 9, &mut v, 1).unwrap();
        let shown: Vec<String> = v.iter().map(|x| format!("{x}")).collect();
        assert_eq!(
            shown,
            ["7", "1", "NaN", "2", "3", "NaN", "NaN", "NaN", "NaN", "4"]
        );
    }

    #[test]
    fn refuses_a_short_bitmap_or_too_few_values() {
        assert!(present(&[0xFF], 9).is_err());
        let mut v = vec![1.0];
        assert!(apply(&[0b1100_0000], 2, &mut v, 0).is_err());
    }
}
