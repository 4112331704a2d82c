//! Conversation ids, made by the server from the operating system's random source: an
//! id is what lets a client read and decide a conversation's payloads, so it must not
//! be guessable, and a client never picks one.

/// 128 random bits as 32 lowercase hex digits.
pub fn new_conversation_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_128_random_bits_and_differ() {
        let ids: std::collections::HashSet<String> =
            (0..1000).map(|_| new_conversation_id().unwrap()).collect();
        assert_eq!(ids.len(), 1000);
        assert!(ids.iter().all(|id| {
            id.len() == 32
                && id
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        }));
    }
}
