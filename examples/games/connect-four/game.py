#!/usr/bin/env python3
"""Connect Four, written as a game program for arena (game-protocol.md).

arena sends one request per line on stdin and reads one answer per line
on stdout: `hello` (describe the game), `init` (set up a game from its
parameters and a seed), `apply` (play the moves of a turn). Each answer
carries the request's `id`. This file holds the rules only: arena runs
the bots, keeps their time, checks their moves against the legal moves
listed here, and keeps the results.

Rules: two players drop discs in turn into the columns of an upright grid
(`rows` x `cols`); a disc falls to the lowest free cell. Whoever first
lines up `connect` discs of theirs (across, down or diagonally) wins; a
full grid with no line is a draw. Seat 1 plays X and moves first.

A move is a column number, from 0 (the leftmost) to cols - 1. Both seats
see the whole grid, each from its own side of the table (`you`).
"""
import json
import sys

PARAMS = [
    {"name": "rows", "type": "integer", "min": 4, "max": 12, "default": 6,
     "doc": "rows of the grid"},
    {"name": "cols", "type": "integer", "min": 4, "max": 12, "default": 7,
     "doc": "columns of the grid"},
    {"name": "connect", "type": "integer", "min": 3, "max": 6, "default": 4,
     "doc": "discs in a line that win"},
]

DESCRIPTION = {
    "name": "connect-four",
    "title": "Connect Four",
    "version": "1.0",
    "seats": 2,
    "moves": "public",
    "random": False,
    "max_turns": 12 * 12,  # the largest grid, full
    "params": PARAMS,
}

DISCS = {1: "X", 2: "O"}
LINES = [(0, 1), (1, 0), (1, 1), (1, -1)]  # across, down, both diagonals


class Game:
    """One game in progress. Everything depends on the parameters and the
    moves alone, so the same requests always get the same answers."""

    def __init__(self, params):
        self.rows, self.cols, self.connect = params["rows"], params["cols"], params["connect"]
        self.grid = [["." for _ in range(self.cols)] for _ in range(self.rows)]  # top row first
        self.next = 1
        self.winner = None
        self.line = None  # the winning cells
        self.turns = 0

    def legal(self):
        return [col for col in range(self.cols) if self.grid[0][col] == "."]

    def over(self):
        return self.winner is not None or not self.legal()

    def drop(self, seat, col):
        row = max(r for r in range(self.rows) if self.grid[r][col] == ".")
        self.grid[row][col] = DISCS[seat]
        self.turns += 1
        self.line = self.line_through(row, col)
        if self.line:
            self.winner = seat
        self.next = 3 - seat
        return row

    def line_through(self, row, col):
        disc = self.grid[row][col]
        for dr, dc in LINES:
            cells = [(row, col)]
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and self.grid[r][c] == disc:
                    cells.append((r, c))
                    r, c = r + sign * dr, c + sign * dc
            if len(cells) >= self.connect:
                return sorted(cells)
        return None

    def picture(self):
        lines = [" ".join(row) for row in self.grid]
        lines.append(" ".join(str(col) for col in range(self.cols)))
        return lines

    def step(self, text):
        """The answer arena reads after `init` and `apply`."""
        over = self.over()
        grid = ["".join(row) for row in self.grid]
        step = {
            "type": "step",
            "to_move": [] if over else [self.next],
            "legal_moves": [[], []] if over else
                           [self.legal() if seat == self.next else [] for seat in (1, 2)],
            # Nothing is secret: each seat sees the grid and which disc is its own.
            "views": [{"grid": grid, "you": DISCS[seat], "to_move": None if over else self.next}
                      for seat in (1, 2)],
            "scores": [1 if self.winner == seat else 0 for seat in (1, 2)],
            # For transcripts and replays: the whole state and the turn in words.
            "state": {"grid": grid, "next": self.next, "turns": self.turns},
            "text": "\n".join(text + self.picture()),
        }
        if over:
            step["result"] = {"winner": self.winner}
        return step


def refusal(params):
    """Why a game cannot be set up with `params` (arena has checked each
    value against PARAMS already), or None."""
    for spec in PARAMS:
        value = params.get(spec["name"])
        if not isinstance(value, int) or isinstance(value, bool) \
                or not spec["min"] <= value <= spec["max"]:
            return spec["name"], f"must be a whole number from {spec['min']} to {spec['max']}"
    if params["connect"] > max(params["rows"], params["cols"]):
        return "connect", "a line that long does not fit in the grid"
    return None


def answer(request, game):
    kind = request["type"]
    if kind == "hello":
        return dict(DESCRIPTION, type="game"), game
    if kind == "init":
        refused = refusal(request["params"])
        if refused:
            return {"type": "refuse", "param": refused[0], "message": refused[1]}, None
        game = Game(request["params"])
        text = [f"{game.rows} rows, {game.cols} columns, {game.connect} in a line to win."]
        return game.step(text), game
    if kind == "apply":
        (played,) = request["moves"]  # one move per turn: this game is turn-based
        seat, col = played["seat"], played["move"]
        row = game.drop(seat, col)
        text = [f"Player {seat} ({DISCS[seat]}) drops a disc in column {col}, row {game.rows - row}."]
        if game.winner:
            cells = ", ".join(f"{c}/{game.rows - r}" for r, c in game.line)
            text.append(f"Player {seat} lines up {len(game.line)}: {cells}.")
        elif game.over():
            text.append("The grid is full: a draw.")
        return game.step(text), game
    raise ValueError(f"unknown request type {kind!r}")


def main():
    game = None
    for line in sys.stdin:  # one request per line; stdin closes when arena is done
        request = json.loads(line)
        reply, game = answer(request, game)
        reply["id"] = request["id"]
        print(json.dumps(reply, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
