use super::*;
use arena_protocol::ForfeitReason;

pub(crate) fn row(seat1: &str, seat2: &str, outcome: &str) -> GameRow {
    let winner = match outcome {
        "seat1" => seat1,
        "seat2" => seat2,
        _ => "",
    };
    GameRow {
        game_index: 0,
        round: 1,
        pairing: String::new(),
        game: "number-snatch".into(),
        seed: 0,
        seat1: seat1.into(),
        seat2: seat2.into(),
        winner: winner.into(),
        outcome: serde_json::from_value(serde_json::json!(outcome)).unwrap(),
        reason: arena_protocol::ResultReason::Normal,
        forfeiter: String::new(),
        forfeit1: None,
        forfeit2: None,
        forfeit_detail: String::new(),
        score1: 0.into(),
        score2: 0.into(),
        plies: 0,
        duration_ms: 0.0,
        slowest1_ms: 0.0,
        slowest2_ms: 0.0,
        transcript: String::new(),
    }
}

fn bots(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

/// By hand: A scores 75 of 100 against B. The Elo gap is
/// 400·log10(0.75/0.25) = 190.85, so ±95.42 around 0. The information is
/// 100·0.75·0.25 = 18.75; with the mean fixed, each rating's variance is
/// 1/(4·18.75) in natural units: se = 0.11547, i.e. 20.06 Elo, ±39.32 at 95%.
#[test]
fn two_bots_match_the_hand_worked_case() {
    let mut rows = Vec::new();
    for game in 0..100 {
        rows.push(row("A", "B", if game < 75 { "seat1" } else { "seat2" }));
    }
    let ratings = fit_ratings(&Results::from_rows(&bots(&["A", "B"]), &rows));
    assert!((ratings[0].0 - 95.42).abs() < 0.01, "{ratings:?}");
    assert!((ratings[1].0 + 95.42).abs() < 0.01, "{ratings:?}");
    assert!((ratings[0].1 - 39.32).abs() < 0.01, "{ratings:?}");
}

/// Draws count half: 50 wins, 50 draws, 0 losses of 100 is a 75% score,
/// the same rating as above.
#[test]
fn draws_count_as_half_a_win() {
    let rows: Vec<_> =
        (0..100).map(|game| row("A", "B", if game % 2 == 0 { "seat1" } else { "draw" })).collect();
    let ratings = fit_ratings(&Results::from_rows(&bots(&["A", "B"]), &rows));
    assert!((ratings[0].0 - 95.42).abs() < 0.01, "{ratings:?}");
}

#[test]
fn the_fit_does_not_depend_on_game_order_and_is_transitive() {
    let mut rows = Vec::new();
    for game in 0..40 {
        rows.push(row("A", "B", if game % 4 == 0 { "seat2" } else { "seat1" }));
        rows.push(row("B", "C", if game % 4 == 0 { "seat2" } else { "seat1" }));
        rows.push(row("A", "C", if game % 5 == 0 { "draw" } else { "seat1" }));
    }
    let names = bots(&["A", "B", "C"]);
    let forward = fit_ratings(&Results::from_rows(&names, &rows));
    rows.reverse();
    let backward = fit_ratings(&Results::from_rows(&names, &rows));
    for (a, b) in forward.iter().zip(&backward) {
        assert!((a.0 - b.0).abs() < 1e-6);
    }
    assert!(forward[0].0 > forward[1].0 && forward[1].0 > forward[2].0);
    assert!(forward.iter().map(|rating| rating.0).sum::<f64>().abs() < 1e-6);
}

#[test]
fn a_perfect_score_still_gets_a_finite_rating() {
    let rows: Vec<_> = (0..10).map(|_| row("A", "B", "seat1")).collect();
    let ratings = fit_ratings(&Results::from_rows(&bots(&["A", "B"]), &rows));
    assert!(ratings[0].0.is_finite() && ratings[0].0 > 100.0, "{ratings:?}");
    assert!(ratings[0].1.is_finite());
}

#[test]
fn an_undefeated_bot_gets_a_sane_interval_and_leaves_the_others_alone() {
    // A beats everyone; B, C and D split their games evenly.
    let mut rows = Vec::new();
    for other in ["B", "C", "D"] {
        for _ in 0..5 {
            rows.push(row("A", other, "seat1"));
            rows.push(row(other, "A", "seat2"));
        }
    }
    for (one, two) in [("B", "C"), ("C", "D"), ("B", "D")] {
        for _ in 0..5 {
            rows.push(row(one, two, "seat1"));
            rows.push(row(one, two, "seat2"));
        }
    }
    let ratings = fit_ratings(&Results::from_rows(&bots(&["A", "B", "C", "D"]), &rows));
    let (elo, margin) = ratings[0];
    assert!(elo.is_finite() && elo > 300.0, "{ratings:?}");
    assert!(margin.is_finite() && margin < elo, "{ratings:?}");
    for &(_, margin) in &ratings[1..] {
        // 30 games at an even score: about ±130 without the prior.
        assert!(margin < 200.0, "{ratings:?}");
    }
}

#[test]
fn exact_ties_share_a_rank() {
    let rows = vec![row("A", "B", "draw"), row("C", "A", "seat2"), row("C", "B", "seat2")];
    let table = standings(&Results::from_rows(&bots(&["A", "B", "C"]), &rows));
    let ranks: Vec<(usize, f64)> =
        table.iter().map(|standing| (standing.rank, standing.tally.points())).collect();
    assert_eq!(ranks, [(1, 1.5), (1, 1.5), (3, 0.0)]);
}

/// A gauntlet: the challenger D scores 40% against each of five bots
/// of the field, who never meet. D's 10 points lead the field's 3 each,
/// but it is the weakest bot: Elo says so.
#[test]
fn a_gauntlet_ranks_by_elo_not_points() {
    let field = ["A", "B", "C", "E", "F"];
    let mut rows = Vec::new();
    for bot in field {
        rows.extend((0..3).map(|_| row(bot, "D", "seat1")));
        rows.extend((0..2).map(|_| row("D", bot, "seat1")));
    }
    let results = Results::from_rows(&bots(&["A", "B", "C", "D", "E", "F"]), &rows);
    assert_eq!(standings(&results)[0].bot, "D", "by points");
    let by_elo = gauntlet_standings(&results);
    assert_eq!(by_elo[5].bot, "D", "{by_elo:?}");
    assert!(by_elo[..5].iter().all(|standing| standing.rank == 1), "{by_elo:?}");
    assert_eq!(by_elo[5].rank, 6);
}

#[test]
fn standings_rank_by_points_and_tables_agree() {
    let rows = vec![row("A", "B", "seat1"), row("B", "A", "draw")];
    let results = Results::from_rows(&bots(&["B", "A"]), &rows);
    let table = standings(&results);
    assert_eq!(table[0].bot, "A");
    assert_eq!(table[0].tally.points(), 1.5);
    let csv = standings_csv(&table);
    assert!(
        csv.starts_with("rank,bot,games,wins,draws,losses,points,score_pct,forfeits_timeout"),
        "{csv}"
    );
    assert!(csv.contains("\n1,A,2,1,1,0,1.5,75.0,0,0,0,0,0,"), "{csv}");
    let crosstable = crosstable_csv(&results, &table);
    assert_eq!(crosstable, "bot,A,B\nA,,1.5\nB,0.5,\n");
}

#[test]
fn ratings_read_signed_whole_and_never_minus_zero() {
    assert_eq!(signed(12.6), "+13");
    assert_eq!(signed(-3.5), "-4");
    assert_eq!(signed(2.5), "+3", "halves away from zero, as on the page");
    assert_eq!(signed(-0.4), "0");
    assert_eq!(signed(0.2), "0");
}

/// A league of four where two bots crash at every start: they lose every
/// game, their games with each other are double forfeits. Every rating
/// and margin is finite and of a size a person can read, and the two that
/// lost everything are shown as bounds.
#[test]
fn bots_that_lost_every_game_get_bounded_ratings() {
    for crashers in [&["C"][..], &["C", "D"][..]] {
        let names = ["A", "B", "C", "D"];
        let mut rows = Vec::new();
        for (i, one) in names.iter().enumerate() {
            for two in &names[i + 1..] {
                for game in 0..20 {
                    let outcome = match (crashers.contains(one), crashers.contains(two)) {
                        (true, true) => "both_lost",
                        (true, false) => "seat2",
                        (false, true) => "seat1",
                        (false, false) => ["seat1", "seat2", "draw"][game % 3],
                    };
                    rows.push(row(one, two, outcome));
                }
            }
        }
        let table = standings(&Results::from_rows(&bots(&names), &rows));
        for standing in &table {
            assert!(
                standing.elo.is_finite() && standing.elo.abs() < 1500.0,
                "{crashers:?}: {standing:?}"
            );
            assert!(
                standing.elo_margin.is_finite() && standing.elo_margin < 1500.0,
                "{crashers:?}: {standing:?}"
            );
            let text = standing.elo_text();
            assert!(
                !text.contains('?') && !text.contains("inf") && !text.contains("NaN"),
                "{text}"
            );
            if crashers.contains(&standing.bot.as_str()) {
                assert!(text.starts_with("< "), "{}: {text}", standing.bot);
            } else {
                assert!(
                    !text.starts_with('<') && !text.starts_with('>'),
                    "{}: {text}",
                    standing.bot
                );
            }
        }
    }
}

/// A row of a payoff game: `payoffs` the two seats' scores.
fn payoff_row(seat1: &str, seat2: &str, payoffs: [f64; 2]) -> GameRow {
    let outcome = match payoffs[0].total_cmp(&payoffs[1]) {
        std::cmp::Ordering::Greater => "seat1",
        std::cmp::Ordering::Less => "seat2",
        std::cmp::Ordering::Equal => "draw",
    };
    let [score1, score2] = payoffs.map(|payoff| arena_base::score::Score::decimal(payoff).unwrap());
    GameRow { score1, score2, ..row(seat1, seat2, outcome) }
}

/// The poker case: A wins three small pots of 1 for every big pot of 5 it
/// loses. By wins A leads (75%); by chips B does, +0.5 a hand. A payoff
/// game ranks by chips, a forfeit charged the least payoff.
#[test]
fn a_payoff_game_ranks_by_mean_payoff_not_by_wins() {
    let payoffs = Payoffs { min: (-5).into(), max: 5.into() };
    let mut rows = Vec::new();
    for hand in 0..40 {
        let won = if hand % 4 == 3 { [-5.0, 5.0] } else { [1.0, -1.0] };
        rows.push(payoff_row("A", "B", won));
    }
    let names = bots(&["A", "B"]);
    let by_wins = standings(&Results::from_rows(&names, &rows));
    assert_eq!(by_wins[0].bot, "A", "without payoffs, by wins");
    assert_eq!(by_wins[0].payoff, None);
    let mut results = Results::new(&names, Some(payoffs));
    rows.iter().for_each(|row| results.add(row));
    let by_payoff = standings(&results);
    assert_eq!(by_payoff[0].bot, "B");
    let b = by_payoff[0].payoff.unwrap();
    assert_eq!(b.games, 40);
    assert!((b.mean - 0.5).abs() < 1e-12, "{b:?}");
    assert!(b.margin > 0.0 && b.margin < 1.5, "{b:?}");
    assert!((by_payoff[1].payoff.unwrap().mean + 0.5).abs() < 1e-12);
    // The gauntlet's order is the payoff's too.
    assert_eq!(gauntlet_standings(&results)[0].bot, "B");
    let csv = standings_csv(&by_payoff);
    assert!(csv.lines().next().unwrap().ends_with(",payoff,payoff_low,payoff_high"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().contains(",0.500000,"), "{csv}");
    let text = standings_text(&by_payoff);
    assert!(text.contains("payoff (95%)") && text.contains("+0.500 ± "), "{text}");

    // A crash while behind is charged the least payoff, not the score it
    // stopped at.
    let mut crashed = payoff_row("A", "B", [0.0, 0.0]);
    crashed.forfeit1 = Some(ForfeitReason::Crash);
    let mut results = Results::new(&names, Some(payoffs));
    results.add(&crashed);
    let table = standings(&results);
    assert_eq!((table[0].bot.as_str(), table[0].payoff.unwrap().mean), ("B", 5.0));
    assert_eq!(table[1].payoff.unwrap().mean, -5.0);
}

/// Equal means share a rank, as equal points do.
#[test]
fn equal_payoffs_share_a_rank() {
    let payoffs = Payoffs { min: (-1).into(), max: 1.into() };
    let mut results = Results::new(&bots(&["A", "B"]), Some(payoffs));
    results.add(&payoff_row("A", "B", [1.0, -1.0]));
    results.add(&payoff_row("B", "A", [1.0, -1.0]));
    let table = standings(&results);
    assert_eq!(table.iter().map(|standing| standing.rank).collect::<Vec<_>>(), [1, 1]);
}

/// A bot without a game has no mean payoff to rank by: it comes last,
/// below bots that lost money.
#[test]
fn a_bot_without_a_game_ranks_last_by_payoff() {
    let payoffs = Payoffs { min: (-2).into(), max: 2.into() };
    let mut results = Results::new(&bots(&["A", "B", "idle"]), Some(payoffs));
    results.add(&payoff_row("A", "B", [-1.0, -2.0]));
    let table = standings(&results);
    let order: Vec<&str> = table.iter().map(|standing| standing.bot.as_str()).collect();
    assert_eq!(order, ["A", "B", "idle"]);
    assert_eq!(table[2].payoff.unwrap().text(), "0.000 ± ?");
}
