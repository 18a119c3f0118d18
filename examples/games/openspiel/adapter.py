#!/usr/bin/env python3
"""Any two-player OpenSpiel game as an arena game program.

    python3 adapter.py GAME      # GAME: an OpenSpiel name, e.g. kuhn_poker

It speaks arena's game protocol (game-protocol.md) on stdin and stdout:

- `hello` declares the game: its OpenSpiel integer, boolean and string
  parameters become arena parameters with OpenSpiel's defaults (others
  keep their defaults); moves are public for sequential games and hidden
  for simultaneous ones; random where the game has chance nodes.
- A seat's view is what OpenSpiel says that player knows: its information
  state string (or, where the game has none, its observation string), and
  who is to move; with `--param view_tensor=true`, also that player's
  information-state (else observation) tensor as `tensor`, a list of
  numbers, for bots that learn.
- Legal moves are OpenSpiel's action names for the player
  (`state.action_to_string`), which bots send back as they are.
- Chance is drawn from arena's seed, at set-up and during play, with
  Python's `random.Random(seed)` (a game that samples its chance itself is
  given `rng_seed` from it): the same seed and moves give the same game.
- With hidden moves, what a seat learns in a turn is its view after it
  (OpenSpiel tells a player what it learns through its information state).
- Scores are OpenSpiel's returns, and payoffs: `hello` declares them from
  the game's least to its most utility, so standings rank bots by mean
  return (chips in poker) with a 95% interval. The winner is the seat with
  the higher return.

Needs OpenSpiel (`pip install open_spiel`); arena's tests install it into
a venv beside this file.
"""
import json
import random
import sys

import pyspiel

NAME = sys.argv[1] if len(sys.argv) > 1 else "tic_tac_toe"
BASE = pyspiel.load_game(NAME)
KIND = BASE.get_type()
SIMULTANEOUS = KIND.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
RANDOM = KIND.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
TYPES = {int: "integer", bool: "boolean", str: "string"}
# The tensor a seat may be shown, on request (the adapter's own parameter
# VIEW_TENSOR): its information state's where the game has one, else its
# observation's.
VIEW_TENSOR = "view_tensor"
TENSOR = ("information_state_tensor" if KIND.provides_information_state_tensor
          else "observation_tensor" if KIND.provides_observation_tensor else None)


def declared_params():
    """OpenSpiel's parameters arena can pass: integers, booleans, strings
    (`players` stays 2)."""
    params = []
    for name, default in sorted(KIND.parameter_specification.items()):
        value = getattr(default, "value", default)
        if name in ("players", "rng_seed") or type(value) not in TYPES:
            continue
        spec = {"name": name, "type": TYPES[type(value)], "default": value,
                "doc": f"OpenSpiel's `{name}`"}
        params.append(spec)
    if TENSOR:
        params.append({"name": VIEW_TENSOR, "type": "boolean", "default": False,
                       "doc": f"also show each seat OpenSpiel's {TENSOR.replace('_', ' ')} "
                              "as `tensor`, a list of numbers (for learning bots)"})
    return params


def refusal(params):
    """A value of the wrong type, refused by its name (arena checks the
    declared types too; `arena check-game` sends wrong ones on purpose)."""
    for spec in declared_params():
        value = params.get(spec["name"])
        wanted = {"integer": int, "boolean": bool, "string": str}[spec["type"]]
        # A bool is an int to Python, not to OpenSpiel.
        if type(value) is not wanted:
            return {"type": "refuse", "param": spec["name"],
                    "message": f"OpenSpiel's `{spec['name']}` is {spec['type']}, not {json.dumps(value)}"}
    return None


def payoffs(game):
    """The game's returns as arena's payoffs, where OpenSpiel bounds them."""
    try:
        low, high = game.min_utility(), game.max_utility()
    except Exception:  # a game without bounds: its scores rank by wins
        return None
    if not low < high:
        return None
    return {"min": int(low) if float(low).is_integer() else low,
            "max": int(high) if float(high).is_integer() else high}


