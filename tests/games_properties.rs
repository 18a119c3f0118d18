//! Random legal play of every game from random seeds and parameters: each
//! game ends with an outcome within its bound on moves, and its final scores
//! and outcome agree with a small, independent re-scoring of the moves.

use std::collections::VecDeque;

use arena::games::claim::{ClaimParams, NumberClaim};
use arena::games::duel::{DuelMove, DuelParams, NumberDuel, Op};
use arena::games::numbers_war::{NumbersWar, NumbersWarParams, Side};
use arena::games::snatch::{NumberSnatch, SnatchParams};
use arena::games::warriors::{NumberWarriors, WarriorsParams};
use arena::games::{Game, GameParams, Outcome, Seat};
use proptest::prelude::*;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde_json::Value;

/// A finished random game: its end state, first view and every move played.
struct Played<G: Game> {
    game: G,
    first_view: Value,
    moves: Vec<(Seat, G::Move)>,
}

/// Sets up `G` and plays uniformly random legal moves until it ends, checking
/// the move interface on the way. In a simultaneous turn every awaited seat
/// chooses before any choice is applied, as the referee does.
fn play<G: Game>(params: &G::Params, seed: u64, choices: u64, bound: usize) -> Played<G> {
    params.validate().expect("generated parameters are valid");
    let mut game = G::new(params, seed);
    let setup = serde_json::to_value(&game).unwrap();
    assert_eq!(setup, serde_json::to_value(G::new(params, seed)).unwrap(), "setup is seeded");
    let first_view = serde_json::to_value(game.view(Seat::One)).unwrap();

    let mut rng = ChaCha8Rng::seed_from_u64(choices);
    let mut moves = Vec::new();
    while game.outcome().is_none() {
        assert!(moves.len() < bound, "no outcome after {bound} moves");
        let awaited = game.to_move();
        assert!(!awaited.is_empty(), "a game in progress awaits a move");
        let mut turn = Vec::new();
        for seat in Seat::BOTH {
            let legal = game.legal_moves(seat);
            assert_eq!(awaited.contains(&seat), !legal.is_empty(), "seat {seat}");
            assert!(legal.iter().all(|mv| game.is_legal(seat, mv)));
            if !legal.is_empty() {
                turn.push((seat, legal[rng.random_range(..legal.len())].clone()));
            }
        }
        for (seat, mv) in turn {
            game.apply(seat, &mv);
            moves.push((seat, mv));
        }
    }
    assert!(game.to_move().is_empty());
    assert!(Seat::BOTH.iter().all(|&seat| game.legal_moves(seat).is_empty()));
    Played { game, first_view, moves }
}

fn numbers(value: &Value) -> Vec<u32> {
    serde_json::from_value(value.clone()).unwrap()
}

/// Higher score wins; `tie` settles equal scores.
fn by_score(scores: [i64; 2], tie: Outcome) -> Outcome {
    match scores[0].cmp(&scores[1]) {
        std::cmp::Ordering::Greater => Outcome::win(Seat::One),
        std::cmp::Ordering::Less => Outcome::win(Seat::Two),
        std::cmp::Ordering::Equal => tie,
    }
}

/// Turn-based games: seat 1 first, then strictly alternating.
fn assert_alternating<M>(moves: &[(Seat, M)]) {
    for (i, (seat, _)) in moves.iter().enumerate() {
        assert_eq!(*seat, if i % 2 == 0 { Seat::One } else { Seat::Two }, "move {i}");
    }
}

fn snatch_reference(list: &[u32], moves: &[(Seat, u32)]) -> ([i64; 2], Outcome) {
    assert_alternating(moves);
    let mut picked: Vec<u32> = moves.iter().map(|&(_, n)| n).collect();
    picked.sort_unstable();
    let mut all = list.to_vec();
    all.sort_unstable();
    assert_eq!(picked, all, "every number is picked once");

    let mut scores = [0i64; 2];
    let mut last = [0u32; 2];
    for &(seat, n) in moves {
        let (me, them) = (seat.index(), 1 - seat.index());
        scores[me] += n as i64;
        if last[them] != 0 && n % last[them] == 0 {
            let d = (last[them] as i64).min(scores[them]);
            scores[them] -= d;
            scores[me] += d;
        }
        last[me] = n;
    }
    (scores, by_score(scores, Outcome::draw()))
}

fn war_reference(list: &[u32], moves: &[(Seat, Side)]) -> ([i64; 2], Outcome) {
    assert_alternating(moves);
    assert_eq!(moves.len(), list.len());
    let mut list: VecDeque<u32> = list.iter().copied().collect();
    let mut sums = [0i64; 2];
    for (seat, side) in moves {
        let n = if *side == Side::L { list.pop_front() } else { list.pop_back() };
        sums[seat.index()] += n.unwrap() as i64;
    }
    let last_taker = moves.last().unwrap().0;
    (sums, by_score(sums, Outcome::win(last_taker)))
}

