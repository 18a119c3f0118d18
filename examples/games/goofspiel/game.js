#!/usr/bin/env node
// Goofspiel, written as a game program for arena (game-protocol.md), in
// plain Node with no packages.
//
// Rules: each player holds the cards 1..cards. A prize deck of the same
// cards is shuffled (from the seed arena gives). Each turn the top prize
// is turned up and both players bid one of their cards at the same time,
// in secret; the higher bid wins the prize's value in points, equal bids
// win nothing. Bids are spent. When the hands are empty, more points win.
//
// Both bids of a turn are revealed once both are in (moves are public), so
// every view is the same but for `you`; the prize deck's order is the
// only secret, and nobody is shown it.
"use strict";
const readline = require("readline");

const PARAMS = [
  { name: "cards", type: "integer", min: 3, max: 20, default: 13, doc: "cards in each hand and in the prize deck" },
];

const DESCRIPTION = {
  name: "goofspiel",
  title: "Goofspiel",
  version: "1.0",
  seats: 2,
  moves: "public",
  random: true,
  max_turns: 20,
  params: PARAMS,
};

// SplitMix64 over BigInt: seeds are whole numbers up to 2^53 - 1, and
// the same seed deals the same deck on every machine and Node version.
function generator(seed) {
  let state = BigInt(seed);
  const mask = (1n << 64n) - 1n;
  return function next(bound) {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    z = z ^ (z >> 31n);
    return Number(z % BigInt(bound));
  };
}

class Game {
  constructor(params, seed) {
    const n = params.cards;
    const next = generator(seed);
    this.deck = Array.from({ length: n }, (_, i) => i + 1);
    for (let i = n - 1; i > 0; i--) {
      const j = next(i + 1);
      [this.deck[i], this.deck[j]] = [this.deck[j], this.deck[i]];
    }
    this.hands = [this.deck.slice().sort((a, b) => a - b), this.deck.slice().sort((a, b) => a - b)];
    this.points = [0, 0];
    this.won = []; // [prize, bid of seat 1, bid of seat 2]
  }

  over() {
    return this.won.length === this.deck.length;
  }

  prize() {
    return this.deck[this.won.length];
  }

  view(seat) {
    return {
      you: seat,
      prize: this.over() ? null : this.prize(),
      prizes_left: this.deck.slice(this.won.length + 1).sort((a, b) => a - b),
      hands: this.hands,
      points: this.points,
      turns: this.won,
    };
  }

  step(text) {
    const over = this.over();
    const step = {
      type: "step",
      to_move: over ? [] : [1, 2],
      legal_moves: over ? [[], []] : [this.hands[0], this.hands[1]],
      views: [this.view(1), this.view(2)],
      scores: this.points,
      state: { deck: this.deck, hands: this.hands, points: this.points, turns: this.won },
      text: text.join("\n"),
    };
    if (over) {
      const [a, b] = this.points;
      step.result = { winner: a > b ? 1 : b > a ? 2 : null };
    }
    return step;
  }

  play(one, two) {
    const prize = this.prize();
    this.hands = [this.hands[0].filter((c) => c !== one), this.hands[1].filter((c) => c !== two)];
    if (one !== two) this.points[one > two ? 0 : 1] += prize;
    this.won.push([prize, one, two]);
    const who = one === two ? "nobody wins it" : `Player ${one > two ? 1 : 2} wins it`;
    const text = [`Prize ${prize}: Player 1 bids ${one}, Player 2 bids ${two}; ${who}.`];
    text.push(`Points: ${this.points[0]} to ${this.points[1]}.`);
    if (!this.over()) text.push(`Next prize: ${this.prize()}.`);
    return text;
  }
}

function refusal(params) {
  const cards = params.cards;
  if (!Number.isInteger(cards) || cards < 3 || cards > 20) {
    return { type: "refuse", param: "cards", message: "must be a whole number from 3 to 20" };
  }
  return null;
}

let game = null;
const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const request = JSON.parse(line);
  let answer;
  if (request.type === "hello") {
    answer = { type: "game", ...DESCRIPTION };
  } else if (request.type === "init") {
    answer = refusal(request.params);
    if (!answer) {
      game = new Game(request.params, request.seed);
      answer = game.step([`${request.params.cards} cards each. First prize: ${game.prize()}.`]);
    }
  } else if (request.type === "apply") {
    // A simultaneous turn: both bids, seat 1's first.
    const [one, two] = request.moves.map((played) => played.move);
    answer = game.step(game.play(one, two));
  } else {
    throw new Error(`unknown request ${request.type}`);
  }
  answer.id = request.id;
  // One line per answer; Node writes to a pipe at once.
  process.stdout.write(JSON.stringify(answer) + "\n");
});
