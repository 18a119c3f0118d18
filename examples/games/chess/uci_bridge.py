#!/usr/bin/env python3
"""Any UCI chess engine as an arena bot (protocol.md), for the chess game
program beside this file (game.py). Standard library only.

    python3 uci_bridge.py --engine /usr/games/stockfish [--movetime MS] [--nodes N]
        [--depth D] [--option "Skill Level=3"]...

The engine runs as a child process for the bridge's whole life (a game's
`start` sends `ucinewgame`). For each move the bridge sends
`position fen START moves ...` (the game's `fen` parameter and the moves
so far, so the engine sees repetitions; the view's FEN alone if the
history cannot be read) and `go` with the limits given; without any, the
engine gets half of the request's `time_ms` (under a game clock, the bank
as `wtime`/`btime` with the increment). Past 85% of `time_ms` the bridge
sends `stop`, so a deep `--depth` cannot lose on time. The engine's
`bestmove` is sent as it is: a move the game does not list shows in
games.csv as the engine's illegal move, not hidden by a substitute.

An unknown `--option` name stops the bridge before the first game; an
engine that exits, or stops answering, ends the bridge with a message on
stderr (arena's logs/ keep it) and a nonzero status.
"""
import argparse
import json
import queue
import signal
import subprocess
import sys
import threading
import time

HANDSHAKE_S = 10  # for `uci`/`uciok` and `isready`/`readyok` at start-up


class EngineError(Exception):
    """The engine exited or stopped answering: the bridge cannot go on."""


def log(message):
    print(f"uci_bridge: {message}", file=sys.stderr, flush=True)


class Engine:
    """A UCI engine process; its output lines are read by a thread into a
    queue, so that waiting for one can time out."""

    def __init__(self, path):
        self.path = path
        # Its stderr is the bridge's: arena keeps both in the game's log.
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.name = path
        self.options = set()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\r\n"))
        self.lines.put(None)  # end of output: the engine has gone

    def gone(self, doing):
        try:
            status = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            status = None
        if status is None:
            how = "closed its output"
        elif status < 0:
            try:
                how = f"was killed by {signal.Signals(-status).name}"
            except ValueError:
                how = f"was killed by signal {-status}"
        else:
            how = f"exited with status {status}"
        return EngineError(f"the engine {self.path} {how} {doing}")

    def send(self, command):
        try:
            self.process.stdin.write(command + "\n")
            self.process.stdin.flush()
        except OSError:
            raise self.gone(f"before reading `{command}`") from None

    def expect(self, word, timeout, doing, on_line=None):
        """The first line starting with `word`, within `timeout` seconds
        (None after it); `on_line` sees every line before it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if line is None:
                raise self.gone(doing)
            words = line.split()
            if words and words[0] == word:
                return line
            if on_line:
                on_line(words)

    def handshake(self, options):
        def seen(words):
            if words[:2] == ["id", "name"]:
                self.name = " ".join(words[2:])
            elif words[:2] == ["option", "name"] and "type" in words:
                self.options.add(" ".join(words[2:words.index("type")]).lower())

        self.send("uci")
        if self.expect("uciok", HANDSHAKE_S, "instead of answering `uci`", seen) is None:
            raise EngineError(f"the engine {self.path} sent no `uciok` within {HANDSHAKE_S} s")
        for option in options:
            name, _, value = option.partition("=")
            name, value = name.strip(), value.strip()
            if name.lower() not in self.options:
                known = ", ".join(sorted(self.options)) or "none"
                raise SystemExit(f"uci_bridge: {self.path} has no option `{name}` (it has: {known})")
            self.send(f"setoption name {name}" + (f" value {value}" if value else ""))
        self.ready(HANDSHAKE_S)

    def ready(self, timeout):
        self.send("isready")
        if self.expect("readyok", timeout, "instead of answering `isready`") is None:
            raise EngineError(f"the engine {self.path} sent no `readyok` within {timeout:.1f} s")

    def bestmove(self, position, go, stop_after):
        """The engine's move: `stop` is sent after `stop_after` seconds."""
        self.send(position)
        self.send(go)
        line = self.expect("bestmove", stop_after, f"while thinking on `{go}`")
        if line is None:
            self.send("stop")
            line = self.expect("bestmove", HANDSHAKE_S, f"after `stop` on `{go}`")
            if line is None:
                raise EngineError(f"the engine {self.path} sent no `bestmove` after `stop`")
        words = line.split()
        return words[1] if len(words) > 1 else "(none)"

    def quit(self):
        try:
            self.send("quit")
            self.process.wait(timeout=1)
        except (EngineError, subprocess.TimeoutExpired):
            self.process.kill()


