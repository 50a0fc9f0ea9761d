//! Standard base64 with padding (RFC 4648 section 4), as zarr-python and xarray write bytes
//! in JSON: fill values of `null_terminated_bytes` and `raw_bytes`, xarray's `_FillValue`.
//! Thirty lines, so not a dependency.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let n = group
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= group.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of `text`, or `None` when it is not standard base64 with padding (the empty
/// text is the empty bytes).
pub fn decode(text: &str) -> Option<Vec<u8>> {
    fn digit(c: u8) -> Option<u32> {
        ALPHABET.iter().position(|&a| a == c).map(|p| p as u32)
    }
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let quads = bytes.len() / 4;
    let mut out = Vec::with_capacity(quads * 3);
    for (i, quad) in bytes.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        // Padding only at the very end, and at most two characters of it.
        if pad > 2 || (pad > 0 && i + 1 != quads) {
            return None;
        }
        let mut n = 0u32;
        for &c in quad.iter().take(4 - pad) {
            n = (n << 6) | digit(c)?;
        }
        n <<= 6 * pad as u32;
        out.extend(
            [(n >> 16) as u8, (n >> 8) as u8, n as u8]
                .iter()
                .take(3 - pad),
        );
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4648_examples() {
        // RFC 4648 section 10.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, coded) in cases {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).as_deref(), Some(plain.as_bytes()));
        }
        for bad in ["Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "A"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
