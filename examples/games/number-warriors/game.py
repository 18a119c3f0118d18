#!/usr/bin/env python3
"""Number Warriors, the built-in game, written again as a game program
(game-protocol.md). For every seed and the same bots, bots are sent
exactly the messages the built-in `number-warriors` sends them (a test
of arena's compares them), so this file is also a worked example of
turning a rule book into a program.

Rules (docs/rules.md): both players start with `life` Life Points; the
pool holds 1..max. Every turn both choose, at the same time and in
secret, a number still in the pool (they may choose the same one). The
higher number deals the difference in damage to the other (Life Points
stop at 0); equal numbers deal none. The chosen numbers leave the pool.
The game ends when a player is at 0 (the other wins) or the pool is
empty (more Life Points win; equal is a draw). There is no randomness.
"""
import json
import sys

PARAMS = [
    {"name": "life", "type": "integer", "min": 1, "max": 1_000_000_000, "default": 15,
     "doc": "each player's starting Life Points"},
    {"name": "max", "type": "integer", "min": 1, "max": 1000, "default": 9,
     "doc": "the largest number in the pool"},
]

DESCRIPTION = {
    "name": "number-warriors",
    "title": "Number Warriors",
    "version": "1.0",
    "seats": 2,
    "moves": "public",  # both choices are shown once both are in
    "random": False,
    "max_turns": 1000,  # each turn takes at least one number of the pool
    "params": PARAMS,
}


class Game:
    def __init__(self, params):
        self.pool = list(range(1, params["max"] + 1))
        self.life = [params["life"], params["life"]]
        self.turn = 1

    def over(self):
        return not self.pool or 0 in self.life

    def view(self):
        # The built-in view's fields, in its order.
        return {"pool": self.pool, "life": self.life, "turn": self.turn}

    def step(self, text):
        over = self.over()
        step = {
            "type": "step",
            "to_move": [] if over else [1, 2],
            "legal_moves": [[], []] if over else [self.pool, self.pool],
            "views": [self.view(), self.view()],
            "scores": self.life,
            "text": text,
        }
        if over:
            one, two = self.life
            step["result"] = {"winner": 1 if one > two else 2 if two > one else None}
        return step

    def play(self, one, two):
        loser = 1 if one > two else 0  # equal numbers deal 0 damage
        damage = abs(one - two)
        self.life[loser] = max(0, self.life[loser] - damage)
        self.pool = [n for n in self.pool if n not in (one, two)]
        if not self.over():
            self.turn += 1
        if damage == 0:
            return f"Both choose {one}: no damage. Life Points {self.life[0]} to {self.life[1]}."
        return (f"Player 1 chooses {one}, Player 2 chooses {two}: Player {loser + 1} takes "
                f"{damage} damage. Life Points {self.life[0]} to {self.life[1]}.")


def refusal(params):
    for spec in PARAMS:
        value = params.get(spec["name"])
        if not isinstance(value, int) or isinstance(value, bool) \
                or not spec["min"] <= value <= spec["max"]:
            return {"type": "refuse", "param": spec["name"],
                    "message": f"must be between {spec['min']} and {spec['max']}, got {value}"}
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
                game = Game(request["params"])
                answer = game.step(f"Life Points {game.life[0]} each; the pool is 1 to {len(game.pool)}.")
        else:
            one, two = (played["move"] for played in request["moves"])  # seat 1's first
            answer = game.step(game.play(one, two))
        answer["id"] = request["id"]
        print(json.dumps(answer, separators=(",", ":")), flush=True)


if __name__ == "__main__":
    main()
