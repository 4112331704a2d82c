//! The `format`s schemas carry: the integer widths schemars writes for Rust integer
//! types, with the range each stands for, and the float widths.
//!
//! One table serves every reader: the strict rewrite turns a width into bounds, the
//! validator says which range a number missed, the instructions state the range a model
//! may write.

/// A Rust integer type as a schemars `format` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntegerFormat {
    /// The `format` value (`"uint8"`, `"int"`, ...).
    pub name: &'static str,
    /// The width in bits (`int` and `uint` are `isize` and `usize` of this platform,
    /// which is the one that decodes).
    pub bits: u32,
    /// The smallest value of the type.
    pub min: i128,
    /// The largest value of the type (`u128` so that `uint128` fits).
    pub max: u128,
}

macro_rules! integer_format {
    ($name:literal, $type:ty) => {
        IntegerFormat {
            name: $name,
            bits: <$type>::BITS,
            min: <$type>::MIN as i128,
            max: <$type>::MAX as u128,
        }
    };
}

/// Every integer format schemars writes.
pub const INTEGER_FORMATS: [IntegerFormat; 12] = [
    integer_format!("int8", i8),
    integer_format!("int16", i16),
    integer_format!("int32", i32),
    integer_format!("int64", i64),
    integer_format!("int128", i128),
    integer_format!("int", isize),
    integer_format!("uint8", u8),
    integer_format!("uint16", u16),
    integer_format!("uint32", u32),
    integer_format!("uint64", u64),
    integer_format!("uint128", u128),
    integer_format!("uint", usize),
];

/// The float formats schemars writes (`f32`, `f64`): they say nothing beyond "a number".
pub const FLOAT_FORMATS: [&str; 2] = ["float", "double"];

/// The integer type `format` names, or `None` when it names none.
pub fn integer_format(format: &str) -> Option<&'static IntegerFormat> {
    INTEGER_FORMATS.iter().find(|f| f.name == format)
}

/// Whether `format` is a numeric width (an integer or a float format).
pub fn is_numeric_format(format: &str) -> bool {
    integer_format(format).is_some() || FLOAT_FORMATS.contains(&format)
}

impl IntegerFormat {
    /// The range as `i128`s, or `None` for `uint128`, whose top is past `i128`.
    pub fn range_i128(&self) -> Option<(i128, i128)> {
        Some((self.min, i128::try_from(self.max).ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_each_width() {
        let u8_format = integer_format("uint8").unwrap();
        assert_eq!((u8_format.min, u8_format.max, u8_format.bits), (0, 255, 8));
        let i64_format = integer_format("int64").unwrap();
        assert_eq!(
            i64_format.range_i128(),
            Some((i64::MIN.into(), i64::MAX.into()))
        );
        assert_eq!(integer_format("uint128").unwrap().range_i128(), None);
        assert!(integer_format("double").is_none() && is_numeric_format("double"));
        assert!(!is_numeric_format("date-time"));
        for format in INTEGER_FORMATS {
            assert!(format.min <= 0 && format.max > 0, "{}", format.name);
        }
    }
}
