use super::*;

fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
    (actual - expected).abs() <= tolerance
}

/// fastchess printed, for Ptnml(0-2) [0, 0, 2, 0, 37] under SPRT
/// [0.00, 20.00] with α = β = 0.05 (its README's sample output):
/// "Elo: 631.91 +/- nan, nElo: 1056.68 +/- 77.10", "LOS: 100.00 %",
/// "LLR: 2.96 (100.6%) (-2.94, 2.94)".
#[test]
fn agrees_with_a_published_fastchess_result() {
    let settings = SprtSettings { elo0: 0.0, elo1: 20.0, ..SprtSettings::default() };
    let pairs = Pentanomial { counts: [0, 0, 2, 0, 37] };
    let (lower, upper) = settings.bounds();
    assert!(close(lower, -2.94, 0.005) && close(upper, 2.94, 0.005), "{lower} {upper}");
    let llr = settings.llr(&pairs);
    assert!(close(llr, 2.96, 0.005), "{llr}");
    assert_eq!(settings.verdict(llr), Verdict::AcceptH1);
    let estimate = EloEstimate::from_pairs(&pairs).unwrap();
    assert!(close(estimate.elo, 631.91, 0.005), "{estimate:?}");
    assert!(close(estimate.normalized_elo, 1056.68, 0.005), "{estimate:?}");
    assert!(close(estimate.normalized_elo_error, 77.10, 0.005), "{estimate:?}");
    assert!(estimate.los > 0.99995, "{estimate:?}");
    assert_eq!(estimate.elo_interval.1, f64::INFINITY);
}

/// Values from an independent implementation of the same test,
/// tests/sprt_reference.py (`python3 tests/sprt_reference.py 0 10 30 120
/// 300 140 40` prints the first), for mixed results.
#[test]
fn agrees_with_an_independent_calculation() {
    let settings = SprtSettings { elo0: 0.0, elo1: 10.0, ..SprtSettings::default() };
    for (counts, expected) in [
        ([30, 120, 300, 140, 40], 1.237_707),
        ([40, 120, 300, 120, 30], -1.387_268),
        ([5, 60, 500, 80, 10], 1.674_988),
        ([0, 3, 10, 2, 0], -0.082_788),
    ] {
        let llr = settings.llr(&Pentanomial { counts });
        assert!(close(llr, expected, 1e-4), "{counts:?}: {llr} against {expected}");
    }
}

#[test]
fn equal_bots_drift_to_h0_and_a_stronger_one_to_h1() {
    let settings = SprtSettings::default();
    let even = Pentanomial { counts: [300, 1200, 3000, 1200, 300] };
    assert_eq!(settings.verdict(settings.llr(&even)), Verdict::AcceptH0);
    let stronger = Pentanomial { counts: [50, 300, 1000, 500, 150] };
    assert_eq!(settings.verdict(settings.llr(&stronger)), Verdict::AcceptH1);
    assert_eq!(settings.llr(&Pentanomial::default()), 0.0);
}

#[test]
fn pairs_are_counted_by_their_half_points() {
    let mut pairs = Pentanomial::default();
    pairs.add_pair(1.0, 0.0);
    pairs.add_pair(0.5, 0.5);
    pairs.add_pair(1.0, 0.5);
    pairs.add_pair(0.0, 0.0);
    assert_eq!(pairs.counts, [1, 0, 2, 1, 0]);
    assert_eq!(pairs.score(), Some(0.4375));
    assert_eq!(pairs.to_string(), "[1, 0, 2, 1, 0]");
}

/// A game of round `round` between `new` and `old`, `new` in seat
/// `new_seat`, with `new` scoring `points`.
fn game(round: u64, new_seat: u8, points: f64) -> GameRow {
    let (seat1, seat2) = if new_seat == 1 { ("new", "old") } else { ("old", "new") };
    let new_won = if points > 0.5 {
        "win"
    } else if points < 0.5 {
        "loss"
    } else {
        "draw"
    };
    let outcome = match (new_won, new_seat) {
        ("draw", _) => "draw",
        ("win", 1) | ("loss", 2) => "seat1",
        _ => "seat2",
    };
    let mut row = crate::standings::tests::row(seat1, seat2, outcome);
    row.round = round;
    row
}

