//! Roots on disk: directories walked for their listing, zip files opened as archives. This is
//! the only place the native tool touches the file system for input, and it only reads.

use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use copilot_lens::input::Stat;
use copilot_lens::input::layout::zips_outside_homes;
use copilot_lens::input::zip::ZipRoot;
use copilot_lens::input::{FileReader, ListedFile, ReadAt, RootListing};
use copilot_lens::sources;

use crate::terminal::say;

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
    /// Each folder root's canonical path: its identity in the cache's keys.
    identities: Vec<Option<Arc<str>>>,
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
    /// Lists every root; a root that is missing or unreadable is an error for the whole run. A
    /// zip found in a folder that cannot be read is left out with a warning on stderr, as the
    /// page leaves out a root it cannot open; when nothing is left, the run fails with the
    /// warnings.
    pub fn open(paths: &[PathBuf], scope: Scope, threads: usize) -> Result<(DiskRoots, Vec<RootListing>), String> {
        let mut roots = Vec::new();
        let mut listings = Vec::new();
        let mut left_out = Vec::new();
        for path in paths {
            let label = path.display().to_string();
            let metadata = fs::metadata(path).map_err(|error| format!("{label}: {error}"))?;
            if metadata.is_dir() {
                let listing = list_directory(path, &label, scope, threads);
                let found = zips_outside_homes(listing.files.iter().map(|file| file.path.as_str()));
                if found.holds_data || found.zips.is_empty() {
                    listings.push(listing);
                    roots.push(Root::Directory(path.clone()));
                }
                for zip in found.zips {
                    let label = format!("{}/{zip}", label.trim_end_matches(['/', '\\']));
                    match open_zip(&path.join(zip), &label) {
                        Ok((zip, listing)) => {
                            listings.push(listing);
                            roots.push(Root::Zip(zip));
                        }
                        Err(message) => left_out.push(message),
                    }
                }
            } else if metadata.is_file() {
                let (zip, listing) = open_zip(path, &label)?;
                listings.push(listing);
                roots.push(Root::Zip(zip));
            } else {
                // Opening a named pipe would wait for a writer.
                return Err(format!(
                    "{label}: {}, not a folder or a zip file: give a home folder, a .copilot folder, or a zip of either",
                    special_kind(&metadata.file_type())
                ));
            }
        }
        if roots.is_empty() && !left_out.is_empty() {
            return Err(left_out.join("; "));
        }
        for message in left_out {
            say!("warning: {message} (left out)");
        }
        let identities = roots
            .iter()
            .map(|root| match root {
                Root::Directory(path) => fs::canonicalize(path).ok().map(|path| path.to_string_lossy().into()),
                Root::Zip(_) => None,
            })
            .collect();
        Ok((DiskRoots { roots, identities }, listings))
    }

    /// One file of a folder as a root of its own (`relative` to `folder`, `/`-separated), for a
    /// run that reads that file only (the status line's session log): a regular file, not
    /// followed through a link. The folder's identity is as `open` gives it, so that its cache
    /// entries are the same.
    pub fn one_file(folder: &Path, relative: &str) -> Result<(DiskRoots, Vec<RootListing>), String> {
        let path = folder.join(relative);
        let metadata = fs::symlink_metadata(&path).map_err(|error| format!("{}: {error}", path.display()))?;
        if !metadata.is_file() {
            return Err(format!("{}: not a file", path.display()));
        }
        let label = folder.display().to_string();
        let listing =
            RootListing { label, files: vec![listed_file_from(relative.to_string(), &metadata)], problems: Vec::new() };
        let identity = fs::canonicalize(folder).ok().map(|path| path.to_string_lossy().into());
        let roots = DiskRoots { roots: vec![Root::Directory(folder.to_path_buf())], identities: vec![identity] };
        Ok((roots, vec![listing]))
    }

    /// A folder root's file as the cache names it: its root's identity and its full path. None
    /// for a zip's entries (read again each run).
    pub fn folder_file(&self, root: usize, path: &str) -> Option<(&str, PathBuf)> {
        let (Root::Directory(base), Some(identity)) = (&self.roots[root], &self.identities[root]) else { return None };
        Some((identity, base.join(path)))
    }

    /// Where a file below a folder root is: the root's index and the file's path in it, as a
    /// listing names it.
    pub fn place(&self, file: &Path) -> Option<(usize, String)> {
        self.roots.iter().enumerate().find_map(|(index, root)| match root {
            Root::Directory(base) => Some((index, slash_path(file.strip_prefix(base).ok()?))),
            Root::Zip(_) => None,
        })
    }

    /// A folder root's file as listed now, unopened: its root's identity, and its size and
    /// times. None for a zip's entries and a file that is gone.
    pub fn folder_stat(&self, root: usize, path: &str) -> Option<(&str, Stat)> {
        let (identity, full) = self.folder_file(root, path)?;
        Some((identity, stat_of(&fs::metadata(full).ok()?)))
    }

    /// The directories among the roots, to keep the output folder out of them.
    pub fn directories(&self) -> impl Iterator<Item = &Path> {
        self.roots.iter().filter_map(|root| match root {
            Root::Directory(path) => Some(path.as_path()),
            Root::Zip(_) => None,
        })
    }

    /// The folders a walk of the directory roots reads (`list_directory`), to keep the cache out
    /// of them: a home's source folders (those it lacks too, which a folder made there would
    /// start), else the whole root; and where the links directly in those lead, which the walk
    /// follows (`list_some`).
    pub fn read_folders(&self) -> Vec<PathBuf> {
        let of_root = |base: &Path| {
            if is_home(base) {
                sources::home_folders().into_iter().map(|folder| base.join(folder)).collect()
            } else {
                vec![base.to_path_buf()]
            }
        };
        let folders: Vec<PathBuf> = self.directories().flat_map(of_root).collect();
        let linked = (folders.iter().filter_map(|folder| fs::read_dir(folder).ok()).flatten().flatten())
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_symlink()))
            .filter_map(|entry| fs::canonicalize(entry.path()).ok())
            .collect::<Vec<_>>();
        folders.into_iter().chain(linked).collect()
    }
}

