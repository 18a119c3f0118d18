use super::*;

#[test]
fn a_timeout_names_the_request_the_limit_and_the_bytes() {
    let request = Request::move_in_turn(7, 4);
    let allowed = Duration::from_millis(200);
    let partial = Timeout {
        allowed,
        bank: None,
        stall: Stall::NoLine { partial_bytes: 12, bot_was: Activity::Busy },
    };
    assert_eq!(
        partial.detail(&request),
        "no reply to move request 7 (turn 4) within 200 ms; 12 bytes arrived without a newline: is your output buffered? (protocol.md §8)"
    );
    let nothing = |bot_was| {
        let stall = Stall::NoLine { partial_bytes: 0, bot_was };
        Timeout { allowed, bank: None, stall }.detail(&Request::start(1))
    };
    assert!(
        nothing(Activity::Unknown)
            .starts_with("no reply to start request 1 within 200 ms; nothing arrived")
    );
    assert!(nothing(Activity::WaitingForInput).contains("stuck in its output buffer"));
    assert!(nothing(Activity::Busy).ends_with("still at work (not waiting for input): a slow bot"));
    let stuck = |partial_bytes| {
        let stall = Stall::Stuck { waited: Duration::from_millis(300), partial_bytes };
        Timeout { allowed: Duration::from_secs(5), bank: None, stall }.detail(&Request::start(1))
    };
    assert_eq!(
        stuck(0),
        "no reply to start request 1 (judged after 300 ms of the 5000 ms allowed); nothing arrived, and the bot sat waiting to read its input all that time: its reply is stuck in its output buffer (flush after every line, protocol.md §8), or it skipped the request (each `start` and `move` needs one reply, protocol.md §2)"
    );
    assert!(stuck(1).contains("; 1 byte arrived without a newline, and the bot sat"));
    let unread = Timeout { allowed, bank: None, stall: Stall::InputNotRead };
    assert_eq!(
        unread.detail(&request),
        "move request 7 (turn 4) could not be written within 200 ms: the bot does not read its input"
    );
}

#[test]
fn a_refused_line_after_a_notice_is_named_an_answer_to_it() {
    let bad = |kind| BadReply { kind, detail: "the reply's id is 0, the request's is 3".into() };
    let request = Request::move_in_turn(3, 2);
    let after_reveal =
        Forfeit::refused(request, bad(BadReplyKind::WrongId), "{}".into(), Some(Notice::Reveal));
    assert_eq!(
        after_reveal.cause,
        Cause::AnsweredNotice { notice: Notice::Reveal, kind: BadReplyKind::WrongId }
    );
    assert!(after_reveal.detail.ends_with(
        "3: it answers the `reveal` sent before move request 3 (turn 2), which needs no answer: keep reading, the next line is the next request (protocol.md §2)"
    ));
    // Stray output is stray output, whatever came before it.
    let stray =
        Forfeit::refused(request, bad(BadReplyKind::NotJson), "x".into(), Some(Notice::Over));
    assert_eq!(stray.cause, Cause::BadReply(BadReplyKind::NotJson));
    let alone = Forfeit::refused(request, bad(BadReplyKind::WrongId), "{}".into(), None);
    assert_eq!(alone.cause, Cause::BadReply(BadReplyKind::WrongId));
}

#[test]
fn a_crash_names_its_end_and_quotes_stderr_only_where_asked() {
    let crash = Crash {
        ending: Ending::ClosedOutput,
        status: Some(ExitStatus::from_raw(2 << 8)),
        limit: None,
        stderr_tail: vec!["python3: can't open file 'x.py'".to_owned()],
        stack_trace_left_out: false,
    };
    let request = Request::start(1);
    assert_eq!(
        crash.detail(&request, true),
        "exited with status 2 instead of answering start request 1; the last line it wrote to stderr: python3: can't open file 'x.py'"
    );
    assert!(!crash.detail(&request, false).contains("stderr"));
    let killed = Crash {
        ending: Ending::Exited,
        status: Some(ExitStatus::from_raw(9)),
        limit: None,
        stderr_tail: Vec::new(),
        stack_trace_left_out: false,
    };
    assert_eq!(
        killed.detail(&Request::move_in_turn(3, 2), true),
        "was killed by signal 9 (SIGKILL) instead of answering move request 3 (turn 2)"
    );
}

