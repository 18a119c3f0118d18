#!/usr/bin/env python3
"""A Kuhn poker bot that bets whenever it may and calls every bet, whatever
its card: against a bot that plays at random it wins chips (a random bot
folds to a bet half the time), which `arena sprt --payoff1` finds."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "id": message["id"], "name": "always-bet"}), flush=True)
    elif message["type"] == "move":
        legal = message["legal_moves"]
        move = "bet" if "bet" in legal else "call"
        print(json.dumps({"type": "move", "id": message["id"], "move": move}), flush=True)
