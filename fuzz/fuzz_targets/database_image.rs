#![no_main]
//! A database image opened with SQLite and read by name, from any bytes: the main file alone,
//! and the same bytes split into a main file and a log.

use std::io::{self, Read};
use std::sync::Arc;

use copilot_lens::sources::copilot_cli::store;
use copilot_lens::sources::store::{PositionalFiles, StoreFiles, StoreScope};
use copilot_lens::input::ReadAt;
use libfuzzer_sys::fuzz_target;

struct Files<'a> {
    main: Option<&'a [u8]>,
    wal: Option<&'a [u8]>,
    /// Serve the pages through the VFS (positional reads) rather than an image in memory.
    paged: bool,
}

impl StoreFiles for Files<'_> {
    fn main_size(&self) -> Option<u64> {
        self.main.map(|main| main.len() as u64)
    }
    fn open_main(&mut self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(self.main.unwrap_or_default()))
    }
    fn has_wal(&self) -> bool {
        self.wal.is_some()
    }
    fn open_wal(&mut self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(self.wal.unwrap_or_default()))
    }
    fn positional(&mut self) -> Option<io::Result<PositionalFiles>> {
        let at = |bytes: Option<&[u8]>| bytes.map(|bytes| Box::new(Arc::<[u8]>::from(bytes)) as Box<dyn ReadAt>);
        self.paged.then(|| Ok((at(self.main), at(self.wal))))
    }
}

fuzz_target!(|data: &[u8]| {
    for paged in [false, true] {
        let _ = store::read(&mut Files { main: Some(data), wal: None, paged }, StoreScope::Everything, &mut |_| {});
        if data.len() > 4096 {
            let (main, wal) = data.split_at(4096);
            let _ = store::read(&mut Files { main: Some(main), wal: Some(wal), paged }, StoreScope::Everything, &mut |_| {});
        }
    }
});
