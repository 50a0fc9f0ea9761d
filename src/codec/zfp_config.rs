//! zfp's configuration, read from its JSON apart from the kernel (as `config.rs` reads the
//! other codecs'): a mode and that mode's parameters, as zfpy names them.

use crate::error::{join, quoted, Error, Result};
use crate::json::{Map, Value};

const ZFP: &str = "zfp";

/// zfp's configuration: a mode and that mode's parameters, as zfpy names them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ZfpMode {
    Reversible,
    Expert {
        minbits: u32,
        maxbits: u32,
        maxprec: u32,
        minexp: i32,
    },
    FixedAccuracy {
        tolerance: f64,
    },
    FixedRate {
        rate: f64,
    },
    FixedPrecision {
        precision: u32,
    },
}

fn uint(config: &Map, key: &str) -> Result<u32> {
    config
        .get(key)
        .and_then(Value::as_u64)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| {
            Error::config(
                ZFP,
                format!(
                    "{key} must be a non-negative integer (u32), got {}",
                    show(config.get(key))
                ),
            )
        })
}

fn number(config: &Map, key: &str) -> Result<f64> {
    config
        .get(key)
        .and_then(|v| match v {
            Value::Number(n) => crate::decimal::parse_f64(&n.to_string()),
            _ => None,
        })
        .filter(|v| v.is_finite())
        .ok_or_else(|| {
            Error::config(
                ZFP,
                format!(
                    "{key} must be a finite number, got {}",
                    show(config.get(key))
                ),
            )
        })
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "nothing".to_string(), Value::to_string)
}

impl ZfpMode {
    /// Reads the configuration: `{"mode": ..., ...parameters of that mode}`.
    pub fn from_json(configuration: Option<&Value>) -> Result<Self> {
        let Some(Value::Object(config)) = configuration else {
            return Err(Error::config(
                ZFP,
                "a configuration object with \"mode\" is required",
            ));
        };
        let mode = config.get("mode").and_then(Value::as_str).ok_or_else(|| {
            Error::config(
                ZFP,
                "\"mode\" must be one of reversible, expert, fixed_accuracy, fixed_rate, fixed_precision",
            )
        })?;
        let (parsed, keys): (Self, &[&str]) = match mode {
            "reversible" => (Self::Reversible, &[]),
            "expert" => (
                Self::Expert {
                    minbits: uint(config, "minbits")?,
                    maxbits: uint(config, "maxbits")?,
                    maxprec: uint(config, "maxprec")?,
                    minexp: config
                        .get("minexp")
                        .and_then(Value::as_i64)
                        .and_then(|v| i32::try_from(v).ok())
                        .ok_or_else(|| {
                            Error::config(
                                ZFP,
                                format!(
                                    "minexp must be an integer (i32), got {}",
                                    show(config.get("minexp"))
                                ),
                            )
                        })?,
                },
                &["minbits", "maxbits", "maxprec", "minexp"],
            ),
            "fixed_accuracy" => {
                let tolerance = number(config, "tolerance")?;
                if tolerance < 0.0 {
                    return Err(Error::config(ZFP, "tolerance must not be negative"));
                }
                (Self::FixedAccuracy { tolerance }, &["tolerance"])
            }
            "fixed_rate" => {
                let rate = number(config, "rate")?;
                if rate <= 0.0 {
                    return Err(Error::config(ZFP, "rate must be positive (bits per value)"));
                }
                (Self::FixedRate { rate }, &["rate"])
            }
            "fixed_precision" => (
                Self::FixedPrecision {
                    precision: uint(config, "precision")?,
                },
                &["precision"],
            ),
            other => {
                return Err(Error::config(
                    ZFP,
                    format!(
                        "mode {} is not one of reversible, expert, fixed_accuracy, \
                         fixed_rate, fixed_precision",
                        quoted(other)
                    ),
                ))
            }
        };
        if let Some(key) = config
            .keys()
            .find(|k| *k != "mode" && !keys.contains(&k.as_str()))
        {
            return Err(Error::config(
                ZFP,
                format!(
                    "unknown key {} for mode {mode}; it takes {}",
                    quoted(key),
                    if keys.is_empty() {
                        "no parameters".to_string()
                    } else {
                        join(keys, ", ")
                    }
                ),
            ));
        }
        Ok(parsed)
    }
}
