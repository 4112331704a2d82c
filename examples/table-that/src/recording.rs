//! The recorded conversation: eight turns of table.that, each with the page it was
//! given on, as a replay model plays them (and as the tests parse them).

/// One recorded turn: the model's whole answer on a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordedTurn {
    /// The page the answer was given on.
    pub page: &'static str,
    /// The answer, as the model wrote it.
    pub text: &'static str,
    /// Whether the answer stops where a token limit cut it: turn 7 ends inside its
    /// proposal, so a replay reports it as cut (`length`), the way a provider would.
    pub cut: bool,
}

/// The turns in the order they were given.
pub const CONVERSATION: [RecordedTurn; 8] = [
    turn(
        "tables_list",
        include_str!("../conversation/01-tables_list.md"),
    ),
    turn(
        "tables_list",
        include_str!("../conversation/02-tables_list.md"),
    ),
    turn(
        "table_view",
        include_str!("../conversation/03-table_view.md"),
    ),
    turn(
        "table_view",
        include_str!("../conversation/04-table_view.md"),
    ),
    turn(
        "table_view",
        include_str!("../conversation/05-table_view.md"),
    ),
    turn(
        "table_edit",
        include_str!("../conversation/06-table_edit.md"),
    ),
    RecordedTurn {
        cut: true,
        ..turn(
            "tables_list",
            include_str!("../conversation/07-tables_list.md"),
        )
    },
    turn(
        "table_view",
        include_str!("../conversation/08-table_view.md"),
    ),
];

const fn turn(page: &'static str, text: &'static str) -> RecordedTurn {
    RecordedTurn {
        page,
        text,
        cut: false,
    }
}