fn warriors_reference(params: &WarriorsParams, moves: &[(Seat, u32)]) -> ([i64; 2], Outcome) {
    let mut life = [params.life as i64; 2];
    let mut used = Vec::new();
    let turns: Vec<_> = moves.chunks(2).collect();
    for (i, turn) in turns.iter().enumerate() {
        let [(Seat::One, a), (Seat::Two, b)] = turn else { panic!("turn {i}: {turn:?}") };
        assert!(!used.contains(a) && !used.contains(b), "turn {i}: a spent number");
        if a > b {
            life[1] = (life[1] - (a - b) as i64).max(0);
        } else {
            life[0] = (life[0] - (b - a) as i64).max(0);
        }
        used.push(*a);
        if a != b {
            used.push(*b);
        }
        let ended = life.contains(&0) || used.len() == params.max as usize;
        assert_eq!(ended, i + 1 == turns.len(), "turn {i}: the game ends exactly when it must");
    }
    (life, by_score(life, Outcome::draw()))
}

fn claim_reference(n: u32, moves: &[(Seat, u32)]) -> ([i64; 2], Outcome) {
    assert_alternating(moves);
    let mut claimed: Vec<u32> = moves.iter().map(|&(_, v)| v).collect();
    claimed.sort_unstable();
    assert!(claimed.into_iter().eq(1..=n * n), "every number is claimed once");
    let mut sums = [0i64; 2];
    for &(seat, v) in moves {
        sums[seat.index()] += v as i64;
    }
    (sums, by_score(sums, Outcome::draw()))
}

fn duel_reference(params: &DuelParams, moves: &[(Seat, DuelMove)]) -> ([i64; 2], Outcome) {
    assert_alternating(moves);
    let target = params.target as i64;
    let mut scores = [0i64; 2];
    let mut used = vec![0u32; params.max as usize + 1];
    for (i, (seat, mv)) in moves.iter().enumerate() {
        used[mv.number as usize] += 1;
        assert!(used[mv.number as usize] <= params.copies, "move {i}: no copy left");
        let s = &mut scores[seat.index()];
        *s = if mv.op == Op::Add { *s + mv.number as i64 } else { *s * mv.number as i64 };
        if *s == target {
            assert_eq!(i + 1, moves.len(), "the target ends the game");
            return (scores, Outcome::win(*seat));
        }
        if *s > target {
            *s = 0;
        }
    }
    assert_eq!(moves.len() as u32, params.max * params.copies, "the pool is exhausted");
    let last_mover = moves.last().unwrap().0;
    (scores, by_score(scores, Outcome::win(last_mover.other())))
}

fn assert_matches<G: Game>(played: &Played<G>, (scores, outcome): ([i64; 2], Outcome)) {
    assert_eq!(played.game.scores(), scores, "moves: {:?}", played.moves);
    assert_eq!(played.game.outcome(), Some(outcome), "moves: {:?}", played.moves);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn snatch_random_play(
        (count, max) in (1..=30u32).prop_flat_map(|count| (Just(count), count..=60)),
        seed: u64,
        choices: u64,
    ) {
        let params = SnatchParams { count, max };
        let played = play::<NumberSnatch>(&params, seed, choices, count as usize);
        let list = numbers(&played.first_view["numbers"]);
        prop_assert_eq!(list.len(), count as usize);
        prop_assert!(list.iter().all(|n| (1..=max).contains(n)));
        assert_matches(&played, snatch_reference(&list, &played.moves));
    }

    #[test]
    fn numbers_war_random_play(
        (count, max) in (1..=15u32).prop_flat_map(|half| (Just(2 * half), 2 * half..=40)),
        seed: u64,
        choices: u64,
    ) {
        let params = NumbersWarParams { count, max };
        let played = play::<NumbersWar>(&params, seed, choices, count as usize);
        let mut list = numbers(&played.first_view["numbers"]);
        assert_matches(&played, war_reference(&list, &played.moves));
        list.sort_unstable();
        list.dedup();
        prop_assert_eq!(list.len(), count as usize);
        prop_assert!(list.iter().all(|n| (1..=max).contains(n)));
    }

    #[test]
    fn warriors_random_play(life in 1..=40u32, max in 1..=15u32, seed: u64, choices: u64) {
        let params = WarriorsParams { life, max };
        let played = play::<NumberWarriors>(&params, seed, choices, 2 * max as usize);
        prop_assert_eq!(numbers(&played.first_view["pool"]), (1..=max).collect::<Vec<_>>());
        assert_matches(&played, warriors_reference(&params, &played.moves));
    }

    #[test]
    fn claim_random_play(n in 1..=6u32, seed: u64, choices: u64) {
        let played = play::<NumberClaim>(&ClaimParams { n }, seed, choices, (n * n) as usize);
        let grid: Vec<Vec<u32>> = serde_json::from_value(played.first_view["grid"].clone()).unwrap();
        let mut values = grid.concat();
        values.sort_unstable();
        prop_assert!(values.into_iter().eq(1..=n * n));
        assert_matches(&played, claim_reference(n, &played.moves));
    }

    #[test]
    fn duel_random_play(
        max in 1..=12u32,
        copies in 1..=3u32,
        target in 1..=120u32,
        seed: u64,
        choices: u64,
    ) {
        let params = DuelParams { max, copies, target };
        let played = play::<NumberDuel>(&params, seed, choices, (max * copies) as usize);
        assert_matches(&played, duel_reference(&params, &played.moves));
    }
}
