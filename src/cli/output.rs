//! What the commands print: one line per game and summaries.

use arena_base::score::Score;
use arena_protocol::{ForfeitReason, ResultReason};
use arena_referee::GameOutcome;
use arena_tournament::rows::{GameRow, Tallies};
/// "game 3/10  seed 42  alpha (1) vs beta (2): beta wins 45-74"; a game
/// ended by a forfeit says so before the score it stopped at: "beta wins
/// by forfeit at 0-0  [timeout: ...]".
pub fn game_line(row: &GameRow, total: u64) -> String {
    let head = format!(
        "game {}/{}  seed {}  {} (1) vs {} (2)",
        row.game_index, total, row.seed, row.seat1, row.seat2
    );
    if [row.forfeit1, row.forfeit2].contains(&Some(ForfeitReason::Withdrawn)) {
        return format!("{head}: not played, {} withdrawn", row.forfeiter);
    }
    let by_forfeit = match row.reason {
        ResultReason::Normal => "",
        _ => " by forfeit at",
    };
    let verdict = match row.outcome {
        GameOutcome::Draw => "draw".to_owned(),
        GameOutcome::BothLost => "both lose".to_owned(),
        GameOutcome::Seat1 | GameOutcome::Seat2 => format!("{} wins", row.winner),
    };
    let mut line = format!("{head}: {verdict}{by_forfeit} {}", scores(row.score1, row.score2));
    if row.reason != ResultReason::Normal {
        line.push_str(&format!("  [{}: {}]", row.reason, row.forfeit_detail));
    }
    line
}

/// "45-74"; "2 to -2" when a score is negative (a game program's may be),
/// where a dash would read as a minus.
fn scores(seat1: Score, seat2: Score) -> String {
    match seat1 < Score::ZERO || seat2 < Score::ZERO {
        true => format!("{seat1} to {seat2}"),
        false => format!("{seat1}-{seat2}"),
    }
}

/// Wins, draws, losses and forfeits per bot.
pub fn summary(tallies: &Tallies) -> String {
    let width = tallies.by_bot.keys().map(|name| name.chars().count()).max().unwrap_or(0);
    let games = tallies.games;
    let mut text = format!("Summary of {games} game{}:\n", if games == 1 { "" } else { "s" });
    for (name, tally) in &tallies.by_bot {
        text.push_str(&format!(
            "  {name:<width$}  {} won, {} drawn, {} lost; forfeits: {}\n",
            tally.wins,
            tally.draws,
            tally.losses,
            tally.forfeits_in_words()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::scores;
    use arena_base::score::Score;

    #[test]
    fn negative_scores_are_not_read_as_dashes() {
        assert_eq!(scores(Score::from(45), Score::from(74)), "45-74");
        assert_eq!(scores(Score::from(2), Score::from(-2)), "2 to -2");
        assert_eq!(scores(Score::from(-3), Score::from(3)), "-3 to 3");
        assert_eq!(
            scores(Score::decimal(0.5).unwrap(), Score::decimal(-0.5).unwrap()),
            "0.5 to -0.5"
        );
    }
}
