#!/usr/bin/env python3
"""An EPD or PGN opening book as an arena openings file (JSON Lines, one
setup a line: {"params": {"fen": "..."}}; tournaments/README.md, Openings).

    python openings.py BOOK.epd > BOOK.jsonl
    python openings.py BOOK.pgn [--plies N] > BOOK.jsonl

Needs python-chess (the venv the game runs in): every position is checked
by game.py's own check of its `fen` parameter. An EPD line gives its position
(with its `hmvc` and `fmvn` operations as the FEN's counters); a PGN game
gives the position after its main line, or after its first N plies with
`--plies`. Each entry is preceded by a `#` line naming it (EPD `id`, or the
PGN's Opening/White/Black headers), which arena skips. A position already
written is left out, said on stderr: a setup played twice only costs.
The game is not random, so entries carry no seed: a position is the setup.
"""
import argparse
import json
import sys

import chess
import chess.pgn

sys.dont_write_bytecode = True  # no __pycache__ left in the game's folder
import game  # noqa: E402 (beside this file: the check of `fen` is the game's own)


def from_epd(file):
    for number, line in enumerate(file, 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            board, ops = chess.Board.from_epd(line)
        except ValueError as error:
            sys.exit(f"openings.py: line {number}: not EPD: {error}")
        name = ops.get("id") or ops.get("c0") or f"line {number}"
        yield board, str(name), f"line {number}"


def from_pgn(file, plies):
    index = 0
    while (game := chess.pgn.read_game(file)) is not None:
        index += 1
        if game.errors:
            sys.exit(f"openings.py: game {index}: {game.errors[0]}")
        board = game.board()
        for count, move in enumerate(game.mainline_moves()):
            if plies is not None and count >= plies:
                break
            board.push(move)
        headers = game.headers
        name = headers.get("Opening") or f"{headers.get('White', '?')} - {headers.get('Black', '?')}"
        yield board, name, f"game {index}"


def main():
    parser = argparse.ArgumentParser(description="An EPD or PGN book as an arena openings file.")
    parser.add_argument("book", help="an .epd or .pgn file")
    parser.add_argument("--plies", type=int, help="PGN: the position after this many plies")
    args = parser.parse_args()
    with open(args.book, encoding="utf-8-sig") as file:
        pgn = args.book.lower().endswith(".pgn")
        positions = from_pgn(file, args.plies) if pgn else from_epd(file)
        seen = set()
        written = 0
        for board, name, where in positions:
            params = {spec["name"]: spec["default"] for spec in game.PARAMS}
            refused = game.refusal({**params, "fen": board.fen()})
            if refused is not None:
                sys.exit(f"openings.py: {where} ({name}): {refused['message']}")
            key = board.epd()
            if key in seen:
                print(f"openings.py: {where} ({name}): a position already written, left out",
                      file=sys.stderr)
                continue
            seen.add(key)
            # A name on one line: arena skips `#` lines.
            print("# " + " ".join(name.split()))
            print(json.dumps({"params": {"fen": board.fen()}}))
            written += 1
    if not written:
        sys.exit(f"openings.py: {args.book} holds no position")
    print(f"openings.py: {written} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
