#!/usr/bin/env python3
"""A Kuhn poker bot that plays its card: with the King it bets and calls,
with the Jack it checks and folds, and with the Queen it checks, and calls
a bet one time in three (drawn from its seat seed)."""
import json
import random
import sys

rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rng.seed(message["seed"])
        print(json.dumps({"type": "ready", "id": message["id"], "name": "by-card"}), flush=True)
    elif message["type"] == "move":
        card, legal = message["state"]["my_card"], message["legal_moves"]
        if "bet" in legal:
            move = "bet" if card == "King" else "check"
        elif card == "King" or card == "Queen" and rng.random() < 1 / 3:
            move = "call"
        else:
            move = "fold"
        print(json.dumps({"type": "move", "id": message["id"], "move": move}), flush=True)
