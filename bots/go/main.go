// Command random_bot is an arena bot that plays a random legal move in
// every game.
//
// Go's standard library only. It reads one JSON message per line on stdin
// and answers `start` with `ready` and `move` with one of the listed legal
// moves, which is always legal, whatever the game. It plays any number of
// games and exits when its input closes. Debug output goes to stderr
// (fmt.Fprintln(os.Stderr, ...) or the log package), never stdout: stdout
// carries protocol lines only.
//
// To write your own bot, copy this folder and change chooseMove (and, if
// you keep per-game memory, reset it where `start` is handled); build.sh
// builds it, `bot` runs it. The protocol is in protocol.md; the rules of
// the games are in docs/rules.md.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
)

// Message is a message from the referee, with the fields this bot reads.
// The game's state and moves stay raw JSON until you decode them into
// types of your own (see chooseMove); fields a message does not have keep
// their zero value.
type Message struct {
	Type       string            `json:"type"`
	ID         int64             `json:"id"`
	Game       string            `json:"game"`
	Params     json.RawMessage   `json:"params"`
	Seat       int               `json:"seat"`
	Seed       int64             `json:"seed"`
	State      json.RawMessage   `json:"state"`
	History    json.RawMessage   `json:"history"`
	LegalMoves []json.RawMessage `json:"legal_moves"`
	TimeMs     int64             `json:"time_ms"`
}

// chooseMove returns one of message.LegalMoves. YOUR LOGIC GOES HERE.
//
// message.State is your view of the game (its shape depends on game, see
// protocol.md section 6), message.History the moves so far and
// message.LegalMoves every move you may make, already in reply form. seat
// is 1 or 2; per-seat lists in the state are [seat 1's, seat 2's]. Decode
// what you need into a type of your own, for example in Number Snatch:
//
//	var state struct {
//		Numbers []int `json:"numbers"`
//		Scores  [2]int `json:"scores"`
//	}
//	if err := json.Unmarshal(message.State, &state); err != nil { ... }
//	mine := state.Scores[seat-1]
//
// and answer with one of message.LegalMoves (or json.Marshal of a value of
// the same form, such as 12 or "L").
func chooseMove(message *Message, game string, seat int, rng *rand.Rand) json.RawMessage {
	return message.LegalMoves[rng.Intn(len(message.LegalMoves))]
}

type ready struct {
	Type string `json:"type"`
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

type moveReply struct {
	Type string          `json:"type"`
	ID   int64           `json:"id"`
	Move json.RawMessage `json:"move"`
}

func main() {
	// bufio.Reader reads whole lines of any length (a bufio.Scanner would
	// stop at 64 KiB, and a move request can be longer).
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	rng := rand.New(rand.NewSource(0))
	game, seat := "", 0
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var message Message
			if decodeErr := json.Unmarshal(line, &message); decodeErr != nil {
				fmt.Fprintln(os.Stderr, "ignoring a line I cannot read:", decodeErr)
				continue
			}
			var reply interface{}
			switch message.Type {
			case "start":
				// A new game (the same process may play many): read
				// everything from this message and reset any per-game
				// state here.
				game, seat = message.Game, message.Seat
				// Your seat's own seed: the same tournament replays the
				// same games, and the other seat cannot work it out.
				rng = rand.New(rand.NewSource(message.Seed))
				reply = ready{Type: "ready", ID: message.ID, Name: "random_bot.go"}
			case "move":
				reply = moveReply{Type: "move", ID: message.ID, Move: chooseMove(&message, game, seat, rng)}
			default:
				continue // reveal, over and message types this bot does not know
			}
			send(out, reply)
		}
		if err == io.EOF {
			return // stdin closed: the session is over
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "cannot read stdin:", err)
			os.Exit(1)
		}
	}
}

// send writes one reply: one line of compact JSON, flushed at once.
// Without Flush the line stays in the buffer, and the referee waits for it
// until your time runs out.
func send(out *bufio.Writer, reply interface{}) {
	data, err := json.Marshal(reply)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot write a reply:", err)
		os.Exit(1)
	}
	out.Write(data)
	out.WriteByte('\n')
	if err := out.Flush(); err != nil {
		os.Exit(1) // stdout closed: the referee has gone
	}
}
