//! A SQLite database read from memory: an image of its bytes handed to SQLite, never a file
//! opened in place (SQLite would write beside it).

use std::ptr::NonNull;

use rusqlite::serialize::OwnedData;
use rusqlite::{Connection, MAIN_DB};

/// A zeroed buffer from SQLite's allocator, which `deserialize` takes over without a copy.
pub fn sqlite_buffer(size: usize) -> Result<OwnedData, String> {
    let pointer = unsafe { rusqlite::ffi::sqlite3_malloc64(size as u64) }.cast::<u8>();
    let pointer = NonNull::new(pointer).ok_or_else(|| format!("cannot allocate {size} bytes for the database"))?;
    // SAFETY: the pointer comes from sqlite3_malloc64 with `size` bytes; OwnedData frees it
    // with sqlite3_free, or hands it to SQLite in `deserialize`.
    Ok(unsafe { OwnedData::from_raw_nonnull(pointer, size) })
}

pub fn open_image(image: OwnedData) -> Result<Connection, String> {
    let mut connection = Connection::open_in_memory().map_err(|error| error.to_string())?;
    connection.deserialize(MAIN_DB, image, true).map_err(|error| format!("SQLite cannot open the image: {error}"))?;
    Ok(connection)
}
