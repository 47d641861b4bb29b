//! A read-only SQLite VFS that serves the pages of a database straight from its files: a page
//! the write-ahead log holds (its latest committed frame) is read from the log, any other from
//! the main file, each when SQLite asks for it. Memory is SQLite's page cache and the log's
//! index, whatever the size of the store; nothing is ever written.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::io;
use std::rc::Rc;
use std::sync::Once;

use rusqlite::ffi;
use rusqlite::{Connection, OpenFlags};

use super::wal::WalIndex;
use crate::input::ReadAt;

/// The database as SQLite sees it: the main file with the log's committed pages on top.
pub struct PagedDatabase {
    pub main: Option<Box<dyn ReadAt>>,
    pub main_size: u64,
    pub wal: Option<(Box<dyn ReadAt>, WalIndex)>,
    /// Why the last read failed: SQLite only hears `SQLITE_IOERR_READ`, so the cause is kept
    /// here for the message (`Registration::take_read_error`).
    pub read_error: Option<String>,
}

impl PagedDatabase {
    fn size(&self) -> u64 {
        match &self.wal {
            Some((_, index)) if index.database_pages.is_some() => {
                index.database_pages.unwrap_or(0) * index.page_size as u64
            }
            _ => self.main_size,
        }
    }

    fn read(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        buffer.fill(0);
        let mut done = 0usize;
        while done < buffer.len() {
            let at = offset + done as u64;
            let from_log = self.wal.as_mut().and_then(|(log, index)| {
                let page_size = index.page_size as u64;
                let page = u32::try_from(at / page_size + 1).ok()?;
                let frame_data = index.frame_data_offset(page)?;
                let within = at % page_size;
                let len = (page_size - within).min((buffer.len() - done) as u64) as usize;
                Some(log.read_at(frame_data + within, &mut buffer[done..done + len]).map(|_| len))
            });
            let len = match from_log {
                Some(read) => read?,
                None => {
                    // The rest of the request up to the next page the log may hold.
                    let page_size = self.wal.as_ref().map_or(buffer.len() as u64, |(_, index)| index.page_size as u64);
                    let len = (page_size - at % page_size).min((buffer.len() - done) as u64) as usize;
                    if let Some(main) = self.main.as_mut() {
                        main.read_at(at, &mut buffer[done..done + len])?;
                    }
                    len
                }
            };
            done += len;
        }
        // Header bytes 18 and 19 say WAL (2); the image is served as a rollback-journal database.
        if offset <= 19 && offset + buffer.len() as u64 > 19 {
            buffer[(18 - offset) as usize] = 1;
            buffer[(19 - offset) as usize] = 1;
        }
        Ok(())
    }
}

thread_local! {
    static DATABASES: RefCell<HashMap<String, Rc<RefCell<PagedDatabase>>>> = RefCell::new(HashMap::new());
    static NEXT_NAME: RefCell<u64> = const { RefCell::new(0) };
}

const VFS_NAME: &CStr = c"copilot-lens-pages";

/// Opens a connection reading `database` through the VFS. The database stays registered while
/// the returned guard lives; drop the connection first.
pub fn open(database: PagedDatabase) -> Result<(Connection, Registration), String> {
    register();
    let name = NEXT_NAME.with(|next| {
        let mut next = next.borrow_mut();
        *next += 1;
        format!("store-{}", *next)
    });
    DATABASES.with(|databases| databases.borrow_mut().insert(name.clone(), Rc::new(RefCell::new(database))));
    let registration = Registration(name.clone());
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let connection = Connection::open_with_flags_and_vfs(format!("file:{name}?immutable=1"), flags, VFS_NAME)
        .map_err(|error| registration.explain(format!("SQLite cannot open the store: {error}")))?;
    Ok((connection, registration))
}

/// Removes a database from the registry when dropped.
pub struct Registration(String);

impl Registration {
    /// Why a read of the files failed since the last call, if one did.
    pub fn take_read_error(&self) -> Option<String> {
        DATABASES.with(|databases| {
            databases.borrow().get(&self.0).and_then(|database| database.borrow_mut().read_error.take())
        })
    }

