//! numcodecs' `categorize` (a zarr v2 filter of fixed-length unicode arrays, `<U` / zarr v3's
//! `fixed_length_utf32`): each item stored as an unsigned integer of `astype`, one more than
//! the place of its label in `labels` (the last label it equals, as numcodecs assigns them in
//! turn), 0 for an item equal to none; 0 and any other number decode to the empty string.
//!
//! The layout runs it after `bytes`, which lays a chunk's items out as UTF-32 code points,
//! `lanes` of them an item, little-endian, NUL-padded.

use super::CategorizeParams;
use crate::error::{Error, Result};

const NAME: &str = "categorize";

/// A label as the items hold it: its code points, without trailing NULs (numpy compares
/// unicode values so), at most `lanes` of them on decode.
pub fn label_points(label: &str) -> Vec<u32> {
    let mut points: Vec<u32> = label.chars().map(u32::from).collect();
    while points.last() == Some(&0) {
        points.pop();
    }
    points
}

fn read_code(p: CategorizeParams, bytes: &[u8]) -> u64 {
    let mut v = 0u64;
    for k in 0..usize::from(p.width) {
        let b = if p.big {
            bytes[k]
        } else {
            bytes[usize::from(p.width) - 1 - k]
        };
        v = (v << 8) | u64::from(b);
    }
    v
}

fn write_code(p: CategorizeParams, code: u64, out: &mut [u8]) {
    let w = usize::from(p.width);
    for k in 0..w {
        let b = (code >> (8 * k)) as u8;
        if p.big {
            out[w - 1 - k] = b;
        } else {
            out[k] = b;
        }
    }
}

/// The items (UTF-32 little-endian, `lanes` code points each) of a chunk of codes.
pub fn decode(p: CategorizeParams, input: &[u8], labels: &[Vec<u32>]) -> Result<Vec<u8>> {
    let width = usize::from(p.width);
    if !input.len().is_multiple_of(width) {
        return Err(Error::corrupt(
            NAME,
            format!(
                "{} bytes are not a whole number of {width}-byte codes",
                input.len()
            ),
        ));
    }
    let lanes = p.lanes as usize;
    let item = lanes * 4;
    let n = input.len() / width;
    let mut out = vec![
        0u8;
        n.checked_mul(item)
            .ok_or_else(|| Error::corrupt(NAME, "the chunk is too large"))?
    ];
    for (code, slot) in input.chunks_exact(width).zip(out.chunks_exact_mut(item)) {
        let code = read_code(p, code);
        let Some(label) = usize::try_from(code)
            .ok()
            .and_then(|c| c.checked_sub(1))
            .and_then(|i| labels.get(i))
        else {
            continue;
        };
        for (point, lane) in label.iter().take(lanes).zip(slot.chunks_exact_mut(4)) {
            lane.copy_from_slice(&point.to_le_bytes());
        }
    }
    Ok(out)
}

/// The codes of a chunk of items (UTF-32 little-endian, `lanes` code points each).
pub fn encode(p: CategorizeParams, input: &[u8], labels: &[Vec<u32>]) -> Result<Vec<u8>> {
    let lanes = p.lanes as usize;
    let item = lanes * 4;
    if item == 0 || !input.len().is_multiple_of(item) {
        return Err(Error::corrupt(
            NAME,
            format!(
                "{} bytes are not a whole number of {lanes}-character items",
                input.len()
            ),
        ));
    }
    let width = usize::from(p.width);
    let mut out = vec![0u8; input.len() / item * width];
    let mut points = Vec::with_capacity(lanes);
    for (value, slot) in input.chunks_exact(item).zip(out.chunks_exact_mut(width)) {
        points.clear();
        points.extend(
            value
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
        while points.last() == Some(&0) {
            points.pop();
        }
        // The last label equal to the item, as numcodecs assigns each label's code in turn.
        let code = labels
            .iter()
            .rposition(|l| *l == points)
            .map_or(0, |i| i as u64 + 1);
        write_code(p, code, slot);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(values: &[&str], lanes: usize) -> Vec<u8> {
        let mut out = vec![0u8; values.len() * lanes * 4];
        for (v, slot) in values.iter().zip(out.chunks_exact_mut(lanes * 4)) {
            for (c, lane) in v.chars().zip(slot.chunks_exact_mut(4)) {
                lane.copy_from_slice(&u32::from(c).to_le_bytes());
            }
        }
        out
    }

    /// numcodecs' own example (the `Categorize` docstring): labels female, male; an item equal
    /// to neither is stored as 0 and decodes to "".
    #[test]
    fn numcodecs_docstring_example() {
        let p = CategorizeParams {
            lanes: 10,
            width: 1,
            big: false,
        };
        let labels: Vec<Vec<u32>> = ["female", "male"].iter().map(|l| label_points(l)).collect();
        let x = items(&["male", "female", "female", "male", "unexpected"], 10);
        let y = encode(p, &x, &labels).expect("encode");
        assert_eq!(y, [2, 1, 1, 2, 0]);
        let z = decode(p, &y, &labels).expect("decode");
        assert_eq!(z, items(&["male", "female", "female", "male", ""], 10));
    }

    #[test]
    fn wide_codes_in_either_order_and_split_codes() {
        let labels: Vec<Vec<u32>> = ["a", "b"].iter().map(|l| label_points(l)).collect();
        for (big, stored) in [(false, [2u8, 0, 0, 0]), (true, [0, 2, 0, 0])] {
            let p = CategorizeParams {
                lanes: 1,
                width: 2,
                big,
            };
            assert_eq!(
                decode(p, &stored, &labels).expect("decode"),
                items(&["b", ""], 1)
            );
            assert_eq!(
                encode(p, &items(&["b", "z"], 1), &labels).expect("encode"),
                stored
            );
            let err = decode(p, &stored[..3], &labels).expect_err("a split code");
            assert_eq!(err.code(), "CORRUPT_CHUNK");
        }
    }
}