#[test]
fn a_test_counts_complete_pairs_in_setup_order() {
    let test = SprtTest::new(SprtSettings::default(), None, "new", "old").unwrap();
    // Round 2 completes before round 1: nothing is counted until it does.
    assert!(!test.count(&game(2, 1, 1.0)));
    assert!(!test.count(&game(2, 2, 0.5)));
    assert!(!test.count(&game(1, 2, 0.0)));
    assert_eq!(test.status().pairs.pairs(), 0);
    // Finished, and told as not counted while they wait.
    assert_eq!(test.status().not_counted, 3);
    // Games of other bots count for nothing.
    assert!(!test.count(&crate::standings::tests::row("x", "old", "seat1")));
    assert!(!test.count(&game(1, 1, 1.0)));
    let status = test.status();
    assert_eq!(status.pairs.counts, [0, 0, 1, 1, 0]);
    assert_eq!((status.wins, status.draws, status.losses), (2, 1, 1));
    assert_eq!(status.not_counted, 0);
    assert_eq!(status.llr, SprtSettings::default().llr(&status.pairs));
}

#[test]
fn a_verdict_stands_once_reached_and_does_not_depend_on_the_order_of_games() {
    let settings = SprtSettings { elo0: 0.0, elo1: 20.0, ..SprtSettings::default() };
    // Won pairs until the test accepts H1, then lost ones.
    let games: Vec<GameRow> = (1..=200)
        .flat_map(|round| {
            let points = if round <= 60 { 1.0 } else { 0.0 };
            [game(round, 1, points), game(round, 2, points)]
        })
        .collect();
    let in_order = SprtTest::new(settings, None, "new", "old").unwrap();
    let stopped_at = games.iter().position(|game| in_order.count(game)).expect("a verdict");
    let decided = in_order.status();
    assert_eq!(decided.verdict, Verdict::AcceptH1);
    assert!(stopped_at < 120, "decided after {stopped_at} games");
    assert_eq!(decided.not_counted, 0);
    for game in &games[stopped_at + 1..] {
        assert!(in_order.count(game));
    }
    let after = in_order.status();
    assert_eq!(
        SprtStatus { not_counted: 0, ..after },
        decided,
        "games after the verdict change nothing"
    );
    // Games past the deciding pair are neither counted nor waiting:
    // they are the rule's to set aside, from the round after it.
    assert_eq!(after.not_counted, 0);
    assert_eq!(in_order.last_counted_round(), Some(decided.pairs.pairs()));
    assert_eq!(in_order.lock().beyond, games.len() as u64 - 2 * decided.pairs.pairs());
    // The same games in another order: the same verdict at the same
    // pair, the games of later pairs waiting for it not counted.
    let shuffled = SprtTest::new(settings, None, "new", "old").unwrap();
    for game in games.iter().rev() {
        shuffled.count(game);
    }
    assert_eq!(shuffled.status(), after);
}

#[test]
fn settings_that_make_no_test_are_refused() {
    let bad = |elo0, elo1, alpha, beta| {
        SprtSettings { elo0, elo1, alpha, beta, ..SprtSettings::default() }.validate()
    };
    assert!(matches!(
        bad(5.0, 5.0, 0.05, 0.05),
        Err(SprtSettingsError::HypothesesOutOfOrder { .. })
    ));
    assert!(matches!(bad(0.0, 5.0, 0.0, 0.05), Err(SprtSettingsError::ErrorRateOutOfRange { .. })));
    assert!(matches!(bad(0.0, 5.0, 0.6, 0.5), Err(SprtSettingsError::ErrorRatesTooLarge(_))));
    assert!(matches!(bad(f64::NAN, 5.0, 0.05, 0.05), Err(SprtSettingsError::NotFinite { .. })));
    assert!(SprtSettings::default().validate().is_ok());
}

/// A test on payoffs does not use, and so does not check, the Elo
/// hypotheses; its own are checked.
#[test]
fn payoff_hypotheses_are_checked_and_elo_ones_left_alone() {
    let payoffs = |payoff0, payoff1| SprtSettings {
        elo0: 0.0,
        elo1: 0.0,
        payoff0,
        payoff1,
        ..SprtSettings::default()
    };
    assert_eq!(payoffs(Some(0.0), Some(0.2)).validate(), Ok(()));
    assert_eq!(payoffs(Some(0.1), None).validate(), Err(SprtSettingsError::Payoff0Alone));
    assert!(matches!(
        payoffs(Some(0.3), Some(0.2)).validate(),
        Err(SprtSettingsError::PayoffsOutOfOrder { .. })
    ));
    assert!(payoffs(None, None).validate().is_err(), "a test on Elo checks elo0 < elo1");
}
