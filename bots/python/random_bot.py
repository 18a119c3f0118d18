#!/usr/bin/env python3
"""A bot that plays a random legal move in every arena game.

Standard library only. It reads one JSON message per line on stdin and
answers `start` with `ready` and `move` with one of the listed legal moves,
which is always legal, whatever the game. It plays any number of games and
exits when its input closes. Debug output goes to stderr, never stdout.
"""
import json
import random
import sys


def main():
    rng = random.Random()
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "start":
            # Seeding from the game's seed makes tournaments reproducible.
            rng.seed(message["seed"] * 2 + message["seat"])
            reply = {"type": "ready", "id": message["id"], "name": "random_bot.py"}
        elif kind == "move":
            reply = {"type": "move", "id": message["id"], "move": rng.choice(message["legal_moves"])}
        else:
            continue  # reveal, over, and message types this bot does not know
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
