//! `packlab`: the command line ([`packlab::cli::main`]) on the built-in policies.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    packlab::cli::main(packlab::policy::registry::Registry::builtin())
}
