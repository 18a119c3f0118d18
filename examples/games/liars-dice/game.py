#!/usr/bin/env python3
"""Liar's Dice for two, written as a game program for arena
(game-protocol.md).

Rules: each player has `dice` dice, rolled in secret at the start of each
round (each player sees only their own). Players take turns bidding: a bid
[quantity, face] claims that at least `quantity` of all the dice on the
table show `face`. With `ones_wild`, ones count for every face (and a bid
on ones counts only ones). Each bid must be higher than the last: more
dice, or as many dice of a higher face. Instead of bidding, a player may
call the last bid a lie ("liar"): all dice are shown; if the bid holds the
caller loses a die, otherwise the bidder does, and the loser starts the
next round. A player left without dice loses the game.

Moves: {"bid": [quantity, face]} or "liar". Bids are public, dice are
private: each seat's view holds its own dice, how many the other has, the
bids of the round, and what the last round showed.
"""
import json
import random
import sys

PARAMS = [
    {"name": "dice", "type": "integer", "min": 1, "max": 6, "default": 5,
     "doc": "dice each player starts with"},
    {"name": "ones_wild", "type": "boolean", "default": True,
     "doc": "ones count for every face"},
]

DESCRIPTION = {
    "name": "liars-dice",
    "title": "Liar's Dice",
    "version": "1.0",
    "seats": 2,
    "moves": "public",
    "random": True,
    # Rounds: at most 2 x dice - 1; turns per round: every bid (12 dice, 6
    # faces) and the call.
    "max_turns": 11 * 73,
    "params": PARAMS,
}


class Game:
    def __init__(self, params, seed):
        self.rng = random.Random(seed)  # the game's own generator: same seed, same rolls
        self.ones_wild = params["ones_wild"]
        self.counts = [params["dice"], params["dice"]]
        self.starter = 1
        self.last_round = None
        self.new_round()

    def new_round(self):
        self.dice = [sorted(self.rng.randint(1, 6) for _ in range(n)) for n in self.counts]
        self.bids = []  # [seat, quantity, face]
        self.next = self.starter

    def over(self):
        return 0 in self.counts

    def total(self):
        return sum(self.counts)

    def counted(self, face):
        every = self.dice[0] + self.dice[1]
        wild = self.ones_wild and face != 1
        return sum(1 for die in every if die == face or (wild and die == 1))

    def legal(self):
        moves = []
        last = self.bids[-1][1:] if self.bids else None
        for quantity in range(1, self.total() + 1):
            for face in range(1, 7):
                if last is None or (quantity, face) > tuple(last):
                    moves.append({"bid": [quantity, face]})
        if last is not None:
            moves.append("liar")
        return moves

    def view(self, seat):
        return {
            # A seat left without dice holds none (its last round's dice
            # are in `last_round`).
            "my_dice": self.dice[seat - 1] if self.counts[seat - 1] else [],
            "dice_counts": self.counts,
            "bids": self.bids,
            "ones_wild": self.ones_wild,
            "last_round": self.last_round,
        }

    def step(self, text):
        over = self.over()
        legal = [[], []]
        if not over:
            legal[self.next - 1] = self.legal()
        step = {
            "type": "step",
            "to_move": [] if over else [self.next],
            "legal_moves": legal,
            "views": [self.view(1), self.view(2)],
            "scores": self.counts,
            "state": {"dice": self.dice, "counts": self.counts, "bids": self.bids, "next": self.next},
            "text": "\n".join(text),
        }
        if over:
            step["result"] = {"winner": 1 if self.counts[0] else 2}
        return step

    def play(self, seat, move):
        if move != "liar":
            quantity, face = move["bid"]
            self.bids.append([seat, quantity, face])
            self.next = 3 - seat
            return [f"Player {seat} bids {quantity} x {face}."]
        bidder, quantity, face = self.bids[-1]
        shown = self.counted(face)
        loser = seat if shown >= quantity else bidder
        self.last_round = {"dice": self.dice, "bid": [quantity, face], "bidder": bidder,
                           "caller": seat, "shown": shown, "loser": loser}
        text = [f"Player {seat} calls Player {bidder}'s bid of {quantity} x {face} a lie.",
                f"Dice: Player 1 {self.dice[0]}, Player 2 {self.dice[1]}: {shown} count.",
                f"Player {loser} loses a die."]
        self.counts[loser - 1] -= 1
        self.starter = loser
        if not self.over():
            self.new_round()
            text.append(f"New round: {self.counts[0]} dice to {self.counts[1]}; Player {loser} starts.")
        return text


def refusal(params):
    dice, wild = params.get("dice"), params.get("ones_wild")
    if not isinstance(dice, int) or isinstance(dice, bool) or not 1 <= dice <= 6:
        return {"type": "refuse", "param": "dice", "message": "must be a whole number from 1 to 6"}
    if not isinstance(wild, bool):
        return {"type": "refuse", "param": "ones_wild", "message": "must be true or false"}
    return None


def main():
    game = None
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            answer = dict(DESCRIPTION, type="game")
        elif request["type"] == "init":
            answer = refusal(request["params"])
            if answer is None:
                game = Game(request["params"], request["seed"])
                answer = game.step([f"{game.counts[0]} dice each; Player 1 bids first."])
        else:
            (played,) = request["moves"]
            answer = game.step(game.play(played["seat"], played["move"]))
        answer["id"] = request["id"]
        print(json.dumps(answer, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
