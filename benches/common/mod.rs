//! What the bench binaries share.

/// The value of environment variable `key` parsed as a `T`, or `default` when it is unset or
/// does not parse.
pub fn env<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
