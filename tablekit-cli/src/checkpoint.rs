//! The checkpoint of a resumable command (`copy`, `restore`, `import`): where to go on from
//! and what was done, written after every committed page so a Ctrl-C or a crash loses no more
//! than the pages in flight.
//!
//! Written to a temporary file and renamed over the old one, so a crash while writing leaves
//! the previous checkpoint intact.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::exit::{Failure, Kind, Outcome};

/// A checkpoint file's content.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// What the checkpoint belongs to (`copy Logs -> LogsCopy filter ...`): a resume with
    /// other arguments is refused rather than skip the wrong entities.
    pub(crate) job: String,
    /// The source's continuation: `NextPartitionKey` (copy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) next_partition_key: Option<String>,
    /// The source's continuation: `NextRowKey` (copy).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) next_row_key: Option<String>,
    /// Each source range's bounds and continuation (copy with `--parallel` or `--shard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) ranges: Option<tablekit::client::ScanCheckpoint>,
    /// Entities written so far, over every run.
    pub(crate) entities: u64,
    /// Pages (or chunks) written so far, over every run.
    pub(crate) pages: u64,
    /// Whether the job finished.
    pub(crate) done: bool,
}

/// The default checkpoint of a command reading `file`: beside it, named after it.
pub(crate) fn beside(file: &Path) -> PathBuf {
    let mut path = file.as_os_str().to_owned();
    path.push(".checkpoint");
    path.into()
}

impl Checkpoint {
    /// The checkpoint at `path` for `job`: a fresh one when there is no file, an error when
    /// the file belongs to another job or is not a checkpoint.
    pub(crate) fn load(path: &Path, job: &str) -> Outcome<Checkpoint> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Checkpoint {
                    job: job.to_owned(),
                    ..Checkpoint::default()
                })
            }
            Err(e) => {
                return Err(Failure::bad_input(format!(
                    "cannot read `{}`: {e}",
                    path.display()
                )))
            }
        };
        let checkpoint: Checkpoint = serde_json::from_str(&text).map_err(|e| {
            Failure::bad_input(format!(
                "`{}` is not a checkpoint file: {e}",
                path.display()
            ))
        })?;
        if checkpoint.job != job {
            return Err(Failure::bad_input(format!(
                "the checkpoint `{}` belongs to `{}`, not to `{job}`: give another `--checkpoint`, \
                 or delete it to start over",
                path.display(),
                checkpoint.job
            )));
        }
        Ok(checkpoint)
    }

    /// Writes the checkpoint to `path`, atomically.
    pub(crate) fn save(&self, path: &Path) -> Outcome {
        let mut temporary = PathBuf::from(path);
        temporary.as_mut_os_string().push(".tmp");
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| Failure::failed(format!("cannot write the checkpoint: {e}")))?;
        std::fs::write(&temporary, text + "\n")
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(|e| Failure::failed(format!("cannot write `{}`: {e}", path.display())))
    }

    /// The note on how to go on from this checkpoint, saved at `path`.
    pub(crate) fn resume_note(&self, path: &Path) -> String {
        format!(
            "{} entities written; the checkpoint `{}` is saved: run the same command again to go on",
            self.entities,
            path.display()
        )
    }

    /// Stopped by Ctrl-C (or a limit) at a clean point, this checkpoint saved at `path`.
    pub(crate) fn interrupted(&self, path: &Path) -> Failure {
        Failure::new(
            Kind::Interrupted,
            format!("interrupted: {}", self.resume_note(path)),
        )
    }
}
