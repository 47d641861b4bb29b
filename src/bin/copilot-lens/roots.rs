//! Roots on disk: directories walked for their listing, zip files opened as archives. This is
//! the only place the native tool touches the file system for input, and it only reads.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use copilot_lens::input::zip::ZipRoot;
use copilot_lens::input::{FileReader, ListedFile, ReadAt, RootListing};

/// Inside a home, only these folders are walked: the rest of a home is none of our business.
const HOME_FOLDERS: [&str; 6] = [
    ".copilot",
    ".local/state/.copilot",
    ".config/.copilot",
    ".cache/copilot",
    "Library/Caches/copilot",
    "AppData/Local/copilot",
];

#[derive(Clone)]
enum Root {
    Directory(PathBuf),
    Zip(ZipRoot<SharedFile>),
}

/// The roots of a run. Cloning is cheap (a zip's directory is shared), so that each thread
/// reads with its own handle.
#[derive(Clone)]
pub struct DiskRoots {
    roots: Vec<Root>,
    /// Whether whole files may be memory-mapped (the usage scan).
    map_files: bool,
}

/// What a walk lists.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every file (the report accounts for each).
    Everything,
    /// Only the files that carry counters: event logs and the session store.
    Usage,
}

impl DiskRoots {
    /// Lists every root; a root that is missing or unreadable is an error for the whole run.
    pub fn open(paths: &[PathBuf], scope: Scope) -> Result<(DiskRoots, Vec<RootListing>), String> {
        let mut roots = Vec::new();
        let mut listings = Vec::new();
        for path in paths {
            let label = path.display().to_string();
            let metadata = fs::metadata(path).map_err(|error| format!("{label}: {error}"))?;
            if metadata.is_dir() {
                listings.push(list_directory(path, &label, scope));
                roots.push(Root::Directory(path.clone()));
            } else {
                let file = File::open(path).map_err(|error| format!("{label}: {error}"))?;
                let (zip, listing) = ZipRoot::open(SharedFile::new(file), &label)?;
                listings.push(listing);
                roots.push(Root::Zip(zip));
            }
        }
        Ok((DiskRoots { roots, map_files: scope == Scope::Usage }, listings))
    }

    /// The directories among the roots, to keep the output folder out of them.
    pub fn directories(&self) -> impl Iterator<Item = &Path> {
        self.roots.iter().filter_map(|root| match root {
            Root::Directory(path) => Some(path.as_path()),
            Root::Zip(_) => None,
        })
    }
}

impl FileReader for DiskRoots {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        match &mut self.roots[root] {
            Root::Directory(base) => Ok(Box::new(File::open(base.join(path))?)),
            Root::Zip(zip) => zip.open_entry(path),
        }
    }

    fn view(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn std::ops::Deref<Target = [u8]>>>> {
        match &self.roots[root] {
            Root::Directory(base) if self.map_files => Some(map_file(&base.join(path))),
            _ => None,
        }
    }

    fn open_at(&mut self, root: usize, path: &str) -> Option<io::Result<Box<dyn ReadAt>>> {
        match &self.roots[root] {
            Root::Directory(base) => {
                Some(File::open(base.join(path)).map(|file| Box::new(PositionalFile(file)) as Box<dyn ReadAt>))
            }
            Root::Zip(_) => None,
        }
    }
}

/// A file mapped read-only, for the usage scan to search in place. A file truncated while it
/// is mapped would fault; Copilot CLI appends to its logs and truncates one only on `/rewind`,
/// and a scan holds each mapping for about a millisecond.
fn map_file(path: &Path) -> io::Result<Box<dyn std::ops::Deref<Target = [u8]>>> {
    let file = File::open(path)?;
    if file.metadata()?.len() == 0 {
        return Ok(Box::new(Vec::new()));
    }
    // SAFETY: the mapping is read-only and private to this process; see above for truncation.
    let map = unsafe { memmap2::MmapOptions::new().populate().map(&file)? };
    Ok(Box::new(map))
}

/// A file read at positions (the session store, page by page).
struct PositionalFile(File);

impl ReadAt for PositionalFile {
    fn read_at(&mut self, offset: u64, buffer: &mut [u8]) -> io::Result<usize> {
        let mut filled = 0;
        while filled < buffer.len() {
            match read_at(&self.0, &mut buffer[filled..], offset + filled as u64)? {
                0 => break,
                count => filled += count,
            }
        }
        Ok(filled)
    }
}

/// A file read at positions of its own: clones share the handle, not the position, so
/// threads can read one zip at once.
pub struct SharedFile {
    file: Arc<File>,
    position: u64,
    buffer: Vec<u8>,
    buffer_start: u64,
}

impl SharedFile {
    fn new(file: File) -> Self {
        SharedFile { file: Arc::new(file), position: 0, buffer: Vec::new(), buffer_start: 0 }
    }
}