def position(start, request):
    """The UCI `position` command for a move request."""
    history = request.get("history")
    fen = start.get("fen") if isinstance(start, dict) else None
    if isinstance(fen, str) and isinstance(history, list) and "history_from" not in request:
        moves = [entry.get("move") for entry in history if isinstance(entry, dict)]
        if len(moves) == len(history) and all(isinstance(move, str) for move in moves):
            return f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")
    return f"position fen {request['state']['fen']}"


def go_command(args, request, limits):
    """`go` with the limits asked for; else from the request's time."""
    words = ["go"]
    for flag, value in (("movetime", args.movetime), ("nodes", args.nodes), ("depth", args.depth)):
        if value is not None:
            words += [flag, str(value)]
    if len(words) > 1:
        return " ".join(words)
    if "bank_ms" in request:
        bank = max(1, int(request["bank_ms"]) - 50)
        inc = int(limits.get("increment_ms", 0))
        return f"go wtime {bank} btime {bank} winc {inc} binc {inc}"
    return f"go movetime {max(1, int(request.get('time_ms', 1000)) // 2)}"


def play(args, engine):
    start = {}  # the current game's parameters
    limits = {}
    for line in sys.stdin:  # until arena closes stdin
        request = json.loads(line)
        kind = request.get("type")
        if kind == "start":
            start, limits = request.get("params", {}), request.get("limits", {})
            engine.send("ucinewgame")
            engine.ready(max(0.1, limits.get("startup_ms", 5000) / 1000 * 0.8))
            reply = {"type": "ready", "id": request["id"], "name": engine.name}
        elif kind == "move":
            stop_after = max(0.001, int(request.get("time_ms", 1000)) / 1000 * 0.85 - 0.02)
            move = engine.bestmove(position(start, request),
                                   go_command(args, request, limits), stop_after)
            if move not in request.get("legal_moves", []):
                log(f"the engine's move {move} is not among the legal moves; sent as it is")
            reply = {"type": "move", "id": request["id"], "move": move}
        else:
            continue  # `over`, `reveal` and anything new need no answer
        print(json.dumps(reply), flush=True)


def main():
    parser = argparse.ArgumentParser(description="A UCI chess engine as an arena bot.")
    parser.add_argument("--engine", required=True, help="the engine's program, e.g. /usr/games/stockfish")
    parser.add_argument("--movetime", type=int, help="milliseconds per move (`go movetime`)")
    parser.add_argument("--nodes", type=int, help="nodes per move (`go nodes`)")
    parser.add_argument("--depth", type=int, help="plies of search per move (`go depth`)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a UCI option, e.g. \"Skill Level=3\" (repeatable)")
    args = parser.parse_args()
    try:
        engine = Engine(args.engine)
    except OSError as error:
        sys.exit(f"uci_bridge: cannot start the engine {args.engine}: {error}")
    try:
        engine.handshake(args.option)
        play(args, engine)
    except EngineError as error:
        log(f"{error}; stopping")
        engine.process.kill()
        sys.exit(1)
    except SystemExit:
        engine.process.kill()
        raise
    engine.quit()


if __name__ == "__main__":
    main()
