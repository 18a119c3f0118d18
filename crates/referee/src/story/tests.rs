use serde_json::json;

use super::*;

/// A header line for `game` with `params`, whose state is the real one.
fn header(game: GameId, params: Value) -> String {
    let state = arena_games::with_game!(game, G => {
        use arena_games::Game;
        let params: <G as Game>::Params = serde_json::from_value(params.clone()).unwrap();
        serde_json::to_value(G::new(&params, 5)).unwrap()
    });
    let bots = json!([{"seat": 1, "name": "ann", "command": ["a"]}, {"seat": 2, "name": "bob", "command": ["b"]}]);
    json!({"type": "header", "arena": "0.1.0", "protocol": 1, "game": game, "seed": 5,
           "params": params, "bots": bots, "state": state})
    .to_string()
}

fn snatch_header() -> String {
    // Three numbers out of three: the list is [1, 2, 3] whatever the seed.
    header(GameId::NumberSnatch, json!({"count": 3, "max": 3}))
}

fn moved(seat: u8, mv: Value) -> String {
    json!({"type": "move", "seat": seat, "move": mv, "think_us": 10}).to_string()
}

fn result(winner: Option<u8>, outcome: &str, reason: &str, scores: [i64; 2]) -> String {
    json!({"type": "result", "winner": winner, "outcome": outcome, "reason": reason,
           "scores": scores, "plies": 0, "duration_us": 1, "state": {}})
    .to_string()
}

