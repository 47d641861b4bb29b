//! The facts layer: what the sources write and the outputs read, knowing no source. Sources
//! (`crate::sources`) add to it; the report, session records and inventory (`crate::report`,
//! `crate::sessions`, `crate::inventory`) are made from it.

pub mod diagnostics;
pub mod files;
pub mod home;
pub mod log;
pub mod session;
