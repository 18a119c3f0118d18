//! The referee's games as the tests check them: two quick games against a
//! fixture bot, and what every transcript holds.

use std::time::Duration;

use serde_json::{Value, json};

use super::{PYTHON_RANDOM_BOT, Row, Scratch, read_games_csv};

/// A generous bound for a two-game match against a misbehaving bot: each
/// forfeit costs at most a 500 ms move timeout or one start-up, so a
/// correct referee needs a few seconds even on a loaded machine.
pub const TWO_GAMES_LIMIT: Duration = Duration::from_secs(20);

/// The name the arena gives the Python random bot (its script's stem).
pub const RANDOM_BOT_NAME: &str = "random_bot";

/// Plays two games of `game` between `bot` (CMD1) and the Python random bot
/// (CMD2), with short limits, and checks the arena succeeded in time.
pub fn play_two_games(
    scratch: &Scratch,
    game: &str,
    bot: &str,
    seed: u64,
    extra_args: &[&str],
) -> Vec<Row> {
    let out = scratch.out();
    let seed = seed.to_string();
    let mut args = vec![
        "match",
        game,
        bot,
        PYTHON_RANDOM_BOT,
        "--games",
        "2",
        "--seed",
        &seed,
        "--move-timeout",
        "500ms",
        "--out",
        out.to_str().expect("a UTF-8 temporary path"),
    ];
    // A case may set a start-up limit of its own.
    if !extra_args.contains(&"--startup-timeout") {
        args.extend(["--startup-timeout", "5s"]);
    }
    args.extend_from_slice(extra_args);
    let run = scratch.arena(&args);
    run.assert_success();
    run.assert_faster_than(TWO_GAMES_LIMIT);
    let rows = read_games_csv(&out);
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    rows
}

/// Checks what every transcript holds: a header first (game, seed,
/// parameters, both bots, the initial state), a `result` last and only
/// there, each seat's `send`/`recv` lines in time order, and before every
/// `move` line the request and the reply it accepts, its think time being
/// the time between them (or between a `ready` that came after the request,
/// when the `start` went out with it, and the reply). In a game without
/// forfeit, one `move` per ply.
pub fn check_transcript(transcript: &[Value], row: &Row) {
    let game = &row["game_index"];
    let (header, result) = match transcript {
        [header, .., result] => (header, result),
        _ => panic!("game {game}: a transcript of {} lines", transcript.len()),
    };
    assert_eq!(header["type"], "header", "game {game}");
    assert_eq!(header["game"], row["game"], "game {game}");
    assert_eq!(header["seed"].as_u64(), Some(row.number("seed")), "game {game}");
    assert!(header["params"].is_object(), "game {game}: {header}");
    assert!(header["state"].is_object(), "game {game}: {header}");
    let bots = header["bots"].as_array().expect("the header lists the bots");
    assert_eq!(bots.len(), 2, "game {game}");
    for (bot, seat) in bots.iter().zip([1, 2]) {
        assert_eq!(bot["seat"], seat, "game {game}");
        assert_eq!(bot["name"], row[&format!("seat{seat}")], "game {game}");
        assert!(bot["command"].as_array().is_some_and(|words| !words.is_empty()));
    }

    assert_eq!(result["type"], "result", "game {game}");
    assert_eq!(result["reason"], row["reason"], "game {game}");
    assert_eq!(result["outcome"], row["outcome"], "game {game}");
    assert_eq!(result["plies"].as_u64(), Some(row.number("plies")), "game {game}");
    assert_eq!(result["scores"], json!([row.number("score1"), row.number("score2")]));
    for line in &transcript[1..transcript.len() - 1] {
        let kind = line["type"].as_str().unwrap_or_default();
        assert!(["send", "recv", "move", "forfeit"].contains(&kind), "game {game}: {line}");
    }

    let mut last_time = [0; 2];
    // Per seat: the last move request (id, time), and the last reply to one.
    let mut request: [Option<(u64, u64)>; 2] = [None, None];
    let mut reply: [Option<(Value, u64, u64)>; 2] = [None, None];
    let mut moves = 0;
    for line in transcript {
        let kind = line["type"].as_str().unwrap_or_default();
        if !["send", "recv", "move"].contains(&kind) {
            continue;
        }
        let seat = line["seat"].as_u64().expect("a seat");
        let index = usize::try_from(seat - 1).expect("seat 1 or 2");
        let message = &line["msg"];
        match kind {
            "send" | "recv" => {
                let time = line["t_us"].as_u64().expect("a time");
                assert!(time >= last_time[index], "game {game}: out of order: {line}");
                last_time[index] = time;
                match (kind, message["type"].as_str()) {
                    ("send", Some("move")) => {
                        request[index] = Some((message["id"].as_u64().expect("an id"), time));
                    }
                    // The clock of a request sent with its game's `start`
                    // starts at the `ready`.
                    ("recv", Some("ready")) => {
                        if let Some((_, clock_from)) = &mut request[index] {
                            *clock_from = time;
                        }
                    }
                    ("recv", Some("move")) => {
                        let id = message["id"].as_u64().unwrap_or_default();
                        reply[index] = Some((message["move"].clone(), id, time));
                    }
                    _ => {}
                }
            }
            _ => {
                let (sent_id, sent_at) = request[index].expect("a move follows its request");
                let (mv, id, received_at) =
                    reply[index].take().expect("a move follows the reply it accepts");
                assert_eq!(line["move"], mv, "game {game}: {line}");
                assert_eq!(
                    id, sent_id,
                    "game {game}: a move accepted from a reply with another id"
                );
                let think = line["think_us"].as_u64().expect("a think time");
                let between = received_at.checked_sub(sent_at).expect("a reply after its request");
                // Each time is rounded down to a microsecond on its own.
                assert!(
                    think.abs_diff(between) <= 1,
                    "game {game}: think_us {think} against {sent_at}..{received_at}"
                );
                moves += 1;
            }
        }
    }
    if &row["reason"] == "normal" {
        assert_eq!(moves, row.number("plies"), "game {game}: move lines");
    }
}
