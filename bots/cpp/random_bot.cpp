// A bot that plays a random legal move in every arena game.
//
// C++17 and its standard library only (json.hpp, beside this file, reads
// and writes the messages). It reads one JSON message per line on stdin and
// answers `start` with `ready` and `move` with one of the listed legal
// moves, which is always legal, whatever the game. It plays any number of
// games and exits when its input closes. Debug output goes to stderr
// (std::cerr), never stdout: stdout carries protocol lines only.
//
// To write your own bot, copy this folder and change `choose_move` (and, if
// you keep per-game memory, reset it where `start` is handled); build.sh
// builds it, `bot` runs it. The protocol is in protocol.md; the rules of
// the games are in docs/rules.md.

#include <cstdint>
#include <iostream>
#include <random>
#include <string>

#include "json.hpp"

// Returns one of message["legal_moves"]. YOUR LOGIC GOES HERE.
//
// message["state"] is your view of the game (its shape depends on `game`,
// see protocol.md section 6), message["history"] the moves so far and
// message["legal_moves"] every move you may make, already in reply form.
// `seat` is 1 or 2; per-seat lists in the state are [seat 1's, seat 2's]:
// in Number Snatch, message["state"]["scores"][seat - 1].as_int() is your
// score.
json::Value choose_move(const json::Value& message, const std::string& game, int seat,
                        std::mt19937_64& rng) {
    (void)game;
    (void)seat;
    const json::Array& moves = message["legal_moves"].as_array();
    std::uniform_int_distribution<std::size_t> pick(0, moves.size() - 1);
    return moves[pick(rng)];
}

// Writes one reply: one line of compact JSON, flushed at once. std::endl
// writes the "\n" and flushes. After a "\n" alone the line waits in the
// buffer: reading std::cin flushes std::cout, but not once
// std::cin.tie(nullptr) (a common speed-up) unties them, and the referee
// then waits for your reply until your time runs out.
void send(const json::Value& reply) { std::cout << reply.dump() << std::endl; }

int main() {
    // Faster reading; every reply is still flushed by send().
    std::ios::sync_with_stdio(false);
    std::mt19937_64 rng;
    std::string game;
    int seat = 0;
    std::string line;
    // One message per line, of any length; the loop ends when stdin closes.
    while (std::getline(std::cin, line)) {
        json::Value message;
        try {
            message = json::parse(line);
        } catch (const json::Error& error) {
            std::cerr << "ignoring a line I cannot read: " << error.what() << '\n';
            continue;
        }
        if (!message.is_object() || !message["type"].is_string()) continue;
        const std::string& type = message["type"].as_string();
        if (type == "start") {
            // A new game (the same process may play many): read everything
            // from this message and reset any per-game state here.
            game = message["game"].as_string();
            seat = static_cast<int>(message["seat"].as_int());
            // Your seat's own seed: the same tournament replays the same
            // games, and the other seat cannot work it out.
            rng.seed(static_cast<std::uint64_t>(message["seed"].as_int()));
            send(json::Value::object({{"type", "ready"}, {"id", message["id"]}, {"name", "random_bot.cpp"}}));
        } else if (type == "move") {
            json::Value move = choose_move(message, game, seat, rng);
            send(json::Value::object({{"type", "move"}, {"id", message["id"]}, {"move", move}}));
        }
        // reveal, over and message types this bot does not know need no answer.
    }
    return 0;
}