#[test]
fn a_crash_detail_loses_its_stderr_quote_alone() {
    let quoted = "exited with status 2 instead of answering start request 1; the last line it wrote to stderr: python3: can't open file 'x.py'";
    assert_eq!(without_stderr(quoted), "exited with status 2 instead of answering start request 1");
    let two = "was killed by signal 9 (SIGKILL) instead of answering move request 4 (turn 3); the last 2 lines it wrote to stderr: a\nb";
    assert_eq!(
        without_stderr(two),
        "was killed by signal 9 (SIGKILL) instead of answering move request 4 (turn 3)"
    );
    let java = "exited with status 1 instead of answering start request 1; the last line it wrote to stderr before a stack trace: Exception in thread \"main\"";
    assert_eq!(without_stderr(java), "exited with status 1 instead of answering start request 1");
    for other in ["sent a line longer than 64 bytes in reply to move request 2", "late"] {
        assert_eq!(without_stderr(other), other);
    }
}

#[test]
fn the_last_stderr_lines_are_bounded_and_printable() {
    let tail = b"half a line\nTraceback:\n  File \"x.py\"\n\n    boom()\nError: \x1b[31mred\n";
    assert_eq!(
        last_stderr_lines(tail, true).0,
        ["File \"x.py\"", "boom()", "Error: \\u{1b}[31mred"]
    );
    assert!(!last_stderr_lines(tail, true).1, "Python's message comes last: no trace left out");
    assert_eq!(last_stderr_lines(b"only a part", true).0, ["only a part"]);
    // A trace after its message: the message ends the quote.
    let node = b"/bots/bot.js:3\n  throw new Error('bug at turn 3');\n  ^\n\nError: bug at turn 3\n    at Object.<anonymous> (/bots/bot.js:3:9)\n    at Module._compile (node:internal/modules/cjs/loader:1364:14)\n\nNode.js v20.20.2\n";
    assert_eq!(
        last_stderr_lines(node, false).0,
        ["/bots/bot.js:3", "throw new Error('bug at turn 3');", "Error: bug at turn 3"]
    );
    // Python 3.11 marks the failing expression under each line of code.
    let python = b"Traceback (most recent call last):\n  File \"/bots/bot.py\", line 9, in <module>\n    print(choose(state) + 1)\n          ^^^^^^^^^^^^^\n  File \"/bots/bot.py\", line 4, in choose\n    return 1 // 0\n           ~~^^~~\nZeroDivisionError: integer division or modulo by zero\n";
    assert_eq!(
        last_stderr_lines(python, false).0,
        [
            "File \"/bots/bot.py\", line 4, in choose",
            "return 1 // 0",
            "ZeroDivisionError: integer division or modulo by zero"
        ]
    );
    // Marks with nothing beside them are what the program wrote: quoted.
    assert_eq!(last_stderr_lines(b"~~~~\n^^ ^^\n", false).0, ["~~~~", "^^ ^^"]);
    let java = b"Exception in thread \"main\" java.lang.IllegalStateException: no move\n\tat Bot.choose(Bot.java:40)\n\tat Bot.main(Bot.java:12)\n";
    assert_eq!(
        last_stderr_lines(java, false),
        (
            vec![
                "Exception in thread \"main\" java.lang.IllegalStateException: no move".to_owned()
            ],
            true
        )
    );
    let go = b"panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.choose(...)\n\t/bots/go/main.go:40 +0x1d\n";
    assert_eq!(
        last_stderr_lines(go, false).0,
        ["panic: runtime error: index out of range [3] with length 3"]
    );
    let missing = b"node:internal/modules/cjs/loader:1143\n  throw err;\n  ^\n\nError: Cannot find module 'lodash'\nRequire stack:\n- /bots/bot.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1140:15)\n    at node:internal/main/run_main_module:28:49 {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/bots/bot.js' ]\n}\n\nNode.js v20.20.2\n";
    assert_eq!(
        last_stderr_lines(missing, false).0,
        ["Error: Cannot find module 'lodash'", "Require stack:", "- /bots/bot.js"]
    );
    // Frames alone are quoted as they are, and a line that merely
    // starts with "at" is no frame.
    let frames = b"    at f (/a.js:1:1)\n    at g (/a.js:2:1)\n";
    assert_eq!(last_stderr_lines(frames, false).0, ["at f (/a.js:1:1)", "at g (/a.js:2:1)"]);
    assert_eq!(
        last_stderr_lines(b"x\nat turn 3 I chose 5\n", false).0,
        ["x", "at turn 3 I chose 5"]
    );
    let long = "x".repeat(1000);
    assert_eq!(last_stderr_lines(long.as_bytes(), false).0[0].len(), STDERR_LINE_CHARS);
    assert!(last_stderr_lines(b"\n \n", false).0.is_empty());
}
