#!/usr/bin/env node
// A Goofspiel bot: bids the card that matches the prize (or, if it is
// spent, the nearest card above it, else its lowest card). It speaks
// arena's bot protocol (protocol.md); `state` is its view from
// examples/games/goofspiel/game.js.
"use strict";
const readline = require("readline");

function choose(view, legal) {
  const prize = view.prize;
  if (legal.includes(prize)) return prize;
  const above = legal.filter((card) => card > prize);
  return above.length ? Math.min(...above) : Math.min(...legal);
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  let reply;
  if (message.type === "start") {
    reply = { type: "ready", id: message.id, name: "matcher" };
  } else if (message.type === "move") {
    reply = { type: "move", id: message.id, move: choose(message.state, message.legal_moves) };
  } else {
    return; // reveal, over and anything new need no answer
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
