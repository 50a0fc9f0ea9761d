//! JSON values, read and written as serde_json (with `arbitrary_precision`) reads and writes
//! them, in a small fraction of its wasm: metadata is all this crate parses, so one plain
//! recursive-descent reader and one writer are enough.
//!
//! - Numbers keep their literal text, so integers beyond 2^53 or 2^64 and float literals reach
//!   the scalar rules exactly as written.
//! - Objects keep their keys sorted (as serde_json's default map does); a repeated key keeps its
//!   last value.
//! - The grammar is strict RFC 8259 JSON, as serde_json's: no trailing commas, no leading zeros,
//!   paired surrogate escapes, no control characters in strings, and at most 127 nested arrays
//!   and objects.
//! - Writing is compact, with serde_json's escapes.

use std::fmt;

/// A JSON value.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON number, as its literal text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Number(String);

impl Number {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A JSON object: keys in sorted order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Map(Vec<(String, Value)>);

impl Map {
    pub fn new() -> Self {
        Self::default()
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        let i = self.find(key).ok()?;
        self.0.get(i).map(|(_, v)| v)
    }

    /// Sets `key` (replacing a value it had).
    pub fn insert(&mut self, key: String, value: Value) {
        match self.find(&key) {
            Ok(i) => {
                if let Some(slot) = self.0.get_mut(i) {
                    slot.1 = value;
                }
            }
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    /// A number whose literal is an integer in the u64 range.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.0.parse().ok(),
            _ => None,
        }
    }

    /// A number whose literal is an integer in the i64 range.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.0.parse().ok(),
            _ => None,
        }
    }

    /// A number's value: the float64 nearest to its literal.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => crate::decimal::parse_f64(&n.0),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// An object of `pairs` (a repeated key keeps its last value).
    pub fn object<const N: usize>(pairs: [(&str, Value); N]) -> Value {
        let mut map = Map::new();
        for (k, v) in pairs {
            map.insert(k.to_string(), v);
        }
        Value::Object(map)
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }

    /// The value at a path of object keys.
    pub fn at(&self, path: &[&str]) -> Option<&Value> {
        path.iter().try_fold(self, |v, key| v.get(key))
    }

    /// The compact JSON text.
    fn write(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(&n.0),
            Value::String(s) => write_string(s, out),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Value::Object(map) => {
                out.push('{');
                for (i, (k, v)) in map.0.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let hex = b"0123456789abcdef";
                out.push_str("\\u00");
                for shift in [4, 0] {
                    let digit = (u32::from(c) >> shift) & 0xf;
                    out.push(char::from(hex.get(digit as usize).copied().unwrap_or(b'0')));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out);
        f.write_str(&out)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Number(Number(v.to_string()))
    }
}

impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::Number(Number(v.to_string()))
    }
}

/// A finite number as serde_json writes it; NaN and the infinities, which JSON numbers cannot
/// hold, as null (as serde_json makes them).
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        if v.is_finite() {
            Value::Number(Number(crate::decimal::json_f64(v)))
        } else {
            Value::Null
        }
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(items)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Self {
        Value::Object(m)
    }
}

/// Why a text is not JSON, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    what: &'static str,
    line: usize,
    column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.what, self.line, self.column
        )
    }
}

impl std::error::Error for ParseError {}

/// Reads one JSON value (with blanks around it and nothing else).
pub fn parse(text: &str) -> Result<Value, ParseError> {
    let mut p = Parser {
        src: text,
        text: text.as_bytes(),
        pos: 0,
        depth: 0,
    };
    let value = p.value()?;
    p.blanks();
    if p.pos < p.text.len() {
        return Err(p.error("trailing characters"));
    }
    Ok(value)
}

impl std::str::FromStr for Value {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        parse(s)
    }
}

struct Parser<'a> {
    src: &'a str,
    text: &'a [u8],
    pos: usize,
    depth: u32,
}

/// Arrays and objects nested this deep are refused (serde_json's limit).
const MAX_DEPTH: u32 = 128;

