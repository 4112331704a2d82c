//! The values a statement binds and a row holds, the same on every database: an app's
//! SQL sees integers, reals, text, bytes and NULL, whichever database runs it.

use serde_json::Value;

/// One value bound to a statement or read from a row.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// SQL NULL.
    Null,
    /// An integer (a PostgreSQL `boolean` reads as 0 or 1).
    Integer(i64),
    /// A floating-point number.
    Real(f64),
    /// Text (a PostgreSQL `json` or `jsonb` column reads as its text).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
}

/// What can be bound to a statement's `$1`, `$2`, ...: integers up to 64 bits, floats,
/// `bool`, text, bytes, a JSON value (bound as its text) and `Option` of any (NULL).
/// An unsigned value past `i64::MAX` cannot be bound: convert it first, as its meaning
/// is the app's to decide.
pub trait Param {
    /// The value to bind.
    fn to_sql_value(&self) -> SqlValue;
}

macro_rules! integer_params {
    ($($t:ty),*) => {$(
        impl Param for $t {
            fn to_sql_value(&self) -> SqlValue {
                SqlValue::Integer(i64::from(*self))
            }
        }
    )*};
}
integer_params!(i8, i16, i32, i64, u8, u16, u32);

impl Param for bool {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Integer(i64::from(*self))
    }
}

impl Param for f64 {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Real(*self)
    }
}

impl Param for f32 {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Real(f64::from(*self))
    }
}

impl Param for str {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Text(self.to_string())
    }
}

impl Param for String {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Text(self.clone())
    }
}

impl Param for [u8] {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Blob(self.to_vec())
    }
}

impl Param for Vec<u8> {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Blob(self.clone())
    }
}

impl Param for Value {
    fn to_sql_value(&self) -> SqlValue {
        SqlValue::Text(self.to_string())
    }
}

impl Param for SqlValue {
    fn to_sql_value(&self) -> SqlValue {
        self.clone()
    }
}

impl<T: Param + ?Sized> Param for &T {
    fn to_sql_value(&self) -> SqlValue {
        (**self).to_sql_value()
    }
}

impl<T: Param> Param for Option<T> {
    fn to_sql_value(&self) -> SqlValue {
        self.as_ref().map_or(SqlValue::Null, Param::to_sql_value)
    }
}

/// What a column can be read as; a value of another kind, or out of the type's range,
/// is an error naming both (never a silent conversion).
pub trait FromColumn: Sized {
    /// The value as this type, or why not.
    fn from_column(value: &SqlValue) -> Result<Self, String>;
}

/// The name of a value's kind, for errors.
fn kind(value: &SqlValue) -> &'static str {
    match value {
        SqlValue::Null => "NULL",
        SqlValue::Integer(_) => "an integer",
        SqlValue::Real(_) => "a real",
        SqlValue::Text(_) => "text",
        SqlValue::Blob(_) => "bytes",
    }
}

macro_rules! integer_columns {
    ($($t:ty),*) => {$(
        impl FromColumn for $t {
            fn from_column(value: &SqlValue) -> Result<Self, String> {
                match value {
                    SqlValue::Integer(i) => <$t>::try_from(*i)
                        .map_err(|_| format!("{i} is out of range for {}", stringify!($t))),
                    other => Err(format!("{} where {} was expected", kind(other), stringify!($t))),
                }
            }
        }
    )*};
}
integer_columns!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

impl FromColumn for bool {
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Integer(0) => Ok(false),
            SqlValue::Integer(1) => Ok(true),
            other => Err(format!("{other:?} where a boolean (0 or 1) was expected")),
        }
    }
}

impl FromColumn for f64 {
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Real(f) => Ok(*f),
            // Exactly representable integers only.
            SqlValue::Integer(i) if i.unsigned_abs() <= 1 << 53 => Ok(*i as f64),
            other => Err(format!("{} where a real was expected", kind(other))),
        }
    }
}

impl FromColumn for String {
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Text(s) => Ok(s.clone()),
            other => Err(format!("{} where text was expected", kind(other))),
        }
    }
}

impl FromColumn for Vec<u8> {
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Blob(b) => Ok(b.clone()),
            other => Err(format!("{} where bytes were expected", kind(other))),
        }
    }
}

impl FromColumn for Value {
    /// A column of JSON text, parsed.
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Text(s) => serde_json::from_str(s).map_err(|e| format!("not JSON: {e}")),
            other => Err(format!("{} where JSON text was expected", kind(other))),
        }
    }
}

impl FromColumn for SqlValue {
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        Ok(value.clone())
    }
}

impl<T: FromColumn> FromColumn for Option<T> {
    fn from_column(value: &SqlValue) -> Result<Self, String> {
        match value {
            SqlValue::Null => Ok(None),
            other => T::from_column(other).map(Some),
        }
    }
}

/// One row a query answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub(crate) columns: std::sync::Arc<[String]>,
    pub(crate) values: Vec<SqlValue>,
}

impl Row {
    /// Column `index` (from 0) as `T`.
    pub fn get<T: FromColumn>(&self, index: usize) -> Result<T, crate::StoreError> {
        let value = self
            .values
            .get(index)
            .ok_or_else(|| crate::StoreError::Column {
                column: index.to_string(),
                message: format!("the row has {} columns", self.values.len()),
            })?;
        T::from_column(value).map_err(|message| crate::StoreError::Column {
            column: self
                .columns
                .get(index)
                .cloned()
                .unwrap_or_else(|| index.to_string()),
            message,
        })
    }

    /// The column named `name` as `T`.
    pub fn get_named<T: FromColumn>(&self, name: &str) -> Result<T, crate::StoreError> {
        let index = self.columns.iter().position(|c| c == name).ok_or_else(|| {
            crate::StoreError::Column {
                column: name.to_string(),
                message: "no such column in the row".to_string(),
            }
        })?;
        self.get(index)
    }

    /// The columns' names.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// The values, in column order.
    pub fn values(&self) -> &[SqlValue] {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_of_another_kind_or_range_is_an_error_not_a_conversion() {
        assert_eq!(u8::from_column(&SqlValue::Integer(255)), Ok(255));
        assert!(u8::from_column(&SqlValue::Integer(256)).is_err());
        assert!(u32::from_column(&SqlValue::Integer(-1)).is_err());
        assert!(i64::from_column(&SqlValue::Text("1".into())).is_err());
        assert!(bool::from_column(&SqlValue::Integer(2)).is_err());
        assert!(f64::from_column(&SqlValue::Integer(1 << 60)).is_err());
        assert_eq!(
            Option::<String>::from_column(&SqlValue::Null),
            Ok(None::<String>)
        );
        assert!(String::from_column(&SqlValue::Null).is_err());
    }
}
