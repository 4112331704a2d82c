//! Which `Host` headers name this server: the address it listens on (with `localhost`
//! for a loopback address) and the names the operator listed.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};

/// The accepted `Host` values.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts {
    /// `host:port`, lower case.
    exact: HashSet<String>,
    /// Names accepted on any port (listed without one), lower case.
    any_port: HashSet<String>,
}

impl AllowedHosts {
    /// The hosts of a server listening on `served`, plus `listed` (`name` or
    /// `name:port`).
    pub fn new(served: SocketAddr, listed: &[String]) -> AllowedHosts {
        let mut hosts = AllowedHosts::default();
        let port = served.port();
        let ip = served.ip();
        let mut names = vec![match ip {
            IpAddr::V4(v4) => v4.to_string(),
            IpAddr::V6(v6) => format!("[{v6}]"),
        }];
        if ip.is_loopback() || ip.is_unspecified() {
            names.extend(["localhost".to_string(), "127.0.0.1".to_string()]);
        }
        for name in names {
            hosts.exact.insert(format!("{name}:{port}"));
            if port == 80 {
                // A browser leaves the default port out.
                hosts.exact.insert(name);
            }
        }
        for entry in listed {
            let entry = entry.trim().to_ascii_lowercase();
            match split_port(&entry) {
                (_, Some(_)) => hosts.exact.insert(entry),
                (name, None) => hosts.any_port.insert(name.to_string()),
            };
        }
        hosts
    }

    /// Whether a request with this `Host` header is for this server.
    pub fn allows(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        if host.is_empty() || host.contains(['/', '@', ' ']) {
            return false;
        }
        self.exact.contains(&host) || self.any_port.contains(split_port(&host).0)
    }
}

/// `name:port` as the name and the port; an IPv6 literal keeps its brackets.
fn split_port(host: &str) -> (&str, Option<&str>) {
    match host.rsplit_once(':') {
        Some((name, port))
            if !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (!name.starts_with('[') || name.ends_with(']')) =>
        {
            (name, Some(port))
        }
        _ => (host, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(listed: &[&str]) -> AllowedHosts {
        let listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
        AllowedHosts::new("127.0.0.1:8080".parse().unwrap(), &listed)
    }

    #[test]
    fn the_served_address_and_localhost_are_allowed_and_nothing_else() {
        let hosts = hosts(&[]);
        for ok in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080"] {
            assert!(hosts.allows(ok), "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:8080",
            "127.0.0.1",
            "127.0.0.1:8081",
            "localhost",
            "",
            "user@127.0.0.1:8080",
            "127.0.0.1:8080/x",
        ] {
            assert!(!hosts.allows(refused), "{refused}");
        }
    }

    #[test]
    fn listed_names_match_on_any_port_unless_they_name_one() {
        let hosts = hosts(&["App.Example.com", "other.example:9000", "[::1]:8080"]);
        assert!(hosts.allows("app.example.com"));
        assert!(hosts.allows("app.example.com:443"));
        assert!(hosts.allows("other.example:9000"));
        assert!(!hosts.allows("other.example"));
        assert!(!hosts.allows("other.example:9001"));
        assert!(hosts.allows("[::1]:8080"));
        assert!(!hosts.allows("sub.app.example.com"));
    }
}
