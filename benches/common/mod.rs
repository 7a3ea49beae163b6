//! What the benches that run servers in child processes share: the `tablekit-emulator`
//! binary, resident sets and CPU times from `/proc`, and W1's 1 KB entity.
// Each bench compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tablekit::client::{TableServiceClient, DEVELOPMENT_ACCOUNT, DEVELOPMENT_KEY};
use tablekit::{DynamicEntity, SmolStr, Value};

pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The emulator binary running as a child process; killed (by its PID) and reaped on drop.
pub(crate) struct EmulatorProcess {
    child: Child,
    pub(crate) endpoint: String,
    /// Kept open: the server's later writes to stdout must not fail.
    stdout: BufReader<ChildStdout>,
}

impl EmulatorProcess {
    /// Starts `binary` on a free port and waits for the line naming its endpoint.
    pub(crate) fn start(binary: &Path) -> Result<Self, BoxError> {
        let mut child = Command::new(binary)
            .args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", binary.display()))?;
        let stdout = child.stdout.take().ok_or("the emulator has no stdout")?;
        // Owned from here on, so an early return below still stops the child.
        let mut process = EmulatorProcess {
            child,
            endpoint: String::new(),
            stdout: BufReader::new(stdout),
        };
        let mut line = String::new();
        process.stdout.read_line(&mut line)?;
        process.endpoint = line
            .trim()
            .strip_prefix("tablekit-emulator listening on ")
            .ok_or_else(|| format!("unexpected first line from the emulator: `{}`", line.trim()))?
            .to_owned();
        Ok(process)
    }

    /// Starts `binary` like [`start`](Self::start) and returns with the time from the spawn
    /// to the first answered request (a table listing).
    pub(crate) async fn start_timed(binary: &Path) -> Result<(Self, Duration), BoxError> {
        let spawned = Instant::now();
        let process = Self::start(binary)?;
        client_for(&process.endpoint)?
            .list_table_names(None)
            .await?;
        Ok((process, spawned.elapsed()))
    }

