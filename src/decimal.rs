//! Decimal text <-> float64, exactly, in little code: the one parser and the one formatter of
//! the crate (JSON scalars, the numbers written back to metadata, values in error messages).
//!
//! Rust's own (`str::parse::<f64>`, `{}` on an f64) and serde_json's (zmij) carry tables and
//! fast paths worth tens of kilobytes of wasm; these only run on metadata and error messages, so
//! a big-integer method that is short and plainly exact serves them all:
//!
//! - [`parse_f64`] reads what `str::parse::<f64>` reads, rounded correctly (nearest, ties to
//!   even), so it gives the same bits.
//! - [`display_f64`] writes what `{}` writes for an f64: the shortest digits that read back as
//!   the value (of those, the closest), with no exponent.
//! - [`json_f64`] writes the same digits as serde_json writes a finite f64: plain notation for
//!   decimal exponents -5 to 15 (integers end in `.0`), else `d.ddde+X` / `d.ddde-X`.
//!
//! Both writers are checked against Rust's and serde_json's output in the tests below.

use std::cmp::Ordering;

/// An unsigned integer of any size: little-endian base-2^32 limbs, no zero limb at the top.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_u64(v: u64) -> Big {
        let mut b = Big(vec![v as u32, (v >> 32) as u32]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of significant bits.
    fn bits(&self) -> i64 {
        match self.0.last() {
            None => 0,
            Some(&top) => 32 * self.0.len() as i64 - i64::from(top.leading_zeros()),
        }
    }

    /// `self * m + a`.
    fn mul_add_small(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in self.0.iter_mut() {
            let t = u64::from(*limb) * u64::from(m) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow10(&mut self, mut n: u64) {
        while n >= 9 {
            self.mul_add_small(1_000_000_000, 0);
            n -= 9;
        }
        if n > 0 {
            self.mul_add_small(10u32.pow(n as u32), 0);
        }
    }

    fn shl(&mut self, n: u64) {
        if self.is_zero() {
            return;
        }
        let bits = (n % 32) as u32;
        if bits != 0 {
            let mut carry = 0;
            for limb in self.0.iter_mut() {
                let next = *limb >> (32 - bits);
                *limb = (*limb << bits) | carry;
                carry = next;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
        let mut shifted = vec![0; (n / 32) as usize];
        shifted.extend_from_slice(&self.0);
        self.0 = shifted;
    }

    fn shr1(&mut self) {
        let mut carry = 0;
        for limb in self.0.iter_mut().rev() {
            let next = *limb << 31;
            *limb = (*limb >> 1) | carry;
            carry = next;
        }
        self.trim();
    }

    fn add(&mut self, other: &Big) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        let mut carry = 0u64;
        let mut rhs = other.0.iter();
        for limb in self.0.iter_mut() {
            let t = u64::from(*limb) + u64::from(rhs.next().copied().unwrap_or(0)) + carry;
            *limb = t as u32;
            carry = t >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    /// `self - other`, for `self >= other`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        let mut rhs = other.0.iter();
        for limb in self.0.iter_mut() {
            let t = i64::from(*limb) - i64::from(rhs.next().copied().unwrap_or(0)) - borrow;
            *limb = t as u32;
            borrow = i64::from(t < 0);
        }
        self.trim();
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn sum(&self, other: &Big) -> Big {
        let mut s = self.clone();
        s.add(other);
        s
    }
}

/// Significant decimal digits kept when reading: enough to decide the rounding of any float64
/// (whose halfway points have at most 767), with a sticky digit for the rest.
const MAX_DIGITS: usize = 800;

/// Reads a float as `str::parse::<f64>` does: `[+-]` then `inf`, `infinity` or `nan` (any
/// case), or digits with an optional `.` (at least one digit in all) and an optional exponent
/// `e`/`E`, `[+-]`, digits. No blanks. Rounds to nearest, ties to even.
pub fn parse_f64(text: &str) -> Option<f64> {
    let bytes = text.as_bytes();
    let (negative, rest) = match bytes.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, bytes),
    };
    let sign = |v: f64| if negative { -v } else { v };
    if rest.eq_ignore_ascii_case(b"inf") || rest.eq_ignore_ascii_case(b"infinity") {
        return Some(sign(f64::INFINITY));
    }
    if rest.eq_ignore_ascii_case(b"nan") {
        return Some(sign(f64::NAN));
    }

    // value = digits * 10^exp, plus something below one unit of the last digit if `sticky`.
    let mut digits: Vec<u8> = Vec::new();
    let mut exp: i64 = 0;
    let mut sticky = false;
    let mut seen_digit = false;
    let mut iter = rest.iter().peekable();
    let mut fraction = false;
    while let Some(&&c) = iter.peek() {
        match c {
            b'0'..=b'9' => {
                seen_digit = true;
                if digits.is_empty() && c == b'0' {
                    exp -= i64::from(fraction);
                } else if digits.len() < MAX_DIGITS {
                    digits.push(c - b'0');
                    exp -= i64::from(fraction);
                } else {
                    exp += i64::from(!fraction);
                    sticky |= c != b'0';
                }
            }
            b'.' if !fraction => fraction = true,
            _ => break,
        }
        iter.next();
    }
    if !seen_digit {
        return None;
    }
    if let Some(b'e' | b'E') = iter.peek() {
        iter.next();
        let exp_negative = match iter.peek() {
            Some(b'-') => {
                iter.next();
                true
            }
            Some(b'+') => {
                iter.next();
                false
            }
            _ => false,
        };
        let mut e: i64 = 0;
        let mut any = false;
        for &c in iter.by_ref() {
            if !c.is_ascii_digit() {
                return None;
            }
            any = true;
            // Saturates far beyond any exponent that can matter.
            e = (e * 10 + i64::from(c - b'0')).min(1 << 40);
        }
        if !any {
            return None;
        }
        exp += if exp_negative { -e } else { e };
    }
    if iter.next().is_some() {
        return None;
    }
    if digits.is_empty() {
        return Some(sign(0.0));
    }
    if sticky {
        digits.push(1);
        exp -= 1;
    }
    // The value is below 10^(exp + n) and at least 10^(exp + n - 1).
    let magnitude = exp + digits.len() as i64;
    if magnitude > 309 {
        return Some(sign(f64::INFINITY));
    }
    if magnitude <= -324 {
        return Some(sign(0.0));
    }
    let mut num = Big(Vec::new());
    for &d in &digits {
        num.mul_add_small(10, u32::from(d));
    }
    let mut den = Big::from_u64(1);
    if exp >= 0 {
        num.mul_pow10(exp as u64);
    } else {
        den.mul_pow10(exp.unsigned_abs());
    }
    Some(sign(f64::from_bits(ratio_to_bits(num, den))))
}

/// The float64 nearest to `num / den` (both non-zero), ties to even.
fn ratio_to_bits(mut num: Big, mut den: Big) -> u64 {
    // 2^b <= num / den < 2^(b + 1)
    let mut b = num.bits() - den.bits();
    let below = {
        let (mut n, mut d) = (num.clone(), den.clone());
        if b >= 0 {
            d.shl(b as u64);
        } else {
            n.shl(b.unsigned_abs());
        }
        n.cmp(&d) == Ordering::Less
    };
    b -= i64::from(below);
    // q = floor(num / den * 2^t) has 53 bits (52 or fewer for subnormals).
    let t = if b < -1022 { 1074 } else { 52 - b };
    if t >= 0 {
        num.shl(t as u64);
    } else {
        den.shl(t.unsigned_abs());
    }
    let mut q: u64 = 0;
    let mut shifted = den.clone();
    shifted.shl(52);
    for i in (0..=52).rev() {
        if num.cmp(&shifted) != Ordering::Less {
            num.sub(&shifted);
            q |= 1 << i;
        }
        shifted.shr1();
    }
    num.shl(1);
    let round_up = match num.cmp(&den) {
        Ordering::Greater => true,
        Ordering::Equal => q & 1 == 1,
        Ordering::Less => false,
    };
    q += u64::from(round_up);
    if b < -1022 {
        // Subnormal; a carry into bit 52 is the smallest normal, which these bits also encode.
        return q;
    }
    if q == 1 << 53 {
        q >>= 1;
        b += 1;
    }
    if b > 1023 {
        return f64::INFINITY.to_bits();
    }
    (((b + 1023) as u64) << 52) | (q & ((1 << 52) - 1))
}

/// How [`shortest`] breaks a tie between two closest candidates (`v` exactly halfway, which
/// happens at some powers of two).
#[derive(Clone, Copy, PartialEq)]
enum Tie {
    /// The larger one, as Rust's `{}` does.
    Up,
    /// The even one, as serde_json does.
    Even,
}

/// The shortest decimal digits that read back as `v` (finite, > 0), the closest to `v` of
/// those: `v ~ 0.d1 d2 ... dn * 10^k`. Returns the digits (0-9) and `k`.
fn shortest(v: f64, tie: Tie) -> (Vec<u8>, i32) {
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let fraction = bits & ((1 << 52) - 1);
    let (f, e) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    // Values that round to v lie within half a gap to each neighbour; the interval is closed
    // when f is even (ties to even read back as v). At a power of two the gap below is half.
    let inclusive = f & 1 == 0;
    let c: u32 = if fraction == 0 && biased > 1 { 2 } else { 1 };
    // v = r / s, upper bound (r + mp) / s, lower bound (r - mm) / s.
    let mut r = Big::from_u64(f);
    let mut s = Big::from_u64(1);
    let mut mp = Big::from_u64(1);
    if e >= 0 {
        r.shl(e as u64);
        mp.shl(e as u64);
    } else {
        s.shl(e.unsigned_abs());
    }
    let mut mm = mp.clone();
    r.mul_add_small(2 * c, 0);
    s.mul_add_small(2 * c, 0);
    mp.mul_add_small(c, 0);

    let reaches = |x: &Big, s: &Big| match x.cmp(s) {
        Ordering::Greater => true,
        Ordering::Equal => inclusive,
        Ordering::Less => false,
    };
    // Scale so that the upper bound is below 1 and at least 0.1: then v = r / s * 10^k.
    let log2 = e + 64 - i64::from(f.leading_zeros()) - 1;
    let mut k = (log2 as f64 * std::f64::consts::LOG10_2).ceil() as i32;
    if k >= 0 {
        s.mul_pow10(k as u64);
    } else {
        let n = u64::from(k.unsigned_abs());
        r.mul_pow10(n);
        mp.mul_pow10(n);
        mm.mul_pow10(n);
    }
    while reaches(&r.sum(&mp), &s) {
        s.mul_add_small(10, 0);
        k += 1;
    }
    loop {
        let mut high = r.sum(&mp);
        high.mul_add_small(10, 0);
        if reaches(&high, &s) {
            break;
        }
        r.mul_add_small(10, 0);
        mp.mul_add_small(10, 0);
        mm.mul_add_small(10, 0);
        k -= 1;
    }

    let mut digits = Vec::new();
    loop {
        r.mul_add_small(10, 0);
        mp.mul_add_small(10, 0);
        mm.mul_add_small(10, 0);
        let mut d = 0u8;
        while r.cmp(&s) != Ordering::Less {
            r.sub(&s);
            d += 1;
        }
        let low = match r.cmp(&mm) {
            Ordering::Less => true,
            Ordering::Equal => inclusive,
            Ordering::Greater => false,
        };
        let high = reaches(&r.sum(&mp), &s);
        if !low && !high {
            digits.push(d);
            continue;
        }
        let up = match (low, high) {
            (true, false) => false,
            (false, true) => true,
            _ => {
                let mut twice = r.clone();
                twice.shl(1);
                match twice.cmp(&s) {
                    Ordering::Less => false,
                    Ordering::Greater => true,
                    Ordering::Equal => tie == Tie::Up || d & 1 == 1,
                }
            }
        };
        digits.push(d + u8::from(up));
        break;
    }
    // A rounded-up 9 carries into the digits before it.
    while digits.last() == Some(&10) {
        digits.pop();
        match digits.last_mut() {
            Some(last) => *last += 1,
            None => {
                digits.push(1);
                k += 1;
            }
        }
    }
    (digits, k)
}

fn push_digits(out: &mut String, digits: &[u8]) {
    out.extend(digits.iter().map(|&d| char::from(b'0' + d)));
}

fn push_zeros(out: &mut String, n: i64) {
    out.extend(std::iter::repeat_n('0', n.max(0) as usize));
}

/// `0.d1 d2 ... dn * 10^k` in plain notation: `ddd`, `dd.d`, `0.00ddd`, `ddd000`.
fn push_plain(out: &mut String, digits: &[u8], k: i32) {
    let n = digits.len() as i64;
    let k = i64::from(k);
    if k <= 0 {
        out.push_str("0.");
        push_zeros(out, -k);
        push_digits(out, digits);
    } else if k < n {
        let (int, frac) = digits.split_at(k as usize);
        push_digits(out, int);
        out.push('.');
        push_digits(out, frac);
    } else {
        push_digits(out, digits);
        push_zeros(out, k - n);
    }
}

/// An f64 as `{}` formats it: `NaN`, `inf`, `-inf`, `-0`, `1`, `0.1`, `1e300` in full.
pub fn display_f64(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    let mut out = String::new();
    if v.is_sign_negative() {
        out.push('-');
    }
    if v.is_infinite() {
        out.push_str("inf");
    } else if v == 0.0 {
        out.push('0');
    } else {
        let (digits, k) = shortest(v.abs(), Tie::Up);
        push_plain(&mut out, &digits, k);
    }
    out
}

/// A finite f64 as serde_json writes it (`0.0`, `1.5`, `100.0`, `0.00001`, `1e-6`, `1e+16`).
pub fn json_f64(v: f64) -> String {
    let mut out = String::new();
    if v.is_sign_negative() {
        out.push('-');
    }
    if v == 0.0 || !v.is_finite() {
        out.push_str("0.0");
        return out;
    }
    let (digits, k) = shortest(v.abs(), Tie::Even);
    let exponent = k - 1;
    if (-5..=15).contains(&exponent) {
        push_plain(&mut out, &digits, k);
        if k >= digits.len() as i32 {
            out.push_str(".0");
        }
    } else {
        let (first, rest) = digits.split_at(1);
        push_digits(&mut out, first);
        if !rest.is_empty() {
            out.push('.');
            push_digits(&mut out, rest);
        }
        out.push_str(if exponent < 0 { "e-" } else { "e+" });
        out.push_str(&exponent.unsigned_abs().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of 64-bit values (xorshift*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    fn special_floats() -> Vec<f64> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            0.3,
            1.5,
            100.0,
            1e15,
            1e16,
            1e21,
            1e22,
            1e23,
            1e-5,
            1e-6,
            1e-7,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::EPSILON,
            5e-324,
            1e-323,
            f64::from_bits(0x000f_ffff_ffff_ffff),
            9007199254740993.0,
            123456789012345680.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut neighbours = |p: f64| {
            let b = p.to_bits();
            v.extend([
                p,
                f64::from_bits(b + 1),
                f64::from_bits(b.saturating_sub(1)),
            ]);
        };
        for e in -1074i64..=1023 {
            let bits = if e >= -1022 {
                ((e + 1023) as u64) << 52
            } else {
                1 << (e + 1074)
            };
            neighbours(f64::from_bits(bits));
        }
        for e in -323..=308 {
            neighbours(format!("1e{e}").parse().unwrap());
        }
        v
    }

    fn random_floats(n: usize) -> Vec<f64> {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        (0..n)
            .map(|i| {
                let bits = rng.next();
                match i % 4 {
                    // Any bit pattern; small exponents; short decimals; integers.
                    0 => f64::from_bits(bits),
                    1 => f64::from_bits(bits & 0x80ff_ffff_ffff_ffff),
                    2 => (bits % 100_000) as f64 / 1000.0,
                    _ => (bits >> (bits % 64)) as f64,
                }
            })
            .collect()
    }

    #[test]
    fn display_matches_rust() {
        for v in special_floats().into_iter().chain(random_floats(20_000)) {
            assert_eq!(display_f64(v), format!("{v}"), "{v:e}");
            assert_eq!(display_f64(-v), format!("{}", -v), "{v:e}");
        }
    }

    #[test]
    fn json_matches_serde_json() {
        for v in special_floats().into_iter().chain(random_floats(20_000)) {
            if let Some(n) = serde_json::Number::from_f64(v) {
                assert_eq!(json_f64(v), n.to_string(), "{v:e}");
            }
        }
    }

    fn same(text: &str) {
        let ours = parse_f64(text).map(f64::to_bits);
        let rust = text.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, rust, "{text:?}");
    }

    #[test]
    fn parse_matches_rust_on_its_grammar() {
        for text in [
            "",
            "+",
            "-",
            ".",
            "+.",
            "e",
            "e5",
            ".e5",
            "1e",
            "1e+",
            "1e-",
            "1.",
            ".5",
            "+.5",
            "-.5e-3",
            "1.e3",
            "1..2",
            "1.2.3",
            "1e5.5",
            "1e+-5",
            "--1",
            "+-1",
            " 1",
            "1 ",
            "1_0",
            "0x10",
            "inf",
            "-inf",
            "+inf",
            "INF",
            "Infinity",
            "-infinity",
            "infinit",
            "infx",
            "nan",
            "NaN",
            "-nan",
            "+NAN",
            "nan1",
            "in",
            "1e99999999999999999999999999",
            "1e-99999999999999999999999999",
            "0e99999999999999999999",
            "00000.000001e6",
            "0",
            "-0",
            "0.0e0",
            "000",
            "1E5",
            "1e05",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "4.9406564584124654e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "9007199254740993",
            "9007199254740992.5",
            "9007199254740993.0000000000000000000000000001",
            "0.1",
            "0.3",
        ] {
            same(text);
        }
        let mut long = "0.".to_string() + &"0".repeat(400) + "1";
        same(&long);
        long = "1".repeat(1000) + "e-700";
        same(&long);
        long = "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125e-324".to_string();
        same(&long);
        same(&(long.clone() + "0000000000000000000000"));
        same(&(long.replace("125e-324", "124999999999999999e-324")));
        let mut rng = Rng(7);
        for v in random_floats(20_000) {
            let text = format!("{v:e}");
            same(&text);
            same(&format!("{v}"));
            // Near halfway points, and with digits cut.
            let cut = &text[..text
                .find('e')
                .unwrap_or(text.len())
                .min(2 + (rng.next() % 20) as usize)];
            same(&format!(
                "{cut}5{}",
                &text[text.find('e').unwrap_or(text.len())..]
            ));
            same(&format!(
                "{cut}49999999999999999999{}",
                &text[text.find('e').unwrap_or(text.len())..]
            ));
        }
    }
}
