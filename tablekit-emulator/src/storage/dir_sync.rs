//! Making a directory's entries durable: a created or renamed file survives a crash only once
//! its directory is synced too, which both the data file and the old journal's migration need.

use std::fs::File;
use std::path::Path;

/// Makes a directory's entries (a created or renamed file) durable.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    // Directories can be opened for reading and fsynced on Unix; elsewhere the rename's
    // durability is the file system's.
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}
