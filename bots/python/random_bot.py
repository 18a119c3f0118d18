#!/usr/bin/env python3
"""A bot that plays a random legal move in every arena game.

Standard library only. It reads one JSON message per line on stdin and
answers `start` with `ready` and `move` with one of the listed legal moves,
which is always legal, whatever the game. It plays any number of games and
exits when its input closes. Debug output goes to stderr, never stdout:
stdout carries protocol lines only.

To write your own bot, copy this file and change `choose_move` (and, if you
keep per-game memory, reset it in the `start` branch). The protocol is in
protocol.md; the rules of the games are in docs/rules.md.
"""
import json
import random
import sys


def choose_move(message, game, seat, rng):
    """Return one of message["legal_moves"]. YOUR LOGIC GOES HERE.

    message["state"] is your view of the game (its shape depends on `game`,
    see protocol.md section 6), message["history"] the moves so far and
    message["legal_moves"] every move you may make, already in reply form.
    `seat` is 1 or 2; per-seat lists in the state are [seat 1's, seat 2's].
    """
    return rng.choice(message["legal_moves"])


def main():
    rng = random.Random()
    game, seat = None, None
    for line in sys.stdin:  # one message per line; the loop ends when stdin closes
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            # A new game (the same process may play many): read everything
            # from this message and reset any per-game state here.
            game, seat = message["game"], message["seat"]
            # Your seat's own seed: the same tournament replays the same
            # games, and the other seat cannot work it out.
            rng.seed(message["seed"])
            reply = {"type": "ready", "id": message["id"], "name": "random_bot.py"}
        elif kind == "move":
            move = choose_move(message, game, seat, rng)
            reply = {"type": "move", "id": message["id"], "move": move}
        else:
            continue  # reveal, over, and message types this bot does not know
        print(json.dumps(reply), flush=True)  # exactly one line, flushed at once


if __name__ == "__main__":
    main()
