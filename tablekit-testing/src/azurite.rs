//! Azurite, the reference Table server, for suites that run on both servers.
//!
//! [`azurite_client`] connects to the Azurite that [`AZURITE_CONNECTION_STRING_VAR`] names
//! and, when it names none, starts the pinned Azurite itself: installed with npm on first use
//! into a cache directory, run by Node.js on 127.0.0.1 and a free port with telemetry off, and
//! stopped when the test process ends (it watches its parent). So a plain `cargo test` runs
//! the Azurite suites with nothing started first. Without Node.js they fail with a message
//! saying so: a suite meant to run on Azurite never skips silently.

use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tablekit::client::TableServiceClient;

use tablekit_emulator::{DEV_ACCOUNT, DEV_KEY};

/// The variable naming a running Azurite's connection string; without it, [`azurite_client`]
/// starts one.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use tablekit_testing::{azurite_client, Emulator, AZURITE_CONNECTION_STRING_VAR};
/// let emulator = Emulator::start().await?;
/// emulator.create_table("Gamers")?;
/// // Any Table service can stand in: here, the in-process emulator.
/// std::env::set_var(AZURITE_CONNECTION_STRING_VAR, emulator.connection_string());
/// let client = azurite_client();
/// assert_eq!(client.list_table_names(None).await?, ["Gamers"]);
/// # Ok(()) }
/// ```
pub const AZURITE_CONNECTION_STRING_VAR: &str = "TABLEKIT_AZURITE_CONNECTION_STRING";

/// The Azurite version the suites are checked against, and the one [`azurite_client`]
/// installs.
///
/// ```
/// assert_eq!(tablekit_testing::AZURITE_VERSION.split('.').count(), 3);
/// ```
pub const AZURITE_VERSION: &str = "3.37.0";

/// Where Azurite is installed: `TABLEKIT_CACHE_DIR`, else the user's cache directory.
const CACHE_DIR_VAR: &str = "TABLEKIT_CACHE_DIR";

/// How long Azurite may take to start listening (a first `npm install` is not counted).
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs Azurite's table server with the arguments the suites need and stops it when the
/// process that started it is gone: its parent id changes (it was adopted) or the parent no
/// longer answers a signal. Arguments: the server's script, the port, the parent's pid.
const LAUNCHER: &str = r#"
const [main, port, parent] = process.argv.slice(1);
process.argv = [process.argv[0], main, "--tableHost", "127.0.0.1", "--tablePort", port,
  "--inMemoryPersistence", "--disableTelemetry", "--skipApiVersionCheck",
  "--disableProductStyleUrl", "--loose", "--silent"];
const adopted = () => {
  if (process.ppid !== Number(parent)) return true;
  try { process.kill(Number(parent), 0); return false; } catch (e) { return true; }
};
setInterval(() => { if (adopted()) process.exit(0); }, 250);
require(main);
"#;

/// A client for Azurite: the one [`AZURITE_CONNECTION_STRING_VAR`] names, or one this
/// process starts on first use (see the module docs).
///
/// # Panics
///
/// When the variable holds an invalid connection string, or no Azurite is named and none can
/// be started (Node.js or npm missing, the install failing, the server not listening): the
/// message says what to do.
///
/// ```no_run
/// let client = tablekit_testing::azurite_client(); // starts Azurite unless one is named
/// println!("{}", client.endpoint().base_url());
/// ```
pub fn azurite_client() -> TableServiceClient {
    let connection_string = azurite_connection_string();
    TableServiceClient::from_connection_string(&connection_string)
        .unwrap_or_else(|e| panic!("{AZURITE_CONNECTION_STRING_VAR}: {e}"))
}

/// Azurite's connection string: the one [`AZURITE_CONNECTION_STRING_VAR`] names, or that of
/// the Azurite this process started (starting it on first use).
///
/// # Panics
///
/// As [`azurite_client`].
///
/// ```no_run
/// let connection_string = tablekit_testing::azurite_connection_string();
/// assert!(connection_string.contains("TableEndpoint=http://127.0.0.1:"));
/// ```
pub fn azurite_connection_string() -> String {
    if let Ok(named) = std::env::var(AZURITE_CONNECTION_STRING_VAR) {
        return named;
    }
    let endpoint = started().unwrap_or_else(|e| panic!("{e}"));
    format!(
        "DefaultEndpointsProtocol=http;AccountName={DEV_ACCOUNT};AccountKey={DEV_KEY};\
         TableEndpoint={endpoint};"
    )
}

