//! The terminal.

/// Turns the terminal's echo off while it lives (when stdin is a terminal).
pub struct EchoOff {
    saved: libc::termios,
}

impl EchoOff {
    /// Turns echo off on standard input; `None` when it is no terminal.
    pub fn on_stdin() -> Option<EchoOff> {
        // SAFETY: termios calls on fd 0 with a struct they fill; nothing is
        // changed unless reading the current settings succeeded.
        unsafe {
            if libc::isatty(libc::STDIN_FILENO) != 1 {
                return None;
            }
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return None;
            }
            let mut quiet = saved;
            quiet.c_lflag &= !libc::ECHO;
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &quiet);
            Some(EchoOff { saved })
        }
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        // SAFETY: restores the settings read in `on_stdin`.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.saved);
        }
    }
}
