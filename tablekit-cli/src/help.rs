//! The examples each command's help ends with, and what the top-level help says of resuming.
//! Kept apart from the options (`cli.rs`) so the examples read as a page of their own.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::exit::EXIT_CODES_HELP;

/// What the top-level help says of the long commands.
const RESUMING: &str = "\
Resuming: `copy`, `restore` and `import` (of a file) save a checkpoint as they go; after
Ctrl-C or a failure, running the same command again goes on where it stopped. `migrate`
finishes a table left half done when run again. `export` and `backup` start over.";

/// Examples, by command path.
const EXAMPLES: &[(&[&str], &str)] = &[
    (&["tables"], "  tablekit tables list --prefix Game\n  tablekit tables create Gamers --if-not-exists"),
    (&["tables", "list"], "  tablekit tables list\n  tablekit tables list --prefix Game"),
    (&["tables", "create"], "  tablekit tables create Gamers --if-not-exists"),
    (&["tables", "delete"], "  tablekit tables delete Gamers --if-exists"),
    (&["get"], "  tablekit get Gamers eu dragon"),
    (
        &["put"],
        "  echo '{\"PartitionKey\":\"eu\",\"RowKey\":\"dragon\",\"Score\":42}' | tablekit put Gamers\n  \
         tablekit put Gamers -f dragon.json --mode merge",
    ),
    (&["delete"], "  tablekit delete Gamers eu dragon --etag 'W/\"datetime...\"'"),
    (
        &["query"],
        "  tablekit query Gamers --filter \"PartitionKey eq 'eu' and Score ge 10\"\n  \
         tablekit query Gamers --select Score,Name --top 20 --format table\n  \
         tablekit query Gamers --format csv > gamers.csv",
    ),
    (
        &["export"],
        "  tablekit export Gamers -o gamers.jsonl\n  \
         tablekit export Gamers -o gamers.csv --filter \"PartitionKey eq 'eu'\"",
    ),
    (
        &["import"],
        "  tablekit import Gamers -i gamers.jsonl\n  \
         tablekit import Gamers -i gamers.csv --mode insert\n  \
         cat gamers.jsonl | tablekit import Gamers",
    ),
    (&["backup"], "  tablekit backup Gamers -o gamers.tkb"),
    (
        &["restore"],
        "  tablekit restore Gamers -i gamers.tkb\n  \
         tablekit restore GamersCopy -i gamers.tkb --mode insert",
    ),
    (
        &["copy"],
        "  tablekit copy Gamers GamersCopy\n  \
         tablekit copy Gamers Gamers --to-account prod --to-key-env PROD_KEY",
    ),
    (
        &["migrate"],
        "  tablekit migrate Gamers --rename Nick=Nickname --dry-run\n  \
         tablekit migrate Gamers --retype Score:Int64 --remove Legacy",
    ),
    (&["stats"], "  tablekit stats Gamers --partitions"),
    (&["generate"], "  tablekit generate model Gamers > src/gamer.rs"),
    (
        &["generate", "model"],
        "  tablekit generate model Gamers --sample 5000 --name Gamer > src/gamer.rs\n  \
         tablekit generate model Gamers --json > gamer.model.json",
    ),
    (&["schema"], "  tablekit schema check Gamers --model gamer.model.json"),
    (
        &["schema", "check"],
        "  tablekit schema check Gamers --model gamer.model.json\n  \
         tablekit schema check Gamers --model gamer.model.json --json > drift.json",
    ),
    (&["emulator"], "  tablekit emulator --port 10002"),
    (&["completions"], "  tablekit completions bash > /etc/bash_completion.d/tablekit"),
];

/// The command line with every command's examples in its help.
pub(crate) fn command() -> clap::Command {
    let mut command = Cli::command()
        .after_help(RESUMING)
        .after_long_help(format!("{RESUMING}\n\n{EXIT_CODES_HELP}"));
    for (path, examples) in EXAMPLES {
        command = with_examples(command, path, examples);
    }
    command
}

/// Adds `examples` to the help of the command at `path` under `command`.
fn with_examples(command: clap::Command, path: &[&str], examples: &str) -> clap::Command {
    let Some((first, rest)) = path.split_first() else {
        return command;
    };
    command.mut_subcommand(*first, |sub| {
        if rest.is_empty() {
            let exits = if sub.get_subcommands().next().is_none() && *first != "emulator" {
                format!("\n\n{EXIT_CODES_HELP}")
            } else {
                String::new()
            };
            sub.after_help(format!("Examples:\n{examples}"))
                .after_long_help(format!("Examples:\n{examples}{exits}"))
        } else {
            with_examples(sub, rest, examples)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::command;

    /// Every command, at every depth, has examples in its help.
    #[test]
    fn every_command_has_examples() {
        fn check(command: &mut clap::Command, path: &str) {
            for sub in command
                .get_subcommands_mut()
                .filter(|sub| sub.get_name() != "help")
            {
                let path = format!("{path} {}", sub.get_name());
                let help = sub.render_long_help().to_string();
                assert!(help.contains("Examples:\n  "), "{path}:\n{help}");
                check(sub, &path);
            }
        }
        check(&mut command(), "tablekit");
    }
}