/// The Azurite this process started: started once, shared by every test of the process.
fn started() -> Result<&'static str, String> {
    static AZURITE: OnceLock<Result<Azurite, String>> = OnceLock::new();
    match AZURITE.get_or_init(Azurite::start) {
        Ok(azurite) => Ok(&azurite.endpoint),
        Err(e) => Err(e.clone()),
    }
}

/// A running Azurite child process.
struct Azurite {
    /// Kept so the process is not reaped early; it stops itself with its parent.
    _child: Child,
    /// `http://127.0.0.1:PORT/devstoreaccount1`.
    endpoint: String,
}

impl Azurite {
    fn start() -> Result<Azurite, String> {
        check_node()?;
        let main = install()?;
        let port = free_port()?;
        // In memory, Azurite writes nothing: its install directory serves as working directory.
        let workdir = install_dir();
        let mut child = Command::new("node")
            .arg("-e")
            .arg(LAUNCHER)
            .arg(&main)
            .arg(port.to_string())
            .arg(std::process::id().to_string())
            .current_dir(&workdir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start Azurite with node: {e}"))?;
        wait_until_listening(&mut child, port)?;
        Ok(Azurite {
            _child: child,
            endpoint: format!("http://127.0.0.1:{port}/{DEV_ACCOUNT}"),
        })
    }
}

/// Node.js runs Azurite: without it the suites cannot run, and must say so.
fn check_node() -> Result<(), String> {
    let found = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Ok(())
    } else {
        Err(format!(
            "the Azurite suites need Node.js: install `node` and `npm` (18 or later) so the \
             tests can run Azurite {AZURITE_VERSION}, or set {AZURITE_CONNECTION_STRING_VAR} to \
             a running Azurite's connection string"
        ))
    }
}

/// The directory Azurite is installed into: one per version.
fn install_dir() -> PathBuf {
    let root = std::env::var_os(CACHE_DIR_VAR)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("tablekit")))
        .or_else(|| std::env::var_os("HOME").map(|d| PathBuf::from(d).join(".cache/tablekit")))
        .unwrap_or_else(|| std::env::temp_dir().join("tablekit-cache"));
    root.join(format!("azurite-{AZURITE_VERSION}"))
}

fn table_main(dir: &Path) -> PathBuf {
    dir.join("node_modules/azurite/dist/src/table/main.js")
}

/// Installs the pinned Azurite with npm unless it is there, and gives its table server's
/// script. Test processes may install at once: each installs into a directory of its own and
/// renames it into place, so a half-made install is never used.
fn install() -> Result<PathBuf, String> {
    let dir = install_dir();
    if table_main(&dir).is_file() {
        return Ok(table_main(&dir));
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    let staging = parent.join(format!(
        ".azurite-{}-{}",
        AZURITE_VERSION,
        std::process::id()
    ));
    std::fs::create_dir_all(&staging).map_err(|e| format!("cannot make {staging:?}: {e}"))?;
    let output = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg(format!("azurite@{AZURITE_VERSION}"))
        .current_dir(&staging)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run npm to install Azurite {AZURITE_VERSION}: {e}"))?;
    if !output.status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "npm could not install Azurite {AZURITE_VERSION}: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    // Another process may have won the race: then its install is used and ours dropped.
    if std::fs::rename(&staging, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&staging);
    }
    let main = table_main(&dir);
    if main.is_file() {
        Ok(main)
    } else {
        Err(format!("the Azurite install in {dir:?} has no {main:?}"))
    }
}

/// A port nobody listens on now (Azurite binds it a moment later).
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("no free port on 127.0.0.1: {e}"))
}

fn wait_until_listening(child: &mut Child, port: u16) -> Result<(), String> {
    let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let started = Instant::now();
    loop {
        if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!(
                "Azurite {AZURITE_VERSION} exited before listening on {address} ({status})"
            ));
        }
        if started.elapsed() > START_TIMEOUT {
            let _ = child.kill();
            return Err(format!(
                "Azurite {AZURITE_VERSION} did not listen on {address} within {START_TIMEOUT:?}"
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
