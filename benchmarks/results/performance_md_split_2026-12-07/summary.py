"""The figures performance.md's "CPU results" gives of the sessions, computed from the table they sum up.

    PYTHONPATH=. python benchmarks/results/performance_md_split_2026-12-07/summary.py \
        > benchmarks/results/performance_md_split_2026-12-07/summary.txt

Reads "Every session at a glance" from docs/performance_cpu_sessions.md (the table `benchmarks/cpu_history.py`
prints; tests/test_cpu_history.py holds the two equal) and prints, per host CPU as the table's CPU column names it,
the number of sessions and the span of unet 64³ ours/plain in 1 and in 2 processes and of the 2-process efficiency,
as the rows performance.md's summary table has. A CPU cell without family and model is from before the files
recorded them, so two cells may be one host: the table's names are kept, not merged by guess. A session the
table marks "(host unsteady)" (the hundredth's, `host_unsteady` in cpu_history.py) is left out of the efficiency
span, as from every range the docs give over the sessions, and named beside it.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
HEADER = "| session | CPU | unet 64³ ours/plain, 1 / 2 proc |"
UNSTEADY = " (host unsteady)"  # the table's mark: the efficiency measured the host, not DDP


def table_rows(page: Path = ROOT / "docs" / "performance_cpu_sessions.md") -> list[list[str]]:
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(HEADER)) + 2  # past the header and |---|
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def span(values: list[float], fmt: str) -> str:
    low, high = f"{min(values):{fmt}}", f"{max(values):{fmt}}"
    return low if low == high else f"{low}–{high}"


def main() -> None:
    rows = table_rows()
    hosts: dict[str, list[list[str]]] = {}
    for row in rows:  # in order of first appearance
        hosts.setdefault(row[1], []).append(row)
    print(f"{len(rows)} sessions, {len(hosts)} CPU cells")
    print("| host CPU (the table's CPU column) | sessions | unet 64³ ours/plain, 1 proc | 2 proc "
          "| 2-proc efficiency |")
    print("|---|---|---|---|---|")
    every = {"one": [], "two": [], "eff": []}
    for cpu, group in hosts.items():
        one = [float(r[2].split(" / ")[0]) for r in group]
        two = [float(r[2].split(" / ")[1]) for r in group]
        eff = [100 * float(r[5]) for r in group if not r[5].endswith(UNSTEADY)]
        every["one"] += one
        every["two"] += two
        every["eff"] += eff
        unsteady = [f" ({100 * float(r[5].removesuffix(UNSTEADY)):.1f}% in {r[0]}, host unsteady)"
                    for r in group if r[5].endswith(UNSTEADY)]
        print(f"| {cpu} | {len(group)} | {span(one, '.3f')} | {span(two, '.3f')} | "
              f"{span(eff, '.1f')}%{''.join(unsteady)} |")
    print(f"every session: 1 proc {span(every['one'], '.3f')}, 2 proc {span(every['two'], '.3f')}, "
          f"efficiency {span(every['eff'], '.1f')}% (the unsteady session left out)")


if __name__ == "__main__":
    main()
