#!/usr/bin/env python3
"""A Liar's Dice bot that counts: from its own dice and the number of dice
it cannot see, it works out how likely each bid is to hold. It calls a bid
that is more likely false than true, and otherwise makes the smallest raise
that is likely true. It speaks arena's bot protocol (protocol.md); `state`
is its view from examples/games/liars-dice/game.py.
"""
import json
import sys
from math import comb


def holds(quantity, face, view):
    """The chance that at least `quantity` dice on the table show `face`."""
    wild = view["ones_wild"] and face != 1
    mine = sum(1 for die in view["my_dice"] if die == face or (wild and die == 1))
    unseen = sum(view["dice_counts"]) - len(view["my_dice"])
    p = 1 / 3 if wild else 1 / 6
    needed = quantity - mine
    if needed <= 0:
        return 1.0
    return sum(comb(unseen, k) * p**k * (1 - p) ** (unseen - k) for k in range(needed, unseen + 1))


def choose(view, legal):
    bids = view["bids"]
    if bids and "liar" in legal:
        _, quantity, face = bids[-1]
        if holds(quantity, face, view) < 0.5:
            return "liar"
    raises = [move for move in legal if move != "liar"]
    likely = [move for move in raises if holds(*move["bid"], view) >= 0.5]
    if likely:
        return min(likely, key=lambda move: (move["bid"][0], -holds(*move["bid"], view)))
    return "liar" if "liar" in legal else max(raises, key=lambda move: holds(*move["bid"], view))


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            reply = {"type": "ready", "id": message["id"], "name": "counter"}
        elif message["type"] == "move":
            reply = {"type": "move", "id": message["id"],
                     "move": choose(message["state"], message["legal_moves"])}
        else:
            continue
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
