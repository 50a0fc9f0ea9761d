//! The layout as the JavaScript side reads it: the `Layout` JSON of js/, and metadata text
//! whose 64-bit integers JavaScript's `JSON.parse` keeps exact.

use super::ArrayLayout;
use crate::codec::bytes_to_bytes::BytesChain;
use crate::codec::Endian;
use crate::json::{Map, Value};

/// A JSON text a JavaScript `JSON.parse` reads without rounding: integers beyond 2^53 in the
/// fill value and in codec configurations become decimal strings (which every scalar in them
/// accepts), everything else stays as written.
pub fn exact_for_javascript(meta: &Value) -> Value {
    let Value::Object(map) = meta else {
        return meta.clone();
    };
    let mut out = Map::new();
    for (key, value) in map.iter() {
        let value = match key.as_str() {
            "fill_value" | "codecs" => big_integers_as_strings(value),
            _ => value.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

pub(super) fn big_integers_as_strings(value: &Value) -> Value {
    match value {
        Value::Number(n) => {
            let text = n.as_str();
            let integer = !text.contains(['.', 'e', 'E']);
            let digits = text.trim_start_matches('-');
            // 2^53 has 16 digits; anything with more, or 16 digits from 2^53 up, is beyond.
            let beyond = digits.len() > 16 || (digits.len() == 16 && digits >= "9007199254740992");
            if integer && beyond {
                Value::from(text)
            } else {
                value.clone()
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(big_integers_as_strings).collect()),
        Value::Object(map) => {
            let mut out = Map::new();
            for (k, v) in map.iter() {
                out.insert(k.clone(), big_integers_as_strings(v));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

impl ArrayLayout {
    /// The whole-chunk serializer as the JavaScript side builds it: the codec, its module, the
    /// data type it receives and the chunk shape it sees; null when there is none.
    fn serializer_json(&self) -> Value {
        let Some(s) = &self.serializer else {
            return Value::Null;
        };
        Value::object([
            ("codec", s.codec.clone()),
            ("module", Value::from(s.module.name())),
            (
                "data_type",
                Value::from(self.chain.encoded_data_type().name()),
            ),
            ("chunk_shape", dims_json(&self.stored_chunk_shape())),
        ])
    }

    /// What the JavaScript side needs, as JSON (the `Layout` type of js/): shapes, chunk
    /// keys, bytes -> bytes codecs and whether the compress module runs them (else why not),
    /// the shard index, and the fill value's little-endian bytes.
    pub fn to_json(&self) -> Value {
        let shard = match &self.shard {
            None => Value::Null,
            Some(s) => {
                let mut outer = &self.grid_chunk_shape;
                let mut levels = Vec::new();
                for level in &s.levels {
                    // Chunks per index: of this level's chunks in the chunk above.
                    let count: usize = outer
                        .iter()
                        .zip(&level.chunk_shape)
                        .map(|(g, i)| g / i)
                        .product();
                    outer = &level.chunk_shape;
                    let decoded = 16 * count;
                    levels.push(Value::object([
                        ("chunk_shape", dims_json(&level.chunk_shape)),
                        (
                            "index_endian",
                            Value::from(if level.index_endian == Endian::Big {
                                "big"
                            } else {
                                "little"
                            }),
                        ),
                        (
                            "index_codecs",
                            Value::Array(level.index_compressors.clone()),
                        ),
                        ("index_fallback", fallback_json(&level.index_fallback)),
                        ("index_decoded_bytes", Value::from(decoded as u64)),
                        // The index's stored size, where its codecs fix it (bytes, crc32c).
                        (
                            "index_bytes",
                            BytesChain::encoded_size_of(&level.index_compressors, decoded)
                                .map_or(Value::Null, |n| Value::from(n as u64)),
                        ),
                        ("index_at_end", Value::Bool(level.index_at_end)),
                        (
                            "index_order",
                            level.index_order.as_deref().map_or(Value::Null, dims_json),
                        ),
                    ]));
                }
                Value::object([
                    ("chunk_shape", dims_json(&s.inner_chunk_shape)),
                    ("levels", Value::Array(levels)),
                ])
            }
        };
        let fill_bytes = &self.fill_bytes;
        // (The chain's length counts lanes.)
        let chunk_bytes = self.chain.len() * self.chain.encoded_data_type().size();
        Value::object([
            ("data_type", Value::from(self.data_type().name())),
            ("array_data_type", self.array_type.describe()),
            ("lanes", Value::from(self.lanes as u64)),
            (
                "shape",
                Value::Array(self.shape.iter().map(|&x| Value::from(x)).collect()),
            ),
            ("chunk_shape", dims_json(&self.grid_chunk_shape)),
            ("key_v2", Value::Bool(self.key.v2)),
            ("key_separator", Value::from(self.key.separator.as_str())),
            ("codecs", Value::Array(self.compressors.clone())),
            ("codecs_fallback", fallback_json(&self.compressors_fallback)),
            // What the bytes -> bytes codecs receive, for those zarrita's registry runs.
            (
                "stored_data_type",
                Value::from(self.chain.encoded_data_type().name()),
            ),
            ("stored_chunk_shape", dims_json(&self.stored_chunk_shape())),
            (
                "stored_item_size",
                Value::from(self.stored_item_size() as u64),
            ),
            ("serializer", self.serializer_json()),
            // The size of one (inner) chunk after its bytes -> bytes codecs are undone, where
            // every chunk has the same (not before a whole-chunk serializer).
            (
                "decoded_bytes",
                if self.serializer.is_some() || self.edges.is_some() {
                    Value::Null
                } else {
                    Value::from(chunk_bytes as u64)
                },
            ),
            ("writes_here", Value::Bool(self.writes_here())),
            // A transpose's order (stored dimension i is dimension order[i]), lanes included.
            (
                "order",
                self.order.as_ref().map_or(Value::Null, |order| {
                    Value::Array(order.iter().map(|&d| Value::from(d as u64)).collect())
                }),
            ),
            ("shard", shard),
            (
                "edges",
                self.edges.as_ref().map_or(Value::Null, |edges| {
                    Value::Array(
                        edges
                            .iter()
                            .map(|runs| {
                                Value::Array(
                                    runs.iter()
                                        .map(|&(e, n)| {
                                            Value::Array(vec![
                                                Value::from(e as u64),
                                                Value::from(n),
                                            ])
                                        })
                                        .collect(),
                                )
                            })
                            .collect(),
                    )
                }),
            ),
            (
                "fill_bytes",
                Value::Array(
                    fill_bytes
                        .iter()
                        .map(|&b| Value::from(u64::from(b)))
                        .collect(),
                ),
            ),
        ])
    }
}

pub(super) fn dims_json(d: &[usize]) -> Value {
    Value::Array(d.iter().map(|&x| Value::from(x as u64)).collect())
}

/// Why zarrita's registry runs a list of codecs, or null where the compress module does.
pub(super) fn fallback_json(fallback: &Option<String>) -> Value {
    fallback.as_deref().map_or(Value::Null, Value::from)
}