impl Parser<'_> {
    /// The source text from `start` to the current position (both at ASCII bytes).
    fn since(&self, start: usize) -> &str {
        self.src.get(start..self.pos).unwrap_or_default()
    }

    fn error(&self, what: &'static str) -> ParseError {
        let before = self.text.get(..self.pos).unwrap_or(self.text);
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        ParseError {
            what,
            line: 1 + before.iter().filter(|&&b| b == b'\n').count(),
            column: self.pos - line_start,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.pos += 1;
        Some(b)
    }

    fn blanks(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &[u8], value: Value) -> Result<Value, ParseError> {
        let end = self.pos + word.len();
        if self.text.get(self.pos..end) == Some(word) {
            self.pos = end;
            Ok(value)
        } else {
            Err(self.error("expected value"))
        }
    }

    fn value(&mut self) -> Result<Value, ParseError> {
        self.blanks();
        match self.peek() {
            None => Err(self.error("EOF while parsing a value")),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'"') => {
                self.pos += 1;
                self.string().map(Value::String)
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => self.nested(|p| {
                let mut items = Vec::new();
                p.blanks();
                if p.peek() == Some(b']') {
                    p.pos += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(p.value()?);
                    p.blanks();
                    match p.next() {
                        Some(b',') => {}
                        Some(b']') => return Ok(Value::Array(items)),
                        _ => return Err(p.error("expected `,` or `]`")),
                    }
                }
            }),
            Some(b'{') => self.nested(|p| {
                let mut map = Map::new();
                p.blanks();
                if p.peek() == Some(b'}') {
                    p.pos += 1;
                    return Ok(Value::Object(map));
                }
                loop {
                    p.blanks();
                    if p.next() != Some(b'"') {
                        return Err(p.error("key must be a string"));
                    }
                    let key = p.string()?;
                    p.blanks();
                    if p.next() != Some(b':') {
                        return Err(p.error("expected `:`"));
                    }
                    let value = p.value()?;
                    map.insert(key, value);
                    p.blanks();
                    match p.next() {
                        Some(b',') => {}
                        Some(b'}') => return Ok(Value::Object(map)),
                        _ => return Err(p.error("expected `,` or `}`")),
                    }
                }
            }),
            Some(_) => Err(self.error("expected value")),
        }
    }

    fn nested(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<Value, ParseError>,
    ) -> Result<Value, ParseError> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.error("recursion limit exceeded"));
        }
        self.pos += 1;
        let v = body(self)?;
        self.depth -= 1;
        Ok(v)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
        self.pos - start
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, kept as written except for the
    /// exponent, which serde_json writes as `e+` or `e-`.
    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let leading_zero = self.peek() == Some(b'0');
        let int_digits = self.digits();
        if int_digits == 0 || (leading_zero && int_digits > 1) {
            return Err(self.error("invalid number"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        let mut text = self.since(start).to_string();
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            text.push('e');
            match self.peek() {
                Some(sign @ (b'+' | b'-')) => {
                    self.pos += 1;
                    text.push(char::from(sign));
                }
                _ => text.push('+'),
            }
            let exp_start = self.pos;
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
            text.push_str(self.since(exp_start));
        }
        Ok(Value::Number(Number(text)))
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let mut n = 0;
        for _ in 0..4 {
            let digit = self
                .next()
                .and_then(|b| char::from(b).to_digit(16))
                .ok_or_else(|| self.error("invalid escape"))?;
            n = n * 16 + digit;
        }
        Ok(n)
    }

    /// The rest of a string whose opening quote was read.
    fn string(&mut self) -> Result<String, ParseError> {
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let before = self.pos;
            match self.next() {
                None => return Err(self.error("EOF while parsing a string")),
                Some(b'"') => {
                    // Runs of plain characters are copied whole, from one ASCII byte to the next.
                    self.pos = before;
                    out.push_str(self.since(run));
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos = before;
                    out.push_str(self.since(run));
                    self.pos += 1;
                    let c = match self.next() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let n = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&n) {
                                if self.next() != Some(b'\\') || self.next() != Some(b'u') {
                                    return Err(self.error("unexpected end of hex escape"));
                                }
                                let low = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&low) {
                                    return Err(self.error("lone leading surrogate in hex escape"));
                                }
                                0x10000 + ((n - 0xd800) << 10) + (low - 0xdc00)
                            } else {
                                n
                            };
                            char::from_u32(code)
                                .ok_or_else(|| self.error("lone leading surrogate in hex escape"))?
                        }
                        _ => return Err(self.error("invalid escape")),
                    };
                    out.push(c);
                    run = self.pos;
                }
                Some(b) if b < 0x20 => {
                    return Err(self
                        .error("control character (\\u0000-\\u001F) found while parsing a string"))
                }
                Some(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our reading and writing against serde_json's, for texts it accepts and refuses.
    fn same(text: &str) {
        let ours = parse(text);
        let theirs: Result<serde_json::Value, _> = serde_json::from_str(text);
        match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(a.to_string(), b.to_string(), "{text:?}"),
            (Err(_), Err(_)) => {}
            _ => panic!("{text:?}: ours {ours:?}, serde_json {theirs:?}"),
        }
    }

    #[test]
    fn reads_and_writes_as_serde_json() {
        let texts = [
            "",
            " ",
            "null",
            "true",
            "false",
            "nul",
            "truex",
            "0",
            "-0",
            "-",
            "01",
            "-01",
            "1.",
            "1.5",
            ".5",
            "1e5",
            "1E+5",
            "1e-5",
            "1e",
            "1e+",
            "-0.0e-0",
            "123456789012345678901234",
            "-9223372036854775809",
            "18446744073709551616",
            "1.50",
            "[]",
            "[ ]",
            "[1,]",
            "[,1]",
            "[1 2]",
            "{}",
            "{ }",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"b\":1,\"a\":2}",
            "{\"a\":1,\"a\":2}",
            "{\"a\":{\"b\":[1,{\"c\":null}]}}",
            " [1, 2] ",
            "[1] x",
            "\"abc",
            "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"",
            "\"\\u0041\\u00e9\\u4e2d\"",
            "\"\\uD83D\\uDE00\"",
            "\"\\ud83d\"",
            "\"\\ud83d\\u0041\"",
            "\"\\ude00\"",
            "\"\\ud83dx\"",
            "\"\\u12\"",
            "\"\\x\"",
            "\"a\u{1}b\"",
            "\"a\u{7f}b\"",
            "\"\\u0001\\u001f\"",
            "\"é中😀\"",
            "\t\n\r1",
            "[\"\\u0000\"]",
            "1 2",
            "{\"k\":\"v\"}extra",
            "[[[]]]",
            "-1.5e300",
        ];
        for text in texts {
            same(text);
        }
        for depth in [126, 127, 128, 129] {
            same(&("[".repeat(depth) + &"]".repeat(depth)));
            same(&("{\"a\":".repeat(depth) + "1" + &"}".repeat(depth)));
        }
    }

    #[test]
    fn random_texts_read_as_serde_json_reads_them() {
        const PIECES: [&str; 32] = [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\n",
            "\"",
            "\"a\"",
            "\"\\u00e9\"",
            "\\",
            "0",
            "1",
            "-",
            ".",
            "e",
            "E",
            "+",
            "5",
            "00",
            "true",
            "null",
            "fals",
            "\"k\":",
            "[1,2]",
            "{\"x\":[]}",
            "\t",
            "\u{1}",
            "é",
            "1.5e-3",
            "\"\\ud800\"",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            let mut text = String::new();
            for _ in 0..(state % 12) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(PIECES[(state % 32) as usize]);
            }
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            same(&text);
        }
    }

    #[test]
    fn accessors() {
        let v = parse(r#"{"a": {"b/c": {"d~e": [1, -2, 3.0, "x"]}}, "n": 18446744073709551615}"#)
            .unwrap();
        let list = v
            .at(&["a", "b/c", "d~e"])
            .and_then(Value::as_array)
            .unwrap();
        assert_eq!(
            list.iter().map(Value::as_u64).collect::<Vec<_>>(),
            [Some(1), None, None, None]
        );
        assert_eq!(
            list.iter().map(Value::as_i64).collect::<Vec<_>>(),
            [Some(1), Some(-2), None, None]
        );
        assert_eq!(v.get("n").and_then(Value::as_u64), Some(u64::MAX));
        assert_eq!(v.at(&["a", "x"]), None);
        assert_eq!(v.at(&[]), Some(&v));
    }
}
