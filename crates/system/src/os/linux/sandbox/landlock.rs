//! Landlock as the second layer inside a box, applied by the bot's process
//! itself just before exec. The box's mounts already decide what exists;
//! this layer keeps writes to the scratch folders and devices, refuses TCP
//! when the network is off, and scopes signals and abstract unix sockets to
//! the bot's own domain, so a mistake in a mount cannot open more.
//!
//! The ruleset is built in the child with raw system calls (nothing between
//! fork and exec may allocate), from rules prepared beforehand; the access
//! masks come from the `landlock` crate for the kernel's ABI.

use std::ffi::CString;
use std::io;

use landlock::{ABI, Access, AccessFs, AccessNet, BitFlags, Scope};

use super::spawn::check;

/// `struct landlock_ruleset_attr`, as large as its largest version: a
/// kernel that knows fewer fields accepts the rest as zeroes.
#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

/// `struct landlock_path_beneath_attr` (packed, as the kernel declares it).
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;

/// A ruleset ready to build in a child: the access it handles and its rules.
pub struct InBoxRuleset {
    attr: RulesetAttr,
    /// Paths in the box and what each grants beneath it.
    rules: Vec<(CString, u64)>,
}

/// The ABI's masks: every file access it knows, and those that apply to
/// files (not folders).
fn masks(abi: ABI) -> (BitFlags<AccessFs>, BitFlags<AccessFs>) {
    (AccessFs::from_all(abi), AccessFs::from_file(abi))
}

fn abi_of(version: u32) -> ABI {
    match version {
        0 => ABI::Unsupported,
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        _ => ABI::V6,
    }
}

impl InBoxRuleset {
    /// The ruleset for a box on a kernel of Landlock ABI `version`: read
    /// and execute everywhere in the box, everything in `writable` (the
    /// scratch folders), read and write on `devices`; TCP refused unless
    /// `network`; signals and abstract unix sockets scoped to the domain.
    pub fn new(version: u32, writable: &[&str], devices: &[&str], network: bool) -> InBoxRuleset {
        let abi = abi_of(version);
        let (all, file) = masks(abi);
        let read = AccessFs::from_read(abi);
        let device = file & (AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate);
        let mut rules = vec![(c"/".to_owned(), read.bits())];
        rules.extend(writable.iter().map(|path| (cstring(path), all.bits())));
        rules.extend(devices.iter().map(|path| (cstring(path), device.bits())));
        let handled_access_net =
            if network || version < 4 { 0 } else { AccessNet::from_all(abi).bits() };
        let scoped = if version < 6 { 0 } else { Scope::from_all(abi).bits() };
        InBoxRuleset {
            attr: RulesetAttr { handled_access_fs: all.bits(), handled_access_net, scoped },
            rules,
        }
    }

    /// Builds the ruleset, as a descriptor (close-on-exec) each of the
    /// box's bot processes restricts itself with: made by the box's first
    /// process once per scratch, since a rule holds the folder it names
    /// (a new scratch is a new folder), and restricting is one call.
    ///
    /// # Safety
    /// Only in a box's first process (it makes system calls only).
    pub unsafe fn make(&self) -> io::Result<libc::c_int> {
        // SAFETY: system calls with pointers to memory prepared before the
        // clone; every descriptor opened here but the ruleset is closed here.
        unsafe {
            let ruleset = check(libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &raw const self.attr,
                std::mem::size_of::<RulesetAttr>(),
                0,
            ) as libc::c_int)?;
            if let Err(error) = self.add_rules(ruleset) {
                libc::close(ruleset);
                return Err(error);
            }
            Ok(ruleset)
        }
    }

    unsafe fn add_rules(&self, ruleset: libc::c_int) -> io::Result<()> {
        for (path, access) in &self.rules {
            // SAFETY: opens a path of the box; closed below.
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
            if fd < 0 {
                // Not in this box (a device the host lacks): nothing to grant.
                continue;
            }
            let rule = PathBeneathAttr { allowed_access: *access, parent_fd: fd };
            // SAFETY: adds a rule from an attribute on the stack.
            let added = unsafe {
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset,
                    LANDLOCK_RULE_PATH_BENEATH,
                    &raw const rule,
                    0,
                )
            };
            let error = io::Error::last_os_error();
            // SAFETY: closes the descriptor opened above.
            unsafe { libc::close(fd) };
            if added != 0 {
                return Err(error);
            }
        }
        Ok(())
    }
}

/// Restricts the calling process with `ruleset` (from
/// [`InBoxRuleset::make`]), setting no_new_privs first.
///
/// # Safety
/// Only in a child between clone and exec.
pub unsafe fn restrict_self(ruleset: libc::c_int) -> io::Result<()> {
    // SAFETY: two system calls on this process.
    unsafe {
        check(libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))?;
        check(libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0) as libc::c_int)?;
    }
    Ok(())
}

fn cstring(path: &str) -> CString {
    CString::new(path).expect("box paths hold no NUL byte")
}
