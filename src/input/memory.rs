//! Roots held in memory: the bundled demo, tests, and the browser's loose files.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::Arc;

use super::{FileReader, ListedFile, ReadAt, RootListing};

/// One root's files by path, each with its bytes and modification time.
#[derive(Clone, Debug, Default)]
pub struct MemoryRoot {
    pub label: String,
    pub files: BTreeMap<String, (Arc<[u8]>, Option<i64>)>,
}

impl MemoryRoot {
    pub fn new(label: &str) -> Self {
        MemoryRoot { label: label.to_string(), files: BTreeMap::new() }
    }

    pub fn insert(&mut self, path: &str, bytes: impl Into<Vec<u8>>, modified_ms: Option<i64>) {
        self.files.insert(path.to_string(), (Arc::from(bytes.into()), modified_ms));
    }

    pub fn listing(&self) -> RootListing {
        RootListing {
            label: self.label.clone(),
            files: self
                .files
                .iter()
                .map(|(path, (bytes, modified_ms))| ListedFile {
                    path: path.clone(),
                    size: bytes.len() as u64,
                    modified_ms: *modified_ms,
                })
                .collect(),
            problems: Vec::new(),
        }
    }
}

/// Several memory roots as one reader.
pub struct MemoryRoots(pub Vec<MemoryRoot>);

impl MemoryRoots {
    pub fn listings(&self) -> Vec<RootListing> {
        self.0.iter().map(MemoryRoot::listing).collect()
    }
}

impl FileReader for MemoryRoots {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        let (bytes, _) = self
            .0
            .get(root)
            .and_then(|root| root.files.get(path))
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{path}: not in the root")))?;
        Ok(Box::new(&bytes[..]))
    }

    fn open_at(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        let (bytes, _) = self.0.get(root)?.files.get(path)?;
        Some(Ok(Box::new(Arc::clone(bytes))))
    }
}
