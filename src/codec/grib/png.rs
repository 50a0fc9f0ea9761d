//! Template 5.41's Section 7: a PNG image of the coded integers.
//!
//! ecCodes 2.50 (`grib_accessor_class_data_png_packing`) writes each value in
//! `ceil(bitsPerValue / 8) * 8` bits, big-endian: 8 and 16 bits as 8- and 16-bit grey, 24 as
//! 8-bit RGB, 32 as 8-bit RGBA (so 12 bits are 16-bit grey), the grid as Ni x Nj (Nj x Ni when
//! j points are consecutive), and with a bitmap (or a list of points) the present values as
//! one row. It reads the image with libpng's `png_read_png` and no transformation (interlaced
//! images deinterlaced, palettes left as indices, checksums checked), asserts that the
//! image's depth (24 for RGB, 32 for RGBA, else the bit depth) is those bits, and takes from
//! each row, in order, `width` values of that many bits, big-endian.
//!
//! Here image-rs's `png` decoder does libpng's part, with the same checks (Adler-32 too). Two
//! cases ecCodes cannot decode are refused: an image whose depth is not the values' (an
//! assertion there) and one of other than `count` values (ecCodes writes them all into its
//! `count`-value array).

use crate::error::{Error, Result};

const WHAT: &str = "PNG (template 5.41)";

fn corrupt(message: impl std::fmt::Display) -> Error {
    Error::corrupt("grib", format!("{WHAT}: {message}"))
}

/// The coded integers of a PNG image of `bits`-bit values, in raster order; `count` values are
/// expected.
pub(crate) fn decode(stream: &[u8], bits: u8, count: usize) -> Result<Vec<u32>> {
    if bits == 0 {
        // A constant field: ecCodes reads no image, every value is the reference value.
        return Ok(vec![0; count]);
    }
    if bits > 32 {
        return Err(corrupt(format!("{bits} bits a value (32 at most)")));
    }
    let bytes = usize::from(bits).div_ceil(8);
    let mut options = png::DecodeOptions::default();
    options.set_ignore_adler32(false); // libpng checks zlib's Adler-32; png skips it by default
    let mut decoder = png::Decoder::new_with_options(std::io::Cursor::new(stream), options);
    decoder.set_transformations(png::Transformations::IDENTITY);
    let mut reader = decoder.read_info().map_err(corrupt)?;
    let (width, height, depth) = {
        let info = reader.info();
        let depth = match info.color_type {
            png::ColorType::Rgb => 24,
            png::ColorType::Rgba => 32,
            _ => info.bit_depth as usize,
        };
        (info.width as usize, info.height as usize, depth)
    };
    if depth != bytes * 8 {
        return Err(corrupt(format!(
            "a {depth}-bit image ({:?}) of {bits}-bit values (ecCodes writes {} bits)",
            reader.info().color_type,
            bytes * 8
        )));
    }
    if width.checked_mul(height) != Some(count) {
        return Err(corrupt(format!(
            "the image has {width} x {height} values, the message {count}"
        )));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| corrupt("the image is too large"))?;
    let mut image = vec![0; size];
    let frame = reader.next_frame(&mut image).map_err(corrupt)?;
    // libpng reads on to IEND (and checks the chunks after the image).
    reader.finish().map_err(corrupt)?;
    let mut out = Vec::with_capacity(count);
    for row in image.chunks_exact(frame.line_size).take(height) {
        // Every pixel holds at least `bytes` bytes (the depth check above), so a row does.
        let values = row
            .get(..width * bytes)
            .ok_or_else(|| corrupt("a short row"))?;
        out.extend(
            values
                .chunks_exact(bytes)
                .map(|v| v.iter().fold(0u32, |x, &b| x << 8 | u32::from(b))),
        );
    }
    if out.len() != count {
        return Err(corrupt(format!(
            "the image gave {} values, not {count}",
            out.len()
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::jpeg2000::fixtures::{self, Case};
    use super::*;

    fn cases() -> Vec<Case> {
        fixtures::cases(41)
    }

    #[test]
    fn images_decode_to_libpng_integers() {
        let cases = cases();
        assert!(cases.len() >= 6);
        for case in &cases {
            let got = decode(&case.stream, case.bits, case.count)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
            assert!(got == case.expected, "{}: differs from libpng", case.name);
        }
    }

    #[test]
    fn a_constant_field_reads_no_image() {
        assert_eq!(decode(&[], 0, 3).unwrap(), vec![0; 3]);
    }

    #[test]
    fn an_image_of_other_than_count_values_or_bits_is_refused() {
        let case = &cases()[0];
        for count in [case.count - 1, case.count + 1, 0] {
            let e = decode(&case.stream, case.bits, count).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        }
        // An 8-bit grey image read as 16-bit values, and the other way round.
        let eight = cases().into_iter().find(|c| c.bits <= 8).unwrap();
        let e = decode(&eight.stream, 12, eight.count).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        let sixteen = cases()
            .into_iter()
            .find(|c| (9..=16).contains(&c.bits))
            .unwrap();
        let e = decode(&sixteen.stream, 8, sixteen.count).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        let e = decode(&sixteen.stream, 33, sixteen.count).unwrap_err();
        assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
    }

    #[test]
    fn damaged_images_are_errors() {
        for case in cases() {
            let s = &case.stream;
            for cut in [
                0,
                1,
                8,
                20,
                s.len() / 3,
                s.len() / 2,
                s.len() - 13,
                s.len() - 1,
            ] {
                let e = decode(&s[..cut], case.bits, case.count).unwrap_err();
                assert_eq!(e.code(), "CORRUPT_CHUNK", "{} cut at {cut}: {e}", case.name);
            }
            // A changed byte of the image data: its chunk's CRC no longer matches.
            let mut changed = s.clone();
            changed[s.len() / 2] ^= 0x10;
            let e = decode(&changed, case.bits, case.count).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{}: {e}", case.name);
        }
        for garbage in fixtures::garbage() {
            let e = decode(&garbage, 16, 64).unwrap_err();
            assert_eq!(e.code(), "CORRUPT_CHUNK", "{e}");
        }
    }

    #[test]
    fn mutated_images_never_panic() {
        fixtures::mutate(&cases(), 500, |case, stream| {
            if let Ok(v) = decode(stream, case.bits, case.count) {
                assert_eq!(v.len(), case.count);
            }
        });
    }
}
