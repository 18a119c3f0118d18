#!/usr/bin/env python3
"""A Connect Four bot that searches: negamax with alpha-beta pruning,
deepening one ply at a time until a quarter of its time is spent.

It speaks arena's bot protocol (protocol.md): the `state` of each `move`
request is this seat's view from examples/games/connect-four/game.py
(`grid`, top row first, `X` for seat 1 and `O` for seat 2; `you`, this
seat's disc), and a move is a column number.
"""
import json
import sys
import time

WIN = 1_000_000


class Position:
    def __init__(self, grid, me, connect):
        self.rows, self.cols = len(grid), len(grid[0])
        self.cells = [list(row) for row in grid]
        self.me, self.connect = me, connect
        self.them = "O" if me == "X" else "X"
        # Columns from the middle out: good moves first prune more.
        middle = (self.cols - 1) / 2
        self.order = sorted(range(self.cols), key=lambda col: abs(col - middle))

    def moves(self):
        return [col for col in self.order if self.cells[0][col] == "."]

    def drop(self, col, disc):
        row = max(r for r in range(self.rows) if self.cells[r][col] == ".")
        self.cells[row][col] = disc
        return row

    def undo(self, row, col):
        self.cells[row][col] = "."

    def wins(self, row, col):
        disc = self.cells[row][col]
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            count = 1
            for sign in (1, -1):
                r, c = row + sign * dr, col + sign * dc
                while 0 <= r < self.rows and 0 <= c < self.cols and self.cells[r][c] == disc:
                    count += 1
                    r, c = r + sign * dr, c + sign * dc
            if count >= self.connect:
                return True
        return False

    def score(self, disc):
        """Open windows of `connect` cells, weighted by how full they are."""
        other = self.them if disc == self.me else self.me
        total = 0
        for r in range(self.rows):
            for c in range(self.cols):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    end_r, end_c = r + dr * (self.connect - 1), c + dc * (self.connect - 1)
                    if not (0 <= end_r < self.rows and 0 <= end_c < self.cols):
                        continue
                    window = [self.cells[r + dr * i][c + dc * i] for i in range(self.connect)]
                    mine, theirs = window.count(disc), window.count(other)
                    if theirs == 0 and mine:
                        total += mine * mine
                    elif mine == 0 and theirs:
                        total -= theirs * theirs
        return total


class OutOfTime(Exception):
    pass


def negamax(pos, depth, alpha, beta, disc, deadline):
    if time.monotonic() > deadline:
        raise OutOfTime
    moves = pos.moves()
    if not moves:
        return 0
    other = pos.them if disc == pos.me else pos.me
    if depth == 0:
        return pos.score(disc)
    best = -WIN * 2
    for col in moves:
        row = pos.drop(col, disc)
        if pos.wins(row, col):
            value = WIN + depth
        else:
            value = -negamax(pos, depth - 1, -beta, -alpha, other, deadline)
        pos.undo(row, col)
        best = max(best, value)
        alpha = max(alpha, value)
        if alpha >= beta:
            break
    return best


def choose(view, connect, time_ms):
    pos = Position(view["grid"], view["you"], connect)
    deadline = time.monotonic() + time_ms / 4000
    best = pos.moves()[0]
    depth = 1
    while depth <= pos.rows * pos.cols:
        try:
            scored = []
            for col in pos.moves():
                row = pos.drop(col, pos.me)
                if pos.wins(row, col):
                    value = WIN
                else:
                    value = -negamax(pos, depth - 1, -WIN * 2, WIN * 2, pos.them, deadline)
                pos.undo(row, col)
                scored.append((value, col))
        except OutOfTime:
            break
        best = max(scored, key=lambda pair: pair[0])[1]
        depth += 1
    return best


def main():
    connect = 4
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            connect = message["params"]["connect"]
            reply = {"type": "ready", "id": message["id"], "name": "searcher"}
        elif message["type"] == "move":
            move = choose(message["state"], connect, message["time_ms"])
            reply = {"type": "move", "id": message["id"], "move": move}
        else:
            continue
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
