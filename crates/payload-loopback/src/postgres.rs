//! A PostgreSQL server of a test's own: a data folder in a temporary directory, the
//! server on 127.0.0.1 on a free port, stopped (and the folder removed) when dropped.
//!
//! The binaries (`initdb`, `pg_ctl`, `postgres`) are looked for in `PAYLOAD_POSTGRES_BIN`,
//! then on the `PATH`, then in Debian's `/usr/lib/postgresql/*/bin`. Without them
//! [`TestPostgres::start`] answers `None` after printing why, so the test skips; with
//! `PAYLOAD_REQUIRE_POSTGRES=1` it panics instead, so CI cannot pass without them.
//! PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user
//! (which Debian's package makes).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A running PostgreSQL server, stopped when dropped.
#[derive(Debug)]
pub struct TestPostgres {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The folder holding `initdb`, `pg_ctl` and `postgres`, if any.
fn binaries() -> Option<PathBuf> {
    let has_all = |dir: &Path| {
        ["initdb", "pg_ctl", "postgres"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(dir) = std::env::var_os("PAYLOAD_POSTGRES_BIN") {
        return Some(PathBuf::from(dir)).filter(|d| has_all(d));
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>());
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("bin"));
    on_path.chain(debian).find(|d| has_all(d))
}

/// Whether this process runs as root (PostgreSQL will not).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

impl TestPostgres {
    /// Starts a server, or answers `None` (after printing why) when PostgreSQL is not
    /// installed and `PAYLOAD_REQUIRE_POSTGRES` is not `1`.
    pub fn start() -> Option<TestPostgres> {
        let required = std::env::var("PAYLOAD_REQUIRE_POSTGRES").as_deref() == Ok("1");
        let Some(bin) = binaries() else {
            let why = "PostgreSQL's initdb, pg_ctl and postgres were not found (PAYLOAD_POSTGRES_BIN, PATH, /usr/lib/postgresql/*/bin)";
            assert!(!required, "{why}, and PAYLOAD_REQUIRE_POSTGRES=1");
            eprintln!("skipped: {why}");
            return None;
        };
        let as_postgres = is_root();
        let dir =
            std::env::temp_dir().join(format!("payload-pg-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let server = TestPostgres {
            bin,
            port: free_port(),
            dir,
            as_postgres,
        };
        if as_postgres {
            let owned = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(&server.dir)
                .status()
                .expect("chown runs");
            assert!(
                owned.success(),
                "the data folder could not be given to postgres"
            );
        }
        let data = server.dir.join("data");
        server.run(
            "initdb",
            &[
                "-D",
                &data.to_string_lossy(),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
        );
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={} -c unix_socket_directories='{}' -c fsync=off -c max_connections=200",
            server.port,
            server.dir.display()
        );
        server.run(
            "pg_ctl",
            &[
                "-D",
                &data.to_string_lossy(),
                "-o",
                &options,
                "-l",
                &server.dir.join("log").to_string_lossy(),
                "-w",
                "-t",
                "60",
                "start",
            ],
        );
        server.wait_ready(Duration::from_secs(60));
        Some(server)
    }

    /// Runs one of the binaries (as `postgres` when this process is root), panicking
    /// with its output when it fails.
    fn run(&self, binary: &str, args: &[&str]) {
        let program = self.bin.join(binary);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(&program);
            c
        } else {
            Command::new(&program)
        };
        let out = command
            .args(args)
            .current_dir(&self.dir)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{binary} could not run: {e}"));
        assert!(
            out.status.success(),
            "{binary} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Waits until the server takes connections on its port.
    fn wait_ready(&self, limit: Duration) {
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < limit,
                "PostgreSQL did not start in {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The URL of database `name` (the `postgres` database always exists).
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// The URL of the `postgres` database with `schema` first on the search path, so
    /// a test's tables are its own (the schema must exist).
    pub fn url_in_schema(&self, schema: &str) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?options=-csearch_path%3D{schema}",
            self.port
        )
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for TestPostgres {
    fn drop(&mut self) {
        let data = self.dir.join("data");
        let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.run(
                "pg_ctl",
                &[
                    "-D",
                    &data.to_string_lossy(),
                    "-m",
                    "immediate",
                    "-w",
                    "stop",
                ],
            );
        }));
        if stopped.is_err() {
            eprintln!("PostgreSQL in {} could not be stopped", self.dir.display());
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
