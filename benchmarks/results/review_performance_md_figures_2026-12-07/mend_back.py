"""Each of h149's mends of docs/performance.md put back, one at a time, in a scratch copy of the page (the tests read
the page beside them: a scratch tree of tests/, docs/, README.md and a link to benchmarks/), and
tests/test_performance_md_claims.py run there (main's with `main`): which mends a test guards. Run from the repository root (r125):

    python benchmarks/results/review_performance_md_figures_2026-12-07/mend_back.py [main] \
        > benchmarks/results/review_performance_md_figures_2026-12-07/mend_back_<main|r125>.txt
"""

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

page = Path("docs/performance.md").read_text(encoding="utf-8")
MENDS = {
    "the sharded table's 0.978 back to 0.979": ("| 0.978–0.982 (H200)", "| 0.979–0.982 (H200)"),
    "the leases' 0.978 back to 0.979": ("`fsdp2_blocks.yaml` 0.978, ZeRO-3", "`fsdp2_blocks.yaml` 0.979, ZeRO-3"),
    "18.5% back to 18%": ("in up to 18.5% of calls", "in up to 18% of calls"),
    "the AVX2 EPYC's 0.6–3.1 back to 2.2–3.1": (re.compile(r"\(0\.6–3\.1 ms in two on the AVX2 EPYC,\s+2\.2–3\.1 in "
                                                          r"seven of its fifteen sessions,"),
                                               "(2.2–3.1 ms in two on the AVX2 EPYC,"),
    "Levers: compile + channels-last's file back to none named": (
        "compile + channels-last\n`train_2cpu/session_2026-11-23o/compile_channels_last_unet64_1proc.json`", "x"),
    "Levers' compile + channels-last cell +24% to +22% (a figure not in its file)": ("**+24%** over compile alone",
                                                                                    "**+22%** over compile alone"),
    "Levers: the bf16 sessions' ratios 1.44, 1.50, 1.35 to 1.44, 1.39, 1.35": ("sessions: 1.44, 1.50, 1.35)",
                                                                             "sessions: 1.44, 1.39, 1.35)"),
    "Levers: the one-pass loader's wait named by realdata_unet64 again (2.5–2.6%)": (
        "waits 0.54–0.58% for data", "waits 2.5–2.6% for data"),
}
with tempfile.TemporaryDirectory() as tmp:
    tmp = Path(tmp)
    shutil.copytree("docs", tmp / "docs")
    shutil.copytree("tests", tmp / "tests", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy("README.md", tmp / "README.md")
    if sys.argv[1:] == ["main"]:
        (tmp / "tests" / "test_performance_md_claims.py").write_text(subprocess.run(
            ["git", "show", "main:tests/test_performance_md_claims.py"], capture_output=True, text=True,
            check=True).stdout)
    (tmp / "benchmarks").symlink_to(Path("benchmarks").resolve())
    # the page as it is: what fails in the scratch tree without a mend put back is said once and left out below
    (tmp / "docs" / "performance.md").write_text(page, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_performance_md_claims.py"], cwd=tmp, capture_output=True, text=True)
    ALWAYS = re.findall(r"^FAILED \S+::(\S+)", done.stdout, re.M)
    print(f"- the page as it is: {done.stdout.strip().splitlines()[-1]} {ALWAYS}")
    for name, (new, old) in MENDS.items():
        found = bool(new.search(page)) if isinstance(new, re.Pattern) else new in page
        mended_back = new.sub(old, page) if isinstance(new, re.Pattern) else page.replace(new, old)
        (tmp / "docs" / "performance.md").write_text(mended_back, encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "tests/test_performance_md_claims.py"], cwd=tmp, capture_output=True, text=True)
        failed = re.findall(r"^FAILED \S+::(\S+)", done.stdout, re.M)
        failed = [f for f in failed if f not in ALWAYS]
        print(f"- {name} (the mend on the page: {found}): {done.stdout.strip().splitlines()[-1]}"
              + "".join(f"\n    failed: {f}" for f in failed))