    /// `message` with the cause of a failed read of the files, where one failed.
    pub fn explain(&self, message: String) -> String {
        match self.take_read_error() {
            Some(cause) => format!("{message} (reading the store's files failed: {cause})"),
            None => message,
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        DATABASES.with(|databases| databases.borrow_mut().remove(&self.0));
    }
}

#[repr(C)]
struct PagedFile {
    base: ffi::sqlite3_file,
    database: *const RefCell<PagedDatabase>,
}

fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let vfs = Box::new(ffi::sqlite3_vfs {
            iVersion: 1,
            szOsFile: std::mem::size_of::<PagedFile>() as c_int,
            mxPathname: 512,
            pNext: std::ptr::null_mut(),
            zName: VFS_NAME.as_ptr(),
            pAppData: std::ptr::null_mut(),
            xOpen: Some(x_open),
            xDelete: Some(x_delete),
            xAccess: Some(x_access),
            xFullPathname: Some(x_full_pathname),
            xDlOpen: None,
            xDlError: None,
            xDlSym: None,
            xDlClose: None,
            xRandomness: Some(x_randomness),
            xSleep: Some(x_sleep),
            xCurrentTime: Some(x_current_time),
            xGetLastError: None,
            xCurrentTimeInt64: None,
            xSetSystemCall: None,
            xGetSystemCall: None,
            xNextSystemCall: None,
        });
        // SAFETY: the VFS lives for the rest of the process (leaked on purpose).
        unsafe { ffi::sqlite3_vfs_register(Box::into_raw(vfs), 0) };
    });
}

static IO_METHODS: ffi::sqlite3_io_methods = ffi::sqlite3_io_methods {
    iVersion: 1,
    xClose: Some(x_close),
    xRead: Some(x_read),
    xWrite: Some(x_write),
    xTruncate: Some(x_truncate),
    xSync: Some(x_sync),
    xFileSize: Some(x_file_size),
    xLock: Some(x_lock),
    xUnlock: Some(x_lock),
    xCheckReservedLock: Some(x_check_reserved_lock),
    xFileControl: Some(x_file_control),
    xSectorSize: Some(x_sector_size),
    xDeviceCharacteristics: Some(x_device_characteristics),
    xShmMap: None,
    xShmLock: None,
    xShmBarrier: None,
    xShmUnmap: None,
    xFetch: None,
    xUnfetch: None,
};

unsafe extern "C" fn x_open(
    _: *mut ffi::sqlite3_vfs,
    name: ffi::sqlite3_filename,
    file: *mut ffi::sqlite3_file,
    _: c_int,
    out_flags: *mut c_int,
) -> c_int {
    // SAFETY: SQLite hands a file struct of `szOsFile` bytes and a name it owns (or null).
    unsafe {
        let file = file.cast::<PagedFile>();
        (*file).base.pMethods = std::ptr::null();
        if name.is_null() {
            return ffi::SQLITE_CANTOPEN; // temporary files: none are needed for reading
        }
        let key = CStr::from_ptr(name).to_string_lossy().into_owned();
        let Some(database) = DATABASES.with(|databases| databases.borrow().get(&key).cloned()) else {
            return ffi::SQLITE_CANTOPEN; // a journal or log of ours: there is none
        };
        (*file).database = Rc::into_raw(database);
        (*file).base.pMethods = &IO_METHODS;
        if !out_flags.is_null() {
            *out_flags = ffi::SQLITE_OPEN_READONLY;
        }
        ffi::SQLITE_OK
    }
}

