//! How much of a suite a machine can decide: per category (and per check dimension),
//! how many checks and critical failures are decided by assertions, need a reader, or
//! both — and how many belong to cases that have no world yet.

use serde_json::{json, Value as Json};

use crate::model::{Case, Suite};

use crate::model::expect::Decided;

/// Counts of one kind of item (checks or critical failures).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub machine: usize,
    pub both: usize,
    pub review: usize,
    /// In a modelled case, decided by nothing (an error `casec check` reports).
    pub unclassified: usize,
    /// In a case without a world.
    pub unmodelled: usize,
}

impl Tally {
    fn add(&mut self, decided: Option<Decided>) {
        match decided {
            Some(Decided::Machine) => self.machine += 1,
            Some(Decided::Both) => self.both += 1,
            Some(Decided::Review) => self.review += 1,
            Some(Decided::Unclassified) => self.unclassified += 1,
            None => self.unmodelled += 1,
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.machine += other.machine;
        self.both += other.both;
        self.review += other.review;
        self.unclassified += other.unclassified;
        self.unmodelled += other.unmodelled;
    }

    pub fn total(&self) -> usize {
        self.machine + self.both + self.review + self.unclassified + self.unmodelled
    }

    /// Items with a machine predicate (alone or beside review).
    pub fn with_predicate(&self) -> usize {
        self.machine + self.both
    }

    pub fn to_json(&self) -> Json {
        json!({
            "machine": self.machine,
            "both": self.both,
            "review": self.review,
            "unclassified": self.unclassified,
            "unmodelled": self.unmodelled,
        })
    }
}

/// One row: a category, a check dimension, or the whole suite.
#[derive(Clone, Debug, Default)]
pub struct Row {
    pub name: String,
    pub cases: usize,
    pub modelled: usize,
    pub checks: Tally,
    pub criticals: Tally,
}

impl Row {
    fn named(name: &str) -> Row {
        Row {
            name: name.to_string(),
            ..Row::default()
        }
    }

    fn merge(&mut self, other: &Row) {
        self.cases += other.cases;
        self.modelled += other.modelled;
        self.checks.merge(&other.checks);
        self.criticals.merge(&other.criticals);
    }

    pub fn to_json(&self) -> Json {
        json!({
            "name": self.name,
            "cases": self.cases,
            "modelled": self.modelled,
            "checks": self.checks.to_json(),
            "critical_failures": self.criticals.to_json(),
        })
    }
}

pub struct Stats {
    /// In the suite's category order.
    pub categories: Vec<Row>,
    /// Checks by dimension (criticals are not per dimension), in order of first use.
    pub dimensions: Vec<Row>,
    pub total: Row,
}

/// The row of cases without a category (in a shape that has none).
const UNCATEGORIZED: &str = "(no category)";

pub fn suite_stats(suite: &Suite) -> Stats {
    let mut categories: Vec<Row> = suite
        .categories
        .iter()
        .map(|c| Row::named(c.name.as_str()))
        .collect();
    let mut dimensions: Vec<Row> = Vec::new();
    for case in &suite.cases {
        let category = case.category.as_ref().map_or(UNCATEGORIZED, |c| c.as_str());
        let index = match categories.iter().position(|r| r.name == category) {
            Some(i) => i,
            None => {
                categories.push(Row::named(category));
                categories.len() - 1
            }
        };
        tally_case(suite, case, &mut categories[index], &mut dimensions);
    }
    let mut total = Row::named("total");
    for row in &categories {
        total.merge(row);
    }
    Stats {
        categories,
        dimensions,
        total,
    }
}

fn tally_case(suite: &Suite, case: &Case, row: &mut Row, dimensions: &mut Vec<Row>) {
    row.cases += 1;
    row.modelled += usize::from(case.sandbox.is_some());
    for check in &case.checks {
        let decided = case
            .sandbox
            .as_ref()
            .map(|s| s.decided(check.id.as_str(), check.inherited));
        row.checks.add(decided);
        let dimension = check.dimension.as_str();
        let index = match dimensions.iter().position(|d| d.name == dimension) {
            Some(i) => i,
            None => {
                dimensions.push(Row::named(dimension));
                dimensions.len() - 1
            }
        };
        dimensions[index].checks.add(decided);
    }
    for critical in suite.criticals(case) {
        let decided = case
            .sandbox
            .as_ref()
            .map(|s| s.decided(&critical.id, critical.global));
        row.criticals.add(decided);
    }
}

impl Stats {
    pub fn to_json(&self) -> Json {
        json!({
            "categories": self.categories.iter().map(Row::to_json).collect::<Vec<_>>(),
            "dimensions": self.dimensions.iter().map(|d| json!({ "name": d.name, "checks": d.checks.to_json() })).collect::<Vec<_>>(),
            "total": self.total.to_json(),
        })
    }
}
