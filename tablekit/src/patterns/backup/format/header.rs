//! The [`BackupHeader`]: the first line of a file, naming the format, its version and the
//! table it came from.

use serde::{Deserialize, Serialize};

use super::{FORMAT_NAME, FORMAT_VERSION};
use crate::codec;

/// The first line of a backup: what it holds and where it came from.
///
/// ```
/// use tablekit::patterns::backup::BackupHeader;
/// let h = BackupHeader::for_table("Logs").with_filter("PartitionKey eq 'a'");
/// assert_eq!(h.version, 1);
/// assert_eq!(h.filter.as_deref(), Some("PartitionKey eq 'a'"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BackupHeader {
    /// Always `tablekit-backup`.
    pub format: String,
    /// The format version.
    pub version: u32,
    /// The source table, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    /// The query filter the backup was taken with, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// When the backup was started (ISO 8601 UTC), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

impl Default for BackupHeader {
    fn default() -> Self {
        BackupHeader {
            format: FORMAT_NAME.to_owned(),
            version: FORMAT_VERSION,
            table: None,
            filter: None,
            created: Some(codec::format_datetime(&chrono::Utc::now())),
        }
    }
}

impl BackupHeader {
    /// A header for a backup of `table`, created now.
    ///
    /// ```
    /// use tablekit::patterns::backup::{BackupHeader, FORMAT_NAME};
    /// let h = BackupHeader::for_table("Logs");
    /// assert_eq!((h.format.as_str(), h.table.as_deref()), (FORMAT_NAME, Some("Logs")));
    /// assert!(h.created.is_some_and(|t| t.ends_with('Z'))); // UTC
    /// assert_eq!(h.filter, None);
    /// ```
    pub fn for_table(table: impl Into<String>) -> Self {
        BackupHeader {
            table: Some(table.into()),
            ..BackupHeader::default()
        }
    }

    /// Records the filter the backup was taken with.
    ///
    /// ```
    /// use tablekit::patterns::backup::{BackupHeader, BackupReader, BackupWriter};
    /// # futures::executor::block_on(async {
    /// let header = BackupHeader::for_table("Logs").with_filter("PartitionKey eq 'web'");
    /// let mut file = Vec::new();
    /// BackupWriter::new(&mut file, &header).await?.finish().await?;
    /// let reader = BackupReader::open(&file[..]).await?;
    /// assert_eq!(reader.header().filter.as_deref(), Some("PartitionKey eq 'web'"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn with_filter(mut self, filter: impl Into<String>) -> Self {
        self.filter = Some(filter.into());
        self
    }
}
