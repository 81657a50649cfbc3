//! The `devmgr` command.

/// jemalloc, not the C library's allocator: a large answer's pages stay
/// with the process for the next request instead of being faulted in
/// again, and memory the writer thread frees is not a worker's arena lock
/// to wait for (docs/performance.md, "The hot path beside a bare actix-web
/// server").
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    devmgr::main()
}