def describe():
    hello = {"type": "game", "name": NAME.replace("_", "-"), "title": f"{KIND.long_name} (OpenSpiel)",
             "version": pyspiel.__version__ if hasattr(pyspiel, "__version__") else "open_spiel",
             "seats": 2, "moves": "hidden" if SIMULTANEOUS else "public", "random": RANDOM,
             "max_turns": max(1, BASE.max_game_length()), "params": declared_params()}
    if payoffs(BASE):
        hello["payoffs"] = payoffs(BASE)
    return hello


class Game:
    def __init__(self, params, seed):
        given = dict(params)
        self.tensor = given.pop(VIEW_TENSOR, False)
        if "players" in KIND.parameter_specification:
            given["players"] = 2
        # A game that samples its chance itself does so from its own seed.
        if "rng_seed" in KIND.parameter_specification:
            given["rng_seed"] = seed % (2**31 - 1)
        self.game = pyspiel.load_game(NAME, given)
        self.state = self.game.new_initial_state()
        self.rng = random.Random(seed)
        self.resolve_chance()

    def resolve_chance(self):
        while self.state.is_chance_node():
            outcomes = self.state.chance_outcomes()
            actions, weights = zip(*outcomes)
            self.state.apply_action(self.rng.choices(actions, weights)[0])

    def view(self, player):
        if KIND.provides_information_state_string:
            seen = self.state.information_state_string(player)
        elif KIND.provides_observation_string:
            seen = self.state.observation_string(player)
        else:
            seen = str(self.state)
        view = {"seen": seen, "to_move": [p + 1 for p in self.to_move()]}
        if self.tensor:
            values = getattr(self.state, TENSOR)(player)
            view["tensor"] = [int(v) if float(v).is_integer() else v for v in values]
        return view

    def to_move(self):
        if self.state.is_terminal():
            return []
        if self.state.is_simultaneous_node():
            return [p for p in (0, 1) if self.state.legal_actions(p)]
        return [self.state.current_player()]

    def names(self, player):
        return {self.state.action_to_string(player, a): a for a in self.state.legal_actions(player)}

    def step(self, learned=False):
        to_move = self.to_move()
        legal = [list(self.names(p)) if p in to_move else [] for p in (0, 1)]
        step = {"type": "step", "to_move": [p + 1 for p in to_move], "legal_moves": legal,
                "views": [self.view(0), self.view(1)], "scores": self.scores(), "text": str(self.state)}
        if learned:
            step["learned"] = step["views"]
        if self.state.is_terminal():
            one, two = self.state.returns()
            step["result"] = {"winner": 1 if one > two else 2 if two > one else None}
        return step

    def scores(self):
        returns = self.state.returns() if self.state.is_terminal() else [0, 0]
        # A whole return as a whole number (JSON's 1, not 1.0).
        return [int(r) if float(r).is_integer() else float(r) for r in returns]

    def apply(self, moves):
        if self.state.is_simultaneous_node():
            chosen = {played["seat"] - 1: played["move"] for played in moves}
            actions = [self.names(p)[chosen[p]] if p in chosen else pyspiel.INVALID_ACTION for p in (0, 1)]
            self.state.apply_actions(actions)
        else:
            (played,) = moves
            player = played["seat"] - 1
            self.state.apply_action(self.names(player)[played["move"]])
        self.resolve_chance()


def main():
    game = None
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "hello":
            reply = describe()
        elif request["type"] == "init":
            reply = refusal(request["params"])
            if reply is None:
                try:
                    game = Game(request["params"], request["seed"])
                except pyspiel.SpielError as error:
                    # OpenSpiel names the parameter in its words, if any.
                    named = [spec["name"] for spec in declared_params() if spec["name"] in str(error)]
                    reply = {"type": "refuse", "message": str(error), **({"param": named[0]} if named else {})}
                else:
                    reply = game.step()
                    # Parameters may widen the returns (leduc's raises).
                    if payoffs(game.game) and payoffs(game.game) != payoffs(BASE):
                        reply["declares"] = {"payoffs": payoffs(game.game)}
        else:
            game.apply(request["moves"])
            reply = game.step(learned=SIMULTANEOUS)
        reply["id"] = request["id"]
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
