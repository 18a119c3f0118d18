#!/usr/bin/env python3
"""A poker bot for OpenSpiel's poker games through adapter.py: it raises
(or bets) whenever it may, else calls, whatever its cards. Against bots
that play at random it wins most hands (they fold to its raises), yet the
pots it loses are the big ones it built: by chips, which the standings of
a payoff game rank by, it is no sure winner."""
import json
import sys

PREFERRED = ("Raise", "Bet", "Call", "Check", "Pass")

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "id": message["id"], "name": "aggressive"}), flush=True)
    elif message["type"] == "move":
        legal = message["legal_moves"]
        move = next((name for name in PREFERRED if name in legal), legal[0])
        print(json.dumps({"type": "move", "id": message["id"], "move": move}), flush=True)