impl Clone for SharedFile {
    fn clone(&self) -> Self {
        SharedFile { file: Arc::clone(&self.file), position: self.position, buffer: Vec::new(), buffer_start: 0 }
    }
}

impl Read for SharedFile {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buffered =
            self.position >= self.buffer_start && self.position < self.buffer_start + self.buffer.len() as u64;
        if !buffered {
            self.buffer.resize(1 << 16, 0);
            let count = read_at(&self.file, &mut self.buffer, self.position)?;
            self.buffer.truncate(count);
            self.buffer_start = self.position;
            if count == 0 {
                return Ok(0);
            }
        }
        let available = &self.buffer[(self.position - self.buffer_start) as usize..];
        let count = available.len().min(out.len());
        out[..count].copy_from_slice(&available[..count]);
        self.position += count as u64;
        Ok(count)
    }
}

impl Seek for SharedFile {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(offset) => Some(offset),
            SeekFrom::End(delta) => self.file.metadata()?.len().checked_add_signed(delta),
            SeekFrom::Current(delta) => self.position.checked_add_signed(delta),
        };
        self.position = target.ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek before the start"))?;
        Ok(self.position)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buffer, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buffer: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buffer, offset)
}

/// A home's Copilot folders if it has any, else the whole directory (a `.copilot` itself).
fn list_directory(base: &Path, label: &str, scope: Scope) -> RootListing {
    let mut listing = RootListing { label: label.to_string(), ..RootListing::default() };
    let home_folders: Vec<&str> = HOME_FOLDERS.iter().copied().filter(|folder| base.join(folder).is_dir()).collect();
    if home_folders.iter().any(|folder| folder.ends_with(".copilot")) {
        for folder in
            home_folders.into_iter().filter(|folder| scope == Scope::Everything || folder.ends_with(".copilot"))
        {
            walk(base, Path::new(folder), scope, &mut listing);
        }
    } else {
        walk(base, Path::new(""), scope, &mut listing);
    }
    listing.files.sort_by(|a, b| a.path.cmp(&b.path));
    listing
}

/// Whether a usage-only walk needs a path below a Copilot folder (`inside` is relative to it):
/// the session folders' event logs and the store.
fn needed_for_usage(inside: &Path, is_dir: bool) -> bool {
    let parts: Vec<_> = inside.components().map(|part| part.as_os_str().to_string_lossy()).collect();
    match (parts.as_slice(), is_dir) {
        ([first], true) => first == "session-state",
        ([first, _], true) => first == "session-state",
        ([first, _, file], false) => first == "session-state" && file == "events.jsonl",
        ([file], false) => file.starts_with("session-store.db"),
        _ => false,
    }
}

/// Lists files below `base/relative` without following symbolic links (the XDG migration
/// leaves links behind, and a link loop must not hang the walk).
fn walk(base: &Path, relative: &Path, scope: Scope, listing: &mut RootListing) {
    let mut pending = vec![relative.to_path_buf()];
    while let Some(directory) = pending.pop() {
        let entries = match fs::read_dir(base.join(&directory)) {
            Ok(entries) => entries,
            Err(error) => {
                listing.problems.push((slash_path(&directory), format!("cannot list: {error}")));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    listing.problems.push((slash_path(&directory), format!("cannot list: {error}")));
                    continue;
                }
            };
            let path = directory.join(entry.file_name());
            if scope == Scope::Usage {
                let is_dir = match entry.file_type() {
                    Ok(kind) if kind.is_symlink() => fs::metadata(entry.path()).is_ok_and(|target| target.is_dir()),
                    Ok(kind) => kind.is_dir(),
                    Err(_) => false,
                };
                let inside = path.strip_prefix(relative).unwrap_or(&path);
                if !needed_for_usage(inside, is_dir) {
                    continue;
                }
            }
            // Links directly in the top folder are followed (dotfiles managers link
            // `~/.copilot/session-state` and the like); links below it are not.
            let metadata = if directory == relative { fs::metadata(entry.path()) } else { entry.metadata() };
            let metadata = match metadata {
                Ok(metadata) => metadata,
                Err(error) => {
                    listing.problems.push((slash_path(&path), format!("cannot read metadata: {error}")));
                    continue;
                }
            };
            if metadata.file_type().is_symlink() {
                listing.problems.push((slash_path(&path), "symbolic link, not followed".into()));
            } else if metadata.is_dir() {
                pending.push(path);
            } else if metadata.is_file() {
                let modified_ms = metadata
                    .modified()
                    .ok()
                    .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|since| since.as_millis() as i64);
                listing.files.push(ListedFile { path: slash_path(&path), size: metadata.len(), modified_ms });
            }
        }
    }
}

fn slash_path(path: &Path) -> String {
    path.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}
