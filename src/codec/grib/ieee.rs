//! Template 5.4 (IEEE floating point): Section 7 holds the values as big-endian IEEE numbers,
//! single (precision 1) or double (precision 2), read as ecCodes' `data_raw_packing` reads them
//! (a single widened to a double).

use super::section::{corrupt, unsupported, Section};
use crate::error::Result;

/// Appends the `count` values to `out`.
pub(super) fn decode(s5: &Section, data: &[u8], count: usize, out: &mut Vec<f64>) -> Result<()> {
    s5.require(12, "template 5.4")?;
    let precision = s5.u8(12)?;
    let width = match precision {
        1 => 4,
        2 => 8,
        p => {
            return Err(unsupported(format!(
                "IEEE floating point of precision {p} (template 5.4; 1 and 2 are read)"
            )))
        }
    };
    // ecCodes decodes as many numbers as Section 7 holds whole, and fails when that is more
    // than Section 5's count; fewer would leave values undefined.
    let held = data.len() / width;
    if held != count {
        return Err(corrupt(format!(
            "section 7 holds {held} IEEE numbers of {width} octets, section 5 counts {count}"
        )));
    }
    if width == 4 {
        let (words, _) = data.as_chunks::<4>();
        out.extend(words.iter().map(|w| f32::from_be_bytes(*w) as f64));
    } else {
        let (words, _) = data.as_chunks::<8>();
        out.extend(words.iter().map(|w| f64::from_be_bytes(*w)));
    }
    Ok(())
}
