//! For the tests of the commands that talk to a model server: reading one HTTP request
//! from a loopback connection, as a server thread on 127.0.0.1 does.

use std::io::Read;
use std::net::TcpStream;

/// Reads one request from `socket`: its head, then as much body as its
/// content-length says. Returns the whole request and where its body starts.
pub(crate) fn read_request(socket: &mut TcpStream) -> (Vec<u8>, usize) {
    let mut request = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        let n = socket.read(&mut buffer).unwrap();
        request.extend_from_slice(&buffer[..n]);
        let text = String::from_utf8_lossy(&request).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length: usize = text[..end]
                .lines()
                .find_map(|l| {
                    let l = l.to_ascii_lowercase();
                    l.strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if request.len() >= end + 4 + length {
                return (request, end + 4);
            }
        }
        if n == 0 {
            let length = request.len();
            return (request, length);
        }
    }
}
