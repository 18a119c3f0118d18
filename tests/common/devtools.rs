//! Headless Chromium driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: JSON messages ended by NUL, read by Chromium
//! on descriptor 3 and written on descriptor 4), so a test can set the
//! window's width, open a page, run JavaScript in it and read the result,
//! and see what the page wrote to its console. Nothing but Chromium and
//! this file: no driver to install.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub struct Browser {
    child: Child,
    to_browser: File,
    from_browser: BufReader<File>,
    next_id: u64,
    session: String,
    /// Console messages and uncaught exceptions of the pages opened.
    pub console: Vec<String>,
    _profile: tempfile::TempDir,
}

fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(made, 0, "pipe2");
    // SAFETY: both descriptors were just made and are owned here only.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    /// Starts `chromium` headless with a fresh profile and one blank tab.
    pub fn start(chromium: &Path) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let (commands_read, commands_write) = pipe();
        let (events_read, events_write) = pipe();
        let (child_in, child_out) = (commands_read.as_raw_fd(), events_write.as_raw_fd());
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: fcntl and dup2 are async-signal-safe; the descriptors
        // stay open in the parent until the child has them as 3 and 4
        // (without close-on-exec, which F_DUPFD and dup2 leave off).
        unsafe {
            command.pre_exec(move || {
                // Copied above 4 first: either may be 3 or 4 already (and
                // a dup2 onto itself would keep close-on-exec).
                let (copy_in, copy_out) = (
                    libc::fcntl(child_in, libc::F_DUPFD, 10),
                    libc::fcntl(child_out, libc::F_DUPFD, 10),
                );
                if copy_in < 0
                    || copy_out < 0
                    || libc::dup2(copy_in, 3) < 0
                    || libc::dup2(copy_out, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().expect("chromium starts");
        drop((commands_read, events_write));
        let mut browser = Browser {
            child,
            to_browser: File::from(commands_write),
            from_browser: BufReader::new(File::from(events_read)),
            next_id: 0,
            session: String::new(),
            console: Vec::new(),
            _profile: profile,
        };
        let target = browser.call("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().unwrap().to_owned();
        let attached =
            browser.call("Target.attachToTarget", json!({"targetId": target, "flatten": true}));
        browser.session = attached["sessionId"].as_str().unwrap().to_owned();
        browser.call("Runtime.enable", json!({}));
        browser.call("Page.enable", json!({}));
        browser
    }

    /// Sends a command (to the tab, once attached) and waits for its
    /// answer, keeping console events that arrive meanwhile.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.to_browser.write_all(&bytes).expect("chromium reads its pipe");
        loop {
            let message = self.receive();
            if message["id"] == id {
                assert!(message["error"].is_null(), "{method}: {}", message["error"]);
                return message["result"].clone();
            }
        }
    }

    fn receive(&mut self) -> Value {
        let mut bytes = Vec::new();
        let read = self.from_browser.read_until(0, &mut bytes).expect("chromium's pipe");
        assert!(read > 0, "chromium closed its pipe");
        bytes.pop();
        let message: Value = serde_json::from_slice(&bytes).expect("JSON from chromium");
        match message["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let words: Vec<String> = message["params"]["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|arg| arg["value"].to_string())
                    .collect();
                self.console.push(format!(
                    "console.{}: {}",
                    message["params"]["type"].as_str().unwrap_or("?"),
                    words.join(" ")
                ));
            }
            Some("Runtime.exceptionThrown") => {
                self.console.push(format!(
                    "uncaught: {}",
                    message["params"]["exceptionDetails"]["exception"]["description"]
                ));
            }
            _ => {}
        }
        message
    }

    /// The window as a phone (`mobile`, honouring the page's viewport) or a
    /// desktop `width` pixels wide.
    pub fn resize(&mut self, width: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile}),
        );
    }

    /// Opens `url` afresh and waits until the page's script has finished
    /// (it sets `data-ready` on the body).
    pub fn open(&mut self, url: &str) {
        for target in ["about:blank", url] {
            self.call("Page.navigate", json!({"url": target}));
            self.wait_for("document.readyState === 'complete'");
        }
        self.wait_for("document.body && document.body.dataset.ready === 'true'");
    }

    /// Waits until `condition` (JavaScript) holds, for at most 10 s.
    pub fn wait_for(&mut self, condition: &str) {
        let started = Instant::now();
        while self.eval(&format!("location.href !== '' && ({condition})")) != json!(true) {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the page never got to `{condition}`; console: {:?}",
                self.console
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The value of the JavaScript `expression` in the page.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "`{expression}` threw: {}",
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// The text of the element with `id`, as the page shows it.
    pub fn text(&mut self, id: &str) -> String {
        let value = self.eval(&format!("document.getElementById({id:?}).innerText"));
        value.as_str().unwrap_or_default().to_owned()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
