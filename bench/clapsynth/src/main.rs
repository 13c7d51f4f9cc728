// clapsynth: a clap 4 program of N leaf commands (CLAPSYNTH_COMMANDS,
// default 200) in groups of 50, each with the same options, for the
// clap reader's start figure.
use clap::{Arg, ArgAction, Command};

fn s(v: String) -> &'static str {
    Box::leak(v.into_boxed_str())
}

fn leaf(i: usize) -> Command {
    Command::new(s(format!("c{i}")))
        .about(s(format!("synthetic command number {i}, one of many alike")))
        .arg(Arg::new("name").long("name").required(true).help("the thing's name"))
        .arg(Arg::new("count").long("count").default_value("1").help("how many times"))
        .arg(Arg::new("verbose").long("verbose").action(ArgAction::SetTrue).help("say more"))
        .arg(Arg::new("mode").long("mode").value_parser(["fast", "slow"]).help("how"))
        .arg(Arg::new("note").long("note").help("free text"))
        .arg(Arg::new("target").help("what to act on"))
}

fn main() {
    let n: usize = std::env::var("CLAPSYNTH_COMMANDS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
    let mut root = Command::new("clapsynth").about("synthetic clap commands").subcommand_required(true);
    let mut g = 0;
    while g * 50 < n {
        let mut group = Command::new(s(format!("g{g}"))).about(s(format!("group {g} of the synthetic commands"))).subcommand_required(true);
        for i in g * 50..((g + 1) * 50).min(n) {
            group = group.subcommand(leaf(i));
        }
        root = root.subcommand(group);
        g += 1;
    }
    let m = root.get_matches();
    if let Some((g, gm)) = m.subcommand() {
        if let Some((c, cm)) = gm.subcommand() {
            println!("{g} {c} {}", cm.get_one::<String>("name").unwrap());
        }
    }
}
