//! How a tournament file's bots are built: `build_network` and
//! `build_timeout`.

use std::time::Duration;

use arena_system::sandbox::SandboxSettings;

/// How bots are built: a tournament file's `build_network` and
/// `build_timeout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildSettings {
    /// Whether a build may use the network (to download its dependencies).
    pub network: bool,
    /// How long a build may run before it is killed.
    pub timeout: Duration,
}

impl Default for BuildSettings {
    fn default() -> BuildSettings {
        BuildSettings { network: false, timeout: Duration::from_secs(600) }
    }
}

impl BuildSettings {
    /// The sandbox settings of a build: the bots' (`play`), with the limits
    /// raised for a compiler and the network as `build_network` says.
    pub fn sandbox(&self, play: &SandboxSettings) -> SandboxSettings {
        SandboxSettings {
            limits: play.limits.for_builds(self.timeout),
            network: self.network,
            ..play.clone()
        }
    }
}