unsafe extern "C" fn x_close(file: *mut ffi::sqlite3_file) -> c_int {
    // SAFETY: `database` came from Rc::into_raw in x_open and is released once here.
    unsafe {
        let file = file.cast::<PagedFile>();
        if !(*file).database.is_null() {
            drop(Rc::from_raw((*file).database));
            (*file).database = std::ptr::null();
        }
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_read(
    file: *mut ffi::sqlite3_file,
    buffer: *mut c_void,
    amount: c_int,
    offset: ffi::sqlite3_int64,
) -> c_int {
    // SAFETY: SQLite asks for `amount` bytes into a buffer it owns, on a file x_open set up.
    unsafe {
        let database = &*(*file.cast::<PagedFile>()).database;
        let buffer = std::slice::from_raw_parts_mut(buffer.cast::<u8>(), amount.max(0) as usize);
        let mut database = database.borrow_mut();
        let size = database.size();
        let offset = offset.max(0) as u64;
        match database.read(offset, buffer) {
            Ok(()) if offset + buffer.len() as u64 > size => ffi::SQLITE_IOERR_SHORT_READ,
            Ok(()) => ffi::SQLITE_OK,
            Err(error) => {
                database.read_error = Some(error.to_string());
                ffi::SQLITE_IOERR_READ
            }
        }
    }
}

unsafe extern "C" fn x_file_size(file: *mut ffi::sqlite3_file, size: *mut ffi::sqlite3_int64) -> c_int {
    // SAFETY: as in x_read.
    unsafe {
        let database = &*(*file.cast::<PagedFile>()).database;
        *size = database.borrow().size() as ffi::sqlite3_int64;
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_write(_: *mut ffi::sqlite3_file, _: *const c_void, _: c_int, _: ffi::sqlite3_int64) -> c_int {
    ffi::SQLITE_READONLY
}

unsafe extern "C" fn x_truncate(_: *mut ffi::sqlite3_file, _: ffi::sqlite3_int64) -> c_int {
    ffi::SQLITE_READONLY
}

unsafe extern "C" fn x_sync(_: *mut ffi::sqlite3_file, _: c_int) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_lock(_: *mut ffi::sqlite3_file, _: c_int) -> c_int {
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_check_reserved_lock(_: *mut ffi::sqlite3_file, out: *mut c_int) -> c_int {
    // SAFETY: SQLite passes a valid out pointer.
    unsafe { *out = 0 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_file_control(_: *mut ffi::sqlite3_file, _: c_int, _: *mut c_void) -> c_int {
    ffi::SQLITE_NOTFOUND
}

unsafe extern "C" fn x_sector_size(_: *mut ffi::sqlite3_file) -> c_int {
    4096
}

unsafe extern "C" fn x_device_characteristics(_: *mut ffi::sqlite3_file) -> c_int {
    ffi::SQLITE_IOCAP_IMMUTABLE
}

unsafe extern "C" fn x_delete(_: *mut ffi::sqlite3_vfs, _: *const c_char, _: c_int) -> c_int {
    ffi::SQLITE_READONLY
}

unsafe extern "C" fn x_access(_: *mut ffi::sqlite3_vfs, name: *const c_char, _: c_int, out: *mut c_int) -> c_int {
    // SAFETY: SQLite passes a name it owns and a valid out pointer.
    unsafe {
        let key = CStr::from_ptr(name).to_string_lossy();
        *out = c_int::from(DATABASES.with(|databases| databases.borrow().contains_key(key.as_ref())));
    }
    ffi::SQLITE_OK
}

unsafe extern "C" fn x_full_pathname(
    _: *mut ffi::sqlite3_vfs,
    name: *const c_char,
    size: c_int,
    out: *mut c_char,
) -> c_int {
    // SAFETY: `out` holds `size` bytes; the name is copied with its terminator, or refused.
    unsafe {
        let bytes = CStr::from_ptr(name).to_bytes_with_nul();
        if bytes.len() > size.max(0) as usize {
            return ffi::SQLITE_CANTOPEN;
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), out, bytes.len());
    }
    ffi::SQLITE_OK
}

/// No randomness is needed to read, and the core reads no entropy: zeros.
unsafe extern "C" fn x_randomness(_: *mut ffi::sqlite3_vfs, size: c_int, out: *mut c_char) -> c_int {
    // SAFETY: `out` holds `size` bytes.
    unsafe { std::ptr::write_bytes(out, 0, size.max(0) as usize) };
    size
}

unsafe extern "C" fn x_sleep(_: *mut ffi::sqlite3_vfs, microseconds: c_int) -> c_int {
    microseconds
}

/// The core reads no clock: SQLite gets the Julian day of 1970-01-01 (only date functions,
/// which no query here uses, would see it).
unsafe extern "C" fn x_current_time(_: *mut ffi::sqlite3_vfs, out: *mut f64) -> c_int {
    // SAFETY: SQLite passes a valid out pointer.
    unsafe { *out = 2_440_587.5 };
    ffi::SQLITE_OK
}