fn transcript(lines: &[String]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

fn error(lines: &[String]) -> String {
    tell(&transcript(lines)).unwrap_err().to_string()
}

#[test]
fn a_whole_game_is_told_from_title_to_result() {
    let story = tell(&transcript(&[
        snatch_header(),
        r#"{"type":"send","t_us":1,"seat":1,"msg":{"type":"move"}}"#.to_owned(),
        moved(1, json!(2)),
        moved(2, json!(1)),
        moved(1, json!(3)),
        result(Some(1), "seat1", "normal", [6, 0]),
    ]))
    .unwrap();
    assert_eq!(story[0], "Number Snatch — seed 5 — Player 1: ann, Player 2: bob");
    assert_eq!(story[1], r#"Parameters: {"count":3,"max":3}"#);
    assert_eq!(
        story[3..6],
        ["Available Numbers: [1, 2, 3]", "Player 1 Score: 0", "Player 2 Score: 0"]
    );
    assert_eq!(story[6..8], ["", "Player 1 selects 2."]);
    assert!(story.contains(&"Player 2 selects 1.".to_owned()), "{story:#?}");
    assert!(story.contains(&"Snatch! 3 is a multiple of Player 2's last number (1).".to_owned()));
    assert_eq!(
        story[story.len() - 4..],
        [
            "",
            "Final scores: Player 1 (ann) 6, Player 2 (bob) 0",
            "Winner: Player 1 (ann)",
            "Reason: normal"
        ]
    );
}

#[test]
fn a_clock_game_tells_the_time_controls_and_the_bank_after_each_move() {
    let mut header: Value = serde_json::from_str(&snatch_header()).unwrap();
    header["time_controls"] = json!([
        {"kind": "clock", "bank_ms": 2000, "increment_ms": 100},
        {"kind": "per-move", "move_ms": 500},
    ]);
    header["time_margin_ms"] = json!(50);
    let clocked = |seat: u8, mv: u32, think_us: u64, bank_us: Option<u64>| {
        let mut line = json!({"type": "move", "seat": seat, "move": mv, "think_us": think_us});
        if let Some(bank_us) = bank_us {
            line["bank_us"] = json!(bank_us);
        }
        line.to_string()
    };
    let story = tell(&transcript(&[
        header.to_string(),
        clocked(1, 2, 250_000, Some(1_850_000)),
        clocked(2, 1, 40_000, None),
        clocked(1, 3, 1_900_000, Some(100_000)),
        result(Some(1), "seat1", "normal", [6, 0]),
    ]))
    .unwrap();
    assert_eq!(
        story[2],
        "Time: Player 1 clock 2s + 100ms per move, Player 2 500ms per move (the referee waited 50ms more)"
    );
    // Each turn's lines, from its blank line to the next.
    let turns: Vec<&[String]> = story.split(String::is_empty).skip(2).collect();
    assert!(turns[0].contains(&"Player 1 selects 2.".to_owned()), "{story:#?}");
    assert_eq!(turns[0].last().unwrap(), "Player 1's clock: 1s 850ms left (thought 250ms)");
    assert!(!turns[1].iter().any(|line| line.contains("clock")), "{story:#?}");
    assert_eq!(turns[2].last().unwrap(), "Player 1's clock: 100ms left (thought 1s 900ms)");
}

#[test]
fn forfeits_and_double_forfeits_are_told() {
    let forfeit = json!({"type": "forfeit", "seat": 2, "reason": "illegal_move",
                         "detail": "7 is not one of the legal moves", "line": "{\"move\": 7}"});
    let story = tell(&transcript(&[
        snatch_header(),
        moved(1, json!(2)),
        forfeit.to_string(),
        result(Some(1), "seat1", "illegal_move", [2, 0]),
    ]))
    .unwrap();
    let at = story.iter().position(|line| line.starts_with("Player 2 (bob) forfeits")).unwrap();
    assert_eq!(
        story[at],
        "Player 2 (bob) forfeits: illegal_move — 7 is not one of the legal moves"
    );
    assert_eq!(story[at + 1], r#"Offending line: {"move": 7}"#);
    assert!(
        story.ends_with(&["Winner: Player 1 (ann)".to_owned(), "Reason: illegal_move".to_owned()])
    );

    let timeout = |seat| {
        json!({"type": "forfeit", "seat": seat, "reason": "timeout", "detail": "late"}).to_string()
    };
    let story = tell(&transcript(&[
        header(GameId::NumberWarriors, json!({})),
        timeout(1),
        timeout(2),
        result(None, "both_lost", "double_forfeit", [15, 15]),
    ]))
    .unwrap();
    assert!(story.contains(&"Player 1 (ann) forfeits: timeout — late".to_owned()), "{story:#?}");
    assert!(!story.iter().any(|line| line.starts_with("Offending line")));
    assert!(story.contains(&"Both players lose (double forfeit)".to_owned()));
}

#[test]
fn a_choice_in_a_turn_a_forfeit_stopped_is_listed_not_played() {
    let story = tell(&transcript(&[
        header(GameId::NumberWarriors, json!({})),
        moved(2, json!(7)),
        json!({"type": "forfeit", "seat": 1, "reason": "timeout", "detail": "late"}).to_string(),
        result(Some(2), "seat2", "timeout", [15, 15]),
    ]))
    .unwrap();
    assert!(
        story.contains(&"Player 2 had chosen 7; the turn was not played.".to_owned()),
        "{story:#?}"
    );
}

#[test]
fn bad_lines_are_named_by_number() {
    let not_json = error(&[snatch_header(), String::new(), "{oops".to_owned()]);
    assert!(not_json.starts_with("3: not JSON"), "{not_json}");

    let no_header = error(&[moved(1, json!(2))]);
    assert_eq!(no_header, "1: expected the header, found a `move` line");
    assert_eq!(tell("\n").unwrap_err().to_string(), "1: the transcript is empty: no header");

    let unknown = snatch_header().replace("number-snatch", "chess");
    let unknown = error(&[unknown]);
    assert!(
        unknown.starts_with("1: unknown game `chess`") && unknown.contains("number-duel"),
        "{unknown}"
    );

    let bad_move = error(&[snatch_header(), moved(1, json!("L"))]);
    assert!(bad_move.starts_with("2: not a valid number-snatch move"), "{bad_move}");
}

#[test]
fn moves_the_rules_refuse_are_named_by_line() {
    let taken = error(&[snatch_header(), moved(1, json!(2)), moved(2, json!(2))]);
    assert_eq!(taken, "3: Player 2's move 2 is not a legal move at this point");

    let after_the_end = error(&[
        snatch_header(),
        moved(1, json!(1)),
        moved(2, json!(2)),
        moved(1, json!(3)),
        moved(2, json!(3)),
    ]);
    assert_eq!(after_the_end, "5: Player 2's move 3 comes after the end of the game");

    let warriors = header(GameId::NumberWarriors, json!({}));
    let twice = error(&[warriors.clone(), moved(1, json!(5)), moved(1, json!(6))]);
    assert_eq!(twice, "3: Player 1's move 6 is out of turn", "seat 2 is due");
    let swapped = error(&[warriors, moved(2, json!(5)), moved(1, json!(6))]);
    assert_eq!(swapped, "2: Player 2's move 5 is out of turn");
}

#[test]
fn a_transcript_of_other_rules_or_an_inconsistent_one_is_refused() {
    let other_rules = snatch_header().replace(r#""numbers":[1,2,3]"#, r#""numbers":[1,2,4]"#);
    let mismatch = error(&[other_rules]);
    assert!(mismatch.starts_with("1: the initial state does not match"), "{mismatch}");

    let bad_params = error(&[snatch_header().replace(r#""max":3"#, r#""max":2"#)]);
    assert!(bad_params.starts_with("1: parameters:") && bad_params.contains("max"), "{bad_params}");

    let no_result = error(&[snatch_header(), moved(1, json!(2))]);
    assert_eq!(no_result, "2: the transcript ends without a result");

    let wrong_scores = error(&[snatch_header(), result(Some(1), "seat1", "normal", [9, 9])]);
    assert!(wrong_scores.starts_with("2: the result's scores [9, 9]"), "{wrong_scores}");
}