    /// The child's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for EmulatorProcess {
    fn drop(&mut self) {
        // Our own child, by its PID: nothing else is signalled.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client for the development account at `endpoint`.
pub(crate) fn client_for(endpoint: &str) -> Result<TableServiceClient, BoxError> {
    let connection_string = format!(
        "AccountName={DEVELOPMENT_ACCOUNT};AccountKey={DEVELOPMENT_KEY};TableEndpoint={endpoint}"
    );
    Ok(TableServiceClient::from_connection_string(
        &connection_string,
    )?)
}

/// Names an emulator binary to run instead of building one.
const BINARY_VAR: &str = "TABLEKIT_EMULATOR_BINARY";

/// The emulator binary: the one [`BINARY_VAR`] names, else built (release) with the cargo
/// running this bench. It gets a target directory of its own (`target/scan_memory`), as
/// trybuild's builds do: in the bench's own, each of the two builds would make the other
/// rebuild the dependencies they share.
pub(crate) fn emulator_binary() -> Result<PathBuf, BoxError> {
    if let Some(named) = std::env::var_os(BINARY_VAR) {
        return Ok(PathBuf::from(named));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    // A bench runs from `target/release/deps/`.
    let exe = std::env::current_exe()?;
    let target_dir = exe
        .ancestors()
        .nth(3)
        .ok_or("the bench runs outside a target directory")?
        .join("scan_memory");
    let status = Command::new(cargo)
        .args(["build", "--release", "--quiet", "-p", "tablekit-emulator"])
        .args(["--bin", "tablekit-emulator", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir)
        .status()?;
    if !status.success() {
        return Err(format!("building `tablekit-emulator` failed: {status}").into());
    }
    let binary = target_dir
        .join("release")
        .join(format!("tablekit-emulator{}", std::env::consts::EXE_SUFFIX));
    match binary.exists() {
        true => Ok(binary),
        false => Err(format!("no emulator binary at `{}`", binary.display()).into()),
    }
}

/// A field of `/proc/PID/status` (`"self"` for this process), in KiB (Linux).
pub(crate) fn status_kib(pid: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// User + system CPU time of a process (`"self"` for this one), from `/proc/PID/stat`
/// (Linux; `None` elsewhere).
pub(crate) fn cpu_time(pid: &str) -> Option<Duration> {
    let fields = stat_fields(pid)?;
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // Linux reports clock ticks of 1/100 s (USER_HZ) to user space.
    Some(Duration::from_millis((utime + stime) * 10))
}

/// The fields of `/proc/PID/stat` after the parenthesised command name (state first).
fn stat_fields(pid: &str) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = stat.get(stat.rfind(')')? + 2..)?;
    Some(after_name.split_whitespace().map(str::to_owned).collect())
}

/// The process ids of this process's children whose command line contains `needle`.
pub(crate) fn children_named(needle: &str) -> Vec<u32> {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let pid = pid.to_string();
            let is_child = stat_fields(&pid).is_some_and(|f| f.get(1) == Some(&me));
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            is_child && String::from_utf8_lossy(&cmdline).contains(needle)
        })
        .collect()
}

/// W1's entity: 12 properties, about 1 KB of JSON. The keys and Timestamp; three strings,
/// one of 400 characters; Int32, Int64, Double, Bool, DateTime and Guid.
pub(crate) fn entity_1kb(partition: &str, row: usize) -> DynamicEntity {
    let mut e = DynamicEntity::new(partition, format!("{row:08}"));
    e.set(
        "Name",
        format!("player {row} of the weekly league, north-west"),
    );
    e.set(
        "Email",
        format!("player.{row}.of.the.weekly.league@example.com"),
    );
    let bios = bios();
    e.set("Bio", Value::String(bios[row % bios.len()].clone()));
    e.set("Score", (row % 1000) as i32);
    e.set("Total", row as i64 * 1_000_003);
    e.set("Ratio", row as f64 / 7.0);
    e.set("Active", row % 3 == 0);
    e.set("Joined", chrono::Utc::now());
    e.set(
        "Id",
        uuid::Uuid::from_u128(row as u128 * 0x9E37_79B9_7F4A_7C15),
    );
    e
}

/// The 400-character texts of the `Bio` property, made once: the workload measures the
/// servers and the client, not the making of sample text.
fn bios() -> &'static [SmolStr] {
    const TEXT: &str = "The quick brown fox jumps over the lazy dog. ";
    static BIOS: OnceLock<Vec<SmolStr>> = OnceLock::new();
    BIOS.get_or_init(|| {
        (0..TEXT.len())
            .map(|skip| TEXT.chars().cycle().skip(skip).take(400).collect())
            .collect()
    })
}

/// The first argument of the run that loads a table, in the benches that measure this
/// process's memory: `load ENDPOINT TABLE ENTITIES`.
pub(crate) const LOAD: &str = "load";

/// What a memory bench's command line asks for: a loading run, or the sizes to measure.
pub(crate) enum Invocation {
    /// `load ENDPOINT TABLE ENTITIES`: the loading run of [`load_elsewhere`].
    Load {
        endpoint: String,
        table: String,
        entities: usize,
    },
    /// The sizes to measure (`defaults` when none are given).
    Measure(Vec<usize>),
}

impl Invocation {
    /// Reads the command line; `cargo bench` adds `--bench`, every other argument is a size or
    /// the loading run's.
    pub(crate) fn from_args(defaults: &[usize]) -> Result<Invocation, BoxError> {
        let args: Vec<String> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with("--"))
            .collect();
        if let [mode, endpoint, table, n] = args.as_slice() {
            if mode == LOAD {
                let (endpoint, table) = (endpoint.clone(), table.clone());
                return Ok(Invocation::Load {
                    endpoint,
                    table,
                    entities: n.parse()?,
                });
            }
        }
        let sizes = args
            .iter()
            .map(|a| a.parse().map_err(|_| format!("not a size: `{a}`")))
            .collect::<Result<Vec<usize>, _>>()?;
        Ok(Invocation::Measure(match sizes.is_empty() {
            true => defaults.to_vec(),
            false => sizes,
        }))
    }
}

/// Loads `n` entities into a new table from another run of this program, so that this
/// process never holds them.
pub(crate) fn load_elsewhere(endpoint: &str, table: &str, n: usize) -> Result<(), BoxError> {
    let status = Command::new(std::env::current_exe()?)
        .args([LOAD, endpoint, table, &n.to_string()])
        .status()?;
    match status.success() {
        true => Ok(()),
        false => Err(format!("loading {n} entities failed: {status}").into()),
    }
}

/// Sets the peak resident set back to the current one (Linux 4.0 and later).
pub(crate) fn reset_peak() -> Result<(), BoxError> {
    std::fs::write("/proc/self/clear_refs", "5")
        .map_err(|e| format!("cannot reset the peak resident set (Linux only): {e}").into())
}
