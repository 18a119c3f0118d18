#!/usr/bin/env python3
"""Kuhn poker, written as a game program for arena (game-protocol.md).

Rules: a deck of three cards, Jack, Queen and King (1, 2, 3). Each player
antes one chip and is dealt one card, seen by its holder alone. Player 1
acts first: "check" or "bet" (one more chip). After a check, player 2
checks (the cards are shown, the higher card takes the pot) or bets; a
player facing a bet "call"s (the cards are shown) or "fold"s (the bettor
takes the pot, the cards stay hidden). One hand is one game; the scores
are each player's chips won or lost (+1, +2, -1 or -2).

Its chance is private (each seat sees only its own card), so arena deals
every game anew rather than replaying a deal with the seats swapped.
"""
import json
import random
import sys

CARDS = {1: "Jack", 2: "Queen", 3: "King"}

DESCRIPTION = {
    "name": "kuhn-poker",
    "title": "Kuhn Poker",
    "version": "1.0",
    "seats": 2,
    "moves": "public",
    "random": True,
    "max_turns": 3,
    # A hand's scores are the chips won and lost (at most the two a seat
    # can put in): standings rank the bots by chips won a hand.
    "payoffs": {"min": -2, "max": 2},
    "params": [],
}


class Hand:
    def __init__(self, seed):
        rng = random.Random(seed)
        self.cards = rng.sample([1, 2, 3], 2)  # seat 1's, seat 2's
        self.actions = []  # [seat, action]
        self.put_in = [1, 1]
        self.next = 1
        self.winner = None
        self.shown = False

    def legal(self):
        if self.actions and self.actions[-1][1] == "bet":
            return ["call", "fold"]
        return ["check", "bet"]

    def view(self, seat):
        view = {"my_card": CARDS[self.cards[seat - 1]], "actions": self.actions,
                "pot": sum(self.put_in)}
        if self.shown:
            view["their_card"] = CARDS[self.cards[2 - seat]]
        return view

    def step(self, text):
        over = self.winner is not None
        legal = [[], []]
        if not over:
            legal[self.next - 1] = self.legal()
        scores = [0, 0]
        if over:
            loser = 3 - self.winner
            scores[self.winner - 1] = self.put_in[loser - 1]
            scores[loser - 1] = -self.put_in[loser - 1]
        step = {
            "type": "step",
            "to_move": [] if over else [self.next],
            "legal_moves": legal,
            "views": [self.view(1), self.view(2)],
            "scores": scores,
            "state": {"cards": self.cards, "actions": self.actions, "put_in": self.put_in},
            "text": "\n".join(text),
        }
        if over:
            step["result"] = {"winner": self.winner}
        return step

    def play(self, seat, action):
        self.actions.append([seat, action])
        text = [f"Player {seat} {action}s."]
        if action == "bet" or action == "call":
            self.put_in[seat - 1] += 1
        if action == "fold":
            self.winner = 3 - seat
        elif action == "call" or (action == "check" and len(self.actions) == 2):
            self.shown = True
            self.winner = 1 if self.cards[0] > self.cards[1] else 2
            text.append(f"Showdown: Player 1 {CARDS[self.cards[0]]}, Player 2 {CARDS[self.cards[1]]}.")
        else:
            self.next = 3 - seat
        if self.winner is not None:
            text.append(f"Player {self.winner} takes the pot of {sum(self.put_in)}.")
        return text


def main():
    hand = None
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            answer = dict(DESCRIPTION, type="game")
        elif request["type"] == "init":
            hand = Hand(request["seed"])
            answer = hand.step(["Each player antes 1 and is dealt a card; Player 1 acts first."])
        else:
            (played,) = request["moves"]
            answer = hand.step(hand.play(played["seat"], played["move"]))
        answer["id"] = request["id"]
        print(json.dumps(answer, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
