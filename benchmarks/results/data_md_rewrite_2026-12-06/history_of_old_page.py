"""Lists the history the old docs/data.md held (each sentence naming a session), by section, and whether
docs/known_issues.md holds a Fixed entry naming that session.

Run from the repository root:
    python benchmarks/results/data_md_rewrite_2026-12-06/history_of_old_page.py > \
        benchmarks/results/data_md_rewrite_2026-12-06/history_of_old_page.md"""

import re
import subprocess

OLD = subprocess.run(["git", "show", "0a7fb78e:docs/data.md"], capture_output=True, check=True, text=True).stdout
ISSUES = open("docs/known_issues.md", encoding="utf-8").read()
SESSION = re.compile(r"\b((?:hundred-and-)?[a-z]+(?:-[a-z]+)?) session")


def fixed_entries_naming(session: str) -> int:
    """How many Fixed entries of known_issues.md name the session."""
    entries = re.split(r"^## ", ISSUES, flags=re.M)
    return sum(1 for entry in entries if entry.startswith("Fixed") and f"{session} session" in entry)


def main() -> None:
    print("# The history the old docs/data.md held (git show 0a7fb78e:docs/data.md)\n")
    print("Each sentence of the old page that names a session, under its section; after it, the sessions it names")
    print("and how many Fixed entries of docs/known_issues.md name each (0: no entry holds that session's story).\n")
    section = ""
    for block in re.split(r"\n(?=#)|\n\n", OLD):
        heading = re.match(r"^(#+ .*)", block)
        if heading:
            section = heading[1]
            print(f"\n## {section.lstrip('# ')}\n")
            block = block[len(heading[1]):]
        text = re.sub(r"\s+", " ", block)
        for sentence in re.split(r"(?<=[.;)])\s+(?=[A-Z(`])", text):
            sessions = sorted(set(SESSION.findall(sentence)) - {"this", "that", "the", "a", "each", "one"})
            if sessions:
                counts = ", ".join(f"{s}: {fixed_entries_naming(s)}" for s in sessions)
                print(f"- {sentence.strip()} [{counts}]")


main()
