#![no_main]
//! The whole analysis of a zip root made of any bytes.

use std::io::{self, Cursor, Read};

use copilot_lens::analysis::{Options, analyze};
use copilot_lens::input::FileReader;
use copilot_lens::input::zip::ZipRoot;
use copilot_lens::model::JsonlRowWriter;
use libfuzzer_sys::fuzz_target;

struct OneZip<'a>(ZipRoot<Cursor<&'a [u8]>>);

impl FileReader for OneZip<'_> {
    fn open(&mut self, _root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        self.0.open_entry(path)
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok((zip, listing)) = ZipRoot::open(Cursor::new(data), "fuzz.zip") {
        let mut rows = JsonlRowWriter::new(io::sink());
        let _ = analyze(vec![listing], &mut OneZip(zip), Options::default(), &mut rows);
    }
});
