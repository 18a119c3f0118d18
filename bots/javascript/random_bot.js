#!/usr/bin/env node
// A bot that plays a random legal move in every arena game.
//
// Plain Node.js (20 or later), no npm packages. It reads one JSON message
// per line on stdin and answers `start` with `ready` and `move` with one of
// the listed legal moves, which is always legal, whatever the game. It plays
// any number of games and exits when its input closes. Debug output goes to
// stderr (console.error), never stdout: stdout carries protocol lines only.
//
// To write your own bot, copy this file and change `chooseMove` (and, if you
// keep per-game memory, reset it where `start` is handled). The protocol is
// in protocol.md; the rules of the games are in docs/rules.md.
"use strict";

const readline = require("node:readline");

// Mulberry32: a tiny seeded generator of floats in [0, 1).
function mulberry32(state) {
  return function next() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One 32-bit seed from our seat's seed. The seed is below 2^53, so it is an
// exact JavaScript number and splits exactly into two 32-bit halves, which
// are mixed (MurmurHash3's finaliser).
function seedFor(seed) {
  const low = seed % 2 ** 32;
  const high = Math.floor(seed / 2 ** 32);
  let h = (low ^ Math.imul(high, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

// Returns one of message.legal_moves. YOUR LOGIC GOES HERE.
//
// message.state is your view of the game (its shape depends on `game`, see
// protocol.md section 6), message.history the moves so far and
// message.legal_moves every move you may make, already in reply form.
// `seat` is 1 or 2; per-seat lists in the state are [seat 1's, seat 2's].
function chooseMove(message, game, seat, random) {
  const moves = message.legal_moves;
  return moves[Math.floor(random() * moves.length)];
}

function send(reply) {
  // One line of compact JSON. Writes to a pipe are synchronous on Linux, so
  // the line is on its way at once.
  process.stdout.write(JSON.stringify(reply) + "\n");
}

let game = null;
let seat = null;
let random = mulberry32(0);

// readline reads whole lines of any length; "close" comes when stdin closes.
const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    console.error(`ignoring a line I cannot read: ${error.message}`);
    return;
  }
  if (message.type === "start") {
    // A new game (the same process may play many): read everything from
    // this message and reset any per-game state here.
    game = message.game;
    seat = message.seat;
    // Our seat's own seed: the same tournament replays the same games, and
    // the other seat cannot work it out.
    random = mulberry32(seedFor(message.seed));
    send({ type: "ready", id: message.id, name: "random_bot.js" });
  } else if (message.type === "move") {
    send({ type: "move", id: message.id, move: chooseMove(message, game, seat, random) });
  }
  // reveal, over and message types this bot does not know need no answer.
});
input.on("close", () => process.exit(0));
