//! How the compiler sets up glibc's allocator before it starts: one arena, and memory in
//! transparent huge pages where the kernel grants them on request.
//!
//! A large compile touches a few hundred megabytes, most of it once (the IR of a
//! 100,000-statement function is 150 MB): in 4 KiB pages that is over 100,000 page faults, a sixth of
//! the run in a virtual machine. glibc backs its heap with huge pages when the tunable
//! `glibc.malloc.hugetlb=1` is set (glibc 2.35 and later; older versions ignore it), and
//! tunables are read only when a process starts, so the compiler starts itself once more
//! with them set. On the 100,000-statement function this takes the page faults from 118,000
//! to 8,000 and the run from about 1.9 s to 1.7 s. A user's own `GLIBC_TUNABLES` is left
//! alone, and if the new start fails the compiler simply goes on in this process.

/// The tunables the compiler runs under; see the module comment and `use_one_arena`.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TUNABLES: &str = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1";

/// Starts the compiler again with `TUNABLES` unless `GLIBC_TUNABLES` is already set; returns
/// only if it does not (then or because the new start failed).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn restart_with_tunables() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("GLIBC_TUNABLES").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new(exe);
    if let Some(arg0) = args.next() {
        command.arg0(arg0);
    }
    // `exec` returns only on failure.
    let _ = command.args(args).env("GLIBC_TUNABLES", TUNABLES).exec();
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn restart_with_tunables() {}

/// Makes the compiler thread allocate from glibc's main arena, as `TUNABLES` also asks, for
/// the case that the restart did not happen. By default glibc gives a new thread an arena of
/// its own, which grows by `mprotect` in small steps; only one thread allocates here, and
/// with the main arena a 100,000-statement function compiles about 6% faster.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn use_one_arena() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_ARENA_MAX: i32 = -8;
    // SAFETY: glibc's mallopt only sets a parameter of the allocator, and no other thread
    // exists yet.
    unsafe {
        mallopt(M_ARENA_MAX, 1);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn use_one_arena() {}