/// The inode's change time, in nanoseconds since the epoch (`Stat::changed_ns`): a write, or
/// times set back by hand, set it to the clock's now, and nothing sets it back.
#[cfg(unix)]
fn changed_ns(metadata: &fs::Metadata) -> Option<i64> {
    use std::os::unix::fs::MetadataExt;
    metadata.ctime().checked_mul(1_000_000_000)?.checked_add(metadata.ctime_nsec())
}

/// Windows: std gives no change time (Windows' own is in no std API), so the cache's rule
/// stands on the size and modification time there, as in the page.
#[cfg(not(unix))]
fn changed_ns(_: &fs::Metadata) -> Option<i64> {
    None
}

fn open_zip(path: &Path, label: &str) -> Result<(ZipRoot<SharedFile>, RootListing), String> {
    let file = File::open(path).map_err(|error| format!("{label}: {error}"))?;
    ZipRoot::open(SharedFile::new(file), label).map_err(|why| format!("{label}: {why}"))
}

impl FileReader for DiskRoots {
    fn open(&mut self, root: usize, path: &str) -> io::Result<Box<dyn Read + '_>> {
        match &mut self.roots[root] {
            Root::Directory(base) => Ok(Box::new(File::open(base.join(path))?)),
            Root::Zip(zip) => zip.open_entry(path),
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

/// A file read at positions (the session store, page by page; a file's two ends for its key).
pub struct PositionalFile(pub File);

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
    /// Zeroed once at its longest; `buffered` bytes of it from `buffer_start` are the file's.
    buffer: Vec<u8>,
    buffered: usize,
    buffer_start: u64,
    /// What the last read fetched.
    fetched: usize,
}

/// A read at a new place fetches `FIRST_FETCH` bytes (a zip entry's header and most of the
/// entries of a home are smaller), a read that follows on from the last twice as much as that
/// one, up to `LONGEST_FETCH` (a log read through). Fetching the longest every time copied
/// 64 KB for each of 400,000 small entries.
const FIRST_FETCH: usize = 8 << 10;
const LONGEST_FETCH: usize = 64 << 10;

impl SharedFile {
    fn new(file: File) -> Self {
        SharedFile { file: Arc::new(file), position: 0, buffer: Vec::new(), buffered: 0, buffer_start: 0, fetched: 0 }
    }
}

impl Clone for SharedFile {
    fn clone(&self) -> Self {
        SharedFile {
            file: Arc::clone(&self.file),
            position: self.position,
            buffer: Vec::new(),
            buffered: 0,
            buffer_start: 0,
            fetched: 0,
        }
    }
}

impl Read for SharedFile {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let end = self.buffer_start + self.buffered as u64;
        if !(self.buffer_start..end).contains(&self.position) {
            let follows = self.position == end && self.buffered > 0;
            let length = if follows { self.fetched * 2 } else { FIRST_FETCH };
            let length = length.max(out.len()).clamp(FIRST_FETCH, LONGEST_FETCH);
            if self.buffer.len() < length {
                self.buffer.resize(length, 0);
            }
            self.buffered = read_at(&self.file, &mut self.buffer[..length], self.position)?;
            (self.buffer_start, self.fetched) = (self.position, length);
            if self.buffered == 0 {
                return Ok(0);
            }
        }
        let available = &self.buffer[(self.position - self.buffer_start) as usize..self.buffered];
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

/// A home's source folders if it has any data folder, else the whole directory (a
/// `.copilot` itself). Inside a home only the sources' folders are walked: the rest of a home
/// is none of our business. A usage-only walk needs only the data folders.
fn list_directory(base: &Path, label: &str, scope: Scope, threads: usize) -> RootListing {
    let mut listing = RootListing { label: label.to_string(), ..RootListing::default() };
    let exists = |folder: &&str| base.join(folder).is_dir();
    if is_home(base) {
        let folders = if scope == Scope::Everything { sources::home_folders() } else { sources::data_folders() };
        for folder in folders.into_iter().filter(exists) {
            walk(base, Path::new(folder), scope, threads, &mut listing);
        }
        if scope == Scope::Everything {
            list_top_files(base, &mut listing);
        }
    } else {
        walk(base, Path::new(""), scope, threads, &mut listing);
    }
    listing.files.sort_by(|a, b| a.path.cmp(&b.path));
    listing.problems.sort();
    listing
}

/// The files at a home's top that the sources read (`HomeLayout::top_files`), where they are
/// files (a link is not followed, as in the walk).
fn list_top_files(base: &Path, listing: &mut RootListing) {
    for name in sources::home_files() {
        match fs::symlink_metadata(base.join(name)) {
            Ok(metadata) if metadata.is_file() => listing.files.push(listed_file_from(name.to_string(), &metadata)),
            Ok(metadata) if metadata.is_symlink() => {
                listing.problems.push((name.to_string(), "symbolic link, not followed".into()))
            }
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(error) => listing.problems.push((name.to_string(), format!("cannot read metadata: {error}"))),
        }
    }
}

/// Whether a folder is a home: it has a source's data folder, so that only the sources'
/// folders are walked.
fn is_home(base: &Path) -> bool {
    sources::data_folders().iter().any(|folder| base.join(folder).is_dir())
}

/// Whether a usage-only walk needs a path below the walk's start (`inside` is relative to it):
/// the event logs and the stores, at any depth (the start may be a Copilot folder, a home, a
/// folder of several homes, or of loose logs).
fn needed_for_usage(inside: &Path, is_dir: bool) -> bool {
    let name = inside.file_name().map(|name| name.to_string_lossy());
    let Some(name) = name else { return false };
    if is_dir {
        return true;
    }
    // A log anywhere: a root of loose logs is read too (the plan leaves out those outside a home).
    let folder = inside.parent().and_then(Path::file_name).map(|folder| folder.to_string_lossy());
    // A zip too: one outside the homes is read as a root of its own (`zips_outside_homes`).
    sources::is_usage_log(folder.as_deref().unwrap_or_default(), &name)
        || sources::is_store_file(&name)
        || name.to_ascii_lowercase().ends_with(".zip")
}

/// Lists files below `base/relative` without following symbolic links (the XDG migration
/// leaves links behind, and a link loop must not hang the walk). A level of the tree with many
/// folders (session-state/ holds one per session) is listed on `threads` threads.
fn walk(base: &Path, relative: &Path, scope: Scope, threads: usize, listing: &mut RootListing) {
    const PARALLEL_FROM: usize = 64;
    let mut level = vec![relative.to_path_buf()];
    while !level.is_empty() {
        let parts: Vec<Listed> = if threads > 1 && level.len() >= PARALLEL_FROM {
            std::thread::scope(|threads_scope| {
                let workers: Vec<_> = level
                    .chunks(level.len().div_ceil(threads))
                    .map(|directories| threads_scope.spawn(move || list_some(base, relative, scope, directories)))
                    .collect();
                workers
                    .into_iter()
                    .map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                    .collect()
            })
        } else {
            vec![list_some(base, relative, scope, &level)]
        };
        level = Vec::new();
        for part in parts {
            listing.files.extend(part.files);
            listing.problems.extend(part.problems);
            level.extend(part.directories);
        }
    }
}

/// What listing some directories found.
#[derive(Default)]
struct Listed {
    files: Vec<ListedFile>,
    problems: Vec<(String, String)>,
    /// The directories inside them, for the next level.
    directories: Vec<PathBuf>,
}

fn list_some(base: &Path, relative: &Path, scope: Scope, directories: &[PathBuf]) -> Listed {
    let mut listed = Listed::default();
    for directory in directories {
        let parent = directory.parent().and_then(Path::file_name).map(|name| name.to_string_lossy());
        if scope == Scope::Usage
            && let Some(log_name) = parent.as_deref().and_then(sources::session_folder_log)
        {
            // A session folder: its log is looked up by name rather than the folder listed.
            let log = directory.join(log_name);
            match fs::symlink_metadata(base.join(&log)) {
                Ok(metadata) if metadata.is_file() => listed.files.push(listed_file_from(slash_path(&log), &metadata)),
                Ok(metadata) if metadata.is_symlink() => {
                    listed.problems.push((slash_path(&log), "symbolic link, not followed".into()))
                }
                Ok(metadata) if !metadata.is_dir() => {
                    listed.problems.push((slash_path(&log), not_read(&metadata.file_type())))
                }
                Ok(_) => {}
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => listed.problems.push((slash_path(&log), format!("cannot read metadata: {error}"))),
            }
            continue;
        }
        // Some sources' folders are walked only into the folders they read (VS Code's user
        // data), by the folder's path with the root's own name before it.
        let walk_only = sources::walk_only(&folder_path(base, directory));
        let entries = match fs::read_dir(base.join(directory)) {
            Ok(entries) => entries,
            Err(error) => {
                listed.problems.push((slash_path(directory), format!("cannot list: {error}")));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(entry) => entry,
                Err(error) => {
                    listed.problems.push((slash_path(directory), format!("cannot list: {error}")));
                    continue;
                }
            };
            let path = directory.join(entry.file_name());
            // Links directly in the top folder are followed (dotfiles managers link
            // `~/.copilot/session-state` and the like); links below it are not. Below it the
            // kind comes from the listing itself, with no call per entry.
            let kind = if directory == relative {
                fs::metadata(entry.path()).map(|m| m.file_type())
            } else {
                entry.file_type()
            };
            let kind = match kind {
                Ok(kind) => kind,
                Err(error) => {
                    listed.problems.push((slash_path(&path), format!("cannot read metadata: {error}")));
                    continue;
                }
            };
            if scope == Scope::Usage && !needed_for_usage(path.strip_prefix(relative).unwrap_or(&path), kind.is_dir()) {
                continue;
            }
            if kind.is_symlink() {
                listed.problems.push((slash_path(&path), "symbolic link, not followed".into()));
            } else if kind.is_dir() {
                let name = entry.file_name();
                if walk_only.is_none_or(|only| only.iter().any(|wanted| name.as_os_str() == *wanted)) {
                    listed.directories.push(path);
                }
            } else if kind.is_file() {
                match listed_file(&base.join(&path), slash_path(&path)) {
                    Ok(file) => listed.files.push(file),
                    Err(error) => listed.problems.push((slash_path(&path), format!("cannot read metadata: {error}"))),
                }
            } else {
                listed.problems.push((slash_path(&path), not_read(&kind)));
            }
        }
    }
    listed
}

/// What a file that is neither a regular file, a folder nor a link is.
#[cfg(unix)]
fn special_kind(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a named pipe (FIFO)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &fs::FileType) -> &'static str {
    "a special file"
}

/// The listing problem of a special file: it holds no data to read (a pipe would wait for a
/// writer, a device never end).
fn not_read(kind: &fs::FileType) -> String {
    format!("{}, not a regular file; not read", special_kind(kind))
}

/// A file with its size and time.
fn listed_file(full: &Path, path: String) -> io::Result<ListedFile> {
    Ok(listed_file_from(path, &fs::metadata(full)?))
}

/// A file's size and times from its metadata.
pub fn stat_of(metadata: &fs::Metadata) -> Stat {
    let listed = listed_file_from(String::new(), metadata);
    Stat { size: listed.size, modified_ms: listed.modified_ms, changed_ns: changed_ns(metadata) }
}

fn listed_file_from(path: String, metadata: &fs::Metadata) -> ListedFile {
    let modified_ms = metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|since| since.as_millis() as i64);
    ListedFile { path, size: metadata.len(), modified_ms }
}

/// A folder's path for the walk rules: the root's own name, then the folder's path in it.
fn folder_path(base: &Path, directory: &Path) -> String {
    let root_name = base.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
    match slash_path(directory) {
        inside if inside.is_empty() => root_name.into_owned(),
        inside => format!("{root_name}/{inside}"),
    }
}

fn slash_path(path: &Path) -> String {
    path.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}
