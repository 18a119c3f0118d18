//! The leaderboard as one self-contained web page.
//!
//! The page is a fixed template (`page.html`: markup, style and script, no
//! network access, and a content security policy that forbids any) with
//! the report's data embedded as JSON; its script draws the standings, the
//! crosstable as a heat map, each bot's record, the rating history (a
//! chart with axes) and the list of games (winners, a filter by bot, newest
//! first), and replays a game turn by turn in the page. A game's link is
//! its seats and round (`#seat1=A&seat2=B&round=3&step=2`), which stay its
//! own as the league grows; the address follows the replay. Wide tables
//! scroll inside themselves, so the page fits a phone. The data model below
//! is the whole interface: whoever fills it decides what the page shows.

use serde::Serialize;

const TEMPLATE: &str = include_str!("page.html");
const DATA_MARK: &str = "/*REPORT_DATA*/";
/// Where the title goes as text (the tab's title and the heading): what a
/// bookmark, a link's preview or a page read without its script shows.
const TITLE_MARK: &str = "/*PAGE_TITLE*/";

/// Everything the page shows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageData {
    /// The page's heading (the tournament's name).
    pub title: String,
    /// The game's id.
    pub game: String,
    /// Games counted in the standings.
    pub games_played: u64,
    /// Bots in standings order.
    pub bots: Vec<PageBot>,
    /// Head-to-head results, indexed like `bots`.
    pub crosstable: Crosstable,
    /// One entry per run, oldest first.
    pub history: Vec<HistoryPoint>,
    /// The games, in schedule order.
    pub games: Vec<PageGame>,
    /// The settings the games were played under, as (name, value).
    pub settings: Vec<(String, String)>,
    /// When the standings were last updated: the latest recorded run, in
    /// seconds since 1970 (UTC).
    pub updated: u64,
    /// Whether the replays quote what crashed bots wrote to stderr (the
    /// maintainer's choice: `arena report --show-stderr`).
    pub shows_stderr: bool,
}

/// One bot's line of the standings and its record.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageBot {
    /// 1 for the best; equal results share a rank.
    pub rank: usize,
    /// The bot's name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses, forfeits included.
    pub losses: u64,
    /// A win 1, a draw ½.
    pub points: f64,
    /// Points per game, in percent.
    pub score_percent: f64,
    /// Elo, mean 0 over the bots.
    #[serde(serialize_with = "finite_or_string")]
    pub elo: f64,
    /// The lower end of its 95% interval.
    #[serde(serialize_with = "finite_or_string")]
    pub elo_low: f64,
    /// The upper end of its 95% interval.
    #[serde(serialize_with = "finite_or_string")]
    pub elo_high: f64,
    /// Its mean payoff per game, in a game whose scores are payoffs (the
    /// standings are ranked by it then).
    pub payoff: Option<f64>,
    /// The ends of the mean payoff's 95% interval (`null` before two games).
    pub payoff_low: Option<f64>,
    /// See `payoff_low`.
    pub payoff_high: Option<f64>,
    /// Forfeits by reason.
    pub forfeits: std::collections::BTreeMap<String, u64>,
    /// The mean time it took per accepted move, if it made any.
    pub mean_think_ms: Option<f64>,
    /// Its slowest accepted reply, if any.
    pub slowest_think_ms: Option<f64>,
}

/// Points and games of each bot (row) against each other (column).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Crosstable {
    /// `points[row][column]`.
    pub points: Vec<Vec<f64>>,
    /// `games[row][column]`.
    pub games: Vec<Vec<u64>>,
}

/// The ratings after one run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct HistoryPoint {
    /// When the run completed, in seconds since 1970 (UTC).
    pub time: u64,
    /// Elo by bot name, for the bots rated then.
    pub elo: std::collections::BTreeMap<String, f64>,
}

/// One game of the list, with its replay if it has one. A game is found
/// again by its seats and round, which stay its own as the league grows
/// (its number changes when bots or games are added).
#[derive(Clone, Debug, Default, Serialize)]
pub struct PageGame {
    /// Its number in the schedule (games.csv's `game_index`).
    pub number: u64,
    /// Its setup's number within its pairing (games.csv's `round`).
    pub round: u64,
    /// The bots in seat 1 and seat 2.
    pub seats: [String; 2],
    /// The winner's name; empty for a draw or when both lost.
    pub winner: String,
    /// `seat1`, `seat2`, `draw` or `both_lost`.
    pub outcome: String,
    /// `normal`, a forfeit reason or `double_forfeit`.
    pub reason: String,
    /// Moves applied.
    pub plies: u32,
    /// The game told turn by turn, one step per entry (empty: no replay).
    pub turns: Vec<String>,
}

/// The page for `data`, ready to write to a file.
pub fn render(data: &PageData) -> String {
    let json = serde_json::to_string(data).expect("page data serializes");
    // `<` only occurs inside JSON strings, where `\u003c` means the same:
    // no bot name can close the script element early.
    let json = json.replace('<', "\\u003c");
    let title = html_text(&data.title);
    TEMPLATE.replace(TITLE_MARK, &title).replacen(DATA_MARK, &json, 1)
}

/// `text` as HTML text: no tournament name can open an element, nor hold
/// a mark of the template (each begins with `/`).
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('/', "&#47;")
}

/// JSON has no infinity: an unbounded interval end is written as a string
/// the page's script turns back into one.
fn finite_or_string<S: serde::Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() {
        serializer.serialize_f64(*value)
    } else if *value > 0.0 {
        serializer.serialize_str("Infinity")
    } else {
        serializer.serialize_str("-Infinity")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PageData {
        PageData {
            title: "demo".into(),
            game: "number-snatch".into(),
            games_played: 2,
            bots: vec![
                PageBot {
                    rank: 1,
                    name: "a</script><b>".into(),
                    elo_high: f64::INFINITY,
                    ..Default::default()
                },
                PageBot { rank: 2, name: "b".into(), ..Default::default() },
            ],
            ..Default::default()
        }
    }

    #[test]
    fn the_data_is_embedded_once_and_cannot_close_its_script() {
        let page = render(&sample());
        assert!(!page.contains(DATA_MARK));
        assert_eq!(page.matches("</script>").count(), 2, "only the page's own two scripts close");
        let start = page.find(r#"id="report-data">"#).unwrap() + r#"id="report-data">"#.len();
        let end = start + page[start..].find("</script>").unwrap();
        let data: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
        assert_eq!(data["bots"][0]["name"], "a</script><b>");
        assert_eq!(data["bots"][0]["elo_high"], "Infinity");
    }

    #[test]
    fn the_title_is_in_the_page_as_text() {
        let page =
            render(&PageData { title: "R&D <b>league</b> /*REPORT_DATA*/".into(), ..sample() });
        assert!(!page.contains(TITLE_MARK));
        let title = "R&amp;D &lt;b&gt;league&lt;&#47;b&gt; &#47;*REPORT_DATA*&#47;";
        assert!(page.contains(&format!("<title>{title}</title>")), "{page}");
        assert!(page.contains(&format!(r#"<h1 id="title">{title}</h1>"#)));
        // The data went where it belongs, not into the title.
        assert!(page.contains(r#"id="report-data">{"#));
    }

    #[test]
    fn the_page_asks_for_nothing_from_the_network() {
        let page = render(&sample());
        for needle in ["http://", "https://", "src=", "href=", "@import", "url("] {
            let allowed = needle == "http://"
                && page.matches(needle).count() == 1
                && page.contains("http://www.w3.org/2000/svg");
            assert!(!page.contains(needle) || allowed, "the page mentions {needle}");
        }
    }
}
