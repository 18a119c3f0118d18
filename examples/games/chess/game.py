#!/usr/bin/env python3
"""Chess, written as a game program for arena (game-protocol.md), on
python-chess (PyPI `chess`, tested with 1.11.2).

Seats and colours: seat 1 plays the side to move in the starting position
(`fen`), so seat 1 is white from the standard start and black from a FEN
with black to move; seat 1 always moves first, as arena expects. A
tournament plays every setup twice, seats swapped, so each bot gets both
colours of every opening.

A seat's view is {"fen": FEN, "you": "white"|"black", "board": TEXT} (the
board drawn for people, rank 8 first), plus "end" (why) once the game is
over. A move is a UCI string: "e2e4", "e7e8q", castling
as the king's move ("e1g1"). Legal moves are listed sorted.

The game ends, at once and without a claim (as engine testers adjudicate):
checkmate (a win); stalemate, insufficient material (no mate possible for
either side), threefold repetition (the same position, side to move,
castling and en passant rights for the third time since the start FEN)
and the fifty-move rule (100 plies without a capture or a pawn move,
counting the FEN's halfmove clock; a mate on that ply still wins): draws.
After `max_plies` plies the game is adjudicated: a draw, or, with
`adjudicate_material` N > 0, a win for a side ahead by at least N in
material (pawn 1, knight and bishop 3, rook 5, queen 9).

Scores are half-points: 2 and 0 for a win, 1 and 1 for a draw, 0 and 0
while playing; `result.winner` decides the game.
"""
import json
import sys

import chess

MAX_PLIES = 10_000

PARAMS = [
    {"name": "fen", "type": "string", "default": chess.STARTING_FEN,
     "doc": "the starting position as FEN; seat 1 plays the side to move"},
    {"name": "max_plies", "type": "integer", "min": 1, "max": MAX_PLIES, "default": 600,
     "doc": "plies after which the game is adjudicated"},
    {"name": "adjudicate_material", "type": "integer", "min": 0, "max": 100, "default": 0,
     "doc": "at max_plies, a side this much material ahead (P1 N3 B3 R5 Q9) wins; 0: a draw"},
]

DESCRIPTION = {
    "type": "game",
    "name": "chess",
    "title": "Chess",
    "version": f"1.0, python-chess {chess.__version__}",
    "seats": 2,
    "moves": "public",
    "random": False,
    # The largest `max_plies`; each `init` declares its own.
    "max_turns": MAX_PLIES,
    "params": PARAMS,
}

COLOURS = {chess.WHITE: "white", chess.BLACK: "black"}
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def refusal(params):
    """Why these parameters make no game, as a `refuse` answer, or None."""
    for spec in PARAMS:
        value = params.get(spec["name"])
        if spec["type"] == "integer":
            # A bool is an int to Python, not to JSON.
            if type(value) is not int or not spec["min"] <= value <= spec["max"]:
                return refuse(spec["name"], f"a whole number from {spec['min']} to {spec['max']}")
        elif not isinstance(value, str):
            return refuse(spec["name"], "a FEN string")
    try:
        board = chess.Board(params["fen"])
    except ValueError as error:
        return refuse("fen", f"not a FEN: {error}")
    if not board.is_valid():
        return refuse("fen", f"not a legal position ({board.status()!r})")
    over = ending(board, 0, params["max_plies"], 0)
    if over is not None:
        return refuse("fen", f"the game is over in this position ({over[1]})")
    return None


def refuse(param, message):
    return {"type": "refuse", "param": param, "message": message}


def material(board, colour):
    return sum(VALUES.get(piece.piece_type, 0) for piece in board.piece_map().values()
               if piece.color == colour)


def ending(board, plies, max_plies, margin):
    """(winning colour or None, reason) once the game is over, else None."""
    if board.is_checkmate():
        return not board.turn, "checkmate"
    if board.is_stalemate():
        return None, "stalemate"
    if board.is_insufficient_material():
        return None, "insufficient material"
    if board.is_repetition(3):
        return None, "threefold repetition"
    if board.is_fifty_moves():
        return None, "fifty-move rule"
    if plies >= max_plies:
        ahead = material(board, chess.WHITE) - material(board, chess.BLACK)
        if margin and abs(ahead) >= margin:
            return ahead > 0, f"move limit, {abs(ahead)} ahead in material"
        return None, "move limit"
    return None


class Game:
    """One game: everything follows from the parameters and the moves."""

    def __init__(self, params):
        self.board = chess.Board(params["fen"])
        self.max_plies = params["max_plies"]
        self.margin = params["adjudicate_material"]
        self.plies = 0
        # Seat 1 plays the side to move at the start.
        self.seat_of = {self.board.turn: 1, not self.board.turn: 2}

    def step(self, text):
        board = self.board
        over = ending(board, self.plies, self.max_plies, self.margin)
        fen = board.fen()
        # For people (`arena play`): rank 8 first, `.` for an empty square.
        ranks = [f"{8 - index} {row}" for index, row in enumerate(str(board).split("\n"))]
        drawn = "\n".join(ranks + ["  a b c d e f g h"])
        views = []
        for seat in (1, 2):
            colour = chess.WHITE if self.seat_of[chess.WHITE] == seat else chess.BLACK
            view = {"fen": fen, "you": COLOURS[colour], "board": drawn}
            if over is not None:
                view["end"] = over[1]
            views.append(view)
        answer = {"type": "step", "views": views,
                  "state": {"fen": fen, "plies": self.plies}}
        if over is None:
            mover = self.seat_of[board.turn]
            legal = sorted(move.uci() for move in board.legal_moves)
            answer["to_move"] = [mover]
            answer["legal_moves"] = [legal if seat == mover else [] for seat in (1, 2)]
            answer["scores"] = [0, 0]
        else:
            winner, reason = over
            answer["to_move"] = []
            answer["legal_moves"] = [[], []]
            if winner is None:
                answer["scores"] = [1, 1]
                answer["result"] = {"winner": None}
                text += f"\nDraw: {reason}."
            else:
                seat = self.seat_of[winner]
                answer["scores"] = [2 if s == seat else 0 for s in (1, 2)]
                answer["result"] = {"winner": seat}
                text += f"\n{COLOURS[winner].capitalize()} (seat {seat}) wins: {reason}."
        answer["text"] = f"{text}\n{drawn}\n{fen}"
        return answer

    def apply(self, moves):
        (played,) = moves
        move = chess.Move.from_uci(played["move"])
        colour = COLOURS[self.board.turn]
        number = self.board.fullmove_number
        san = self.board.san(move)
        self.board.push(move)
        self.plies += 1
        dots = "." if colour == "white" else "..."
        return self.step(f"{number}{dots} {san} ({colour}, seat {played['seat']}: {played['move']})")


def answer(request, game):
    """The answer to one request, and the game in progress after it."""
    kind = request.get("type")
    if kind == "hello":
        return dict(DESCRIPTION), game
    if kind == "init":
        params = request.get("params", {})
        refused = refusal(params)
        if refused is not None:
            return refused, None
        game = Game(params)
        step = game.step(f"Start: {COLOURS[game.board.turn]} (seat 1) to move.")
        step["declares"] = {"max_turns": game.max_plies}
        return step, game
    return game.apply(request["moves"]), game


def main():
    game = None
    for line in sys.stdin:  # until arena closes stdin
        request = json.loads(line)
        reply, game = answer(request, game)
        reply["id"] = request["id"]
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
