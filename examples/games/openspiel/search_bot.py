#!/usr/bin/env python3
"""A small searching bot for OpenSpiel's games of perfect information
without chance (tic_tac_toe, connect_four, breakthrough, ...), played
through adapter.py: it rebuilds the position from the game's name, its
parameters and the history arena sends (action names), and picks its move
by Monte Carlo tree search (OpenSpiel's MCTSBot, random rollouts).

    .venv/bin/python search_bot.py [--simulations N] [--seed S]

Needs OpenSpiel in the interpreter that runs it, as the adapter does. In
games with hidden information or chance the history does not tell it the
position: it says so on stderr and plays the first legal move.
"""
import argparse
import json
import sys

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--simulations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = None
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] == "start":
            params = dict(request["params"])
            params.pop("view_tensor", None)  # the adapter's own, not OpenSpiel's
            name = request["game"].replace("-", "_")
            game = pyspiel.load_game(name, params)
            kind = game.get_type()
            searchable = (kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
                          and kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
                          and kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL)
            if not searchable:
                print(f"search_bot: {name} has hidden information or chance: playing the first legal move",
                      file=sys.stderr, flush=True)
            seed = (args.seed + request["seed"]) % (2**31)
            searcher = mcts.MCTSBot(game, uct_c=2, max_simulations=args.simulations,
                                    evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                                    random_state=np.random.RandomState(seed + 1))
            reply = {"type": "ready", "id": request["id"], "name": "openspiel-mcts"}
        elif request["type"] == "move":
            mv = request["legal_moves"][0]
            if searchable:
                state = game.new_initial_state()
                for played in request["history"]:
                    player = played["seat"] - 1
                    names = {state.action_to_string(player, a): a for a in state.legal_actions(player)}
                    state.apply_action(names[played["move"]])
                mv = state.action_to_string(state.current_player(), searcher.step(state))
            reply = {"type": "move", "id": request["id"], "move": mv}
        else:
            continue
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
