"""docs/python_api.md's Python blocks run as a reader copies them, in an empty folder, and print what the page says
they print. tests/test_doc_commands.py reads every snippet's names and keywords against the package, and
tests/test_python_api_md_claims.py its tables, but nothing ran a block: the hundred-and-twenty-fourth session's walk
through the docs as a new user (helper h130, benchmarks/results/new_user_walk_2026-12-07/) ran both by hand. The
first block's training takes two minutes on 2 cores (examples/estimator.py runs that road in tests/test_examples.py);
its Dataset, which the page prints, is made here as the block makes it."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = (Path(__file__).resolve().parents[1] / "docs" / "python_api.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", PAGE, flags=re.S | re.M)


def _block_with(text: str) -> str:
    found = [block for block in BLOCKS if text in block]
    assert len(found) == 1, f"docs/python_api.md: {len(found)} Python blocks hold {text!r}"
    return found[0]


def _run_as_a_script(source: str) -> dict:
    namespace = {"__name__": "__main__"}
    exec(compile(source, "docs/python_api.md", "exec"), namespace)  # noqa: S102 - the page's own code
    return namespace


def test_the_fit_block_runs_as_written_and_prints_the_line_its_comment_gives(tmp_path, monkeypatch, capsys):
    block = _block_with("from accelerated_seg.train import fit")
    promised = re.search(r"^\s*print\(result\[.*\)  # (.+)$", block, flags=re.M)[1]
    monkeypatch.chdir(tmp_path)  # its checkpoint_dir, runs/mine, is relative
    _run_as_a_script(block)
    assert capsys.readouterr().out.splitlines()[-1] == promised
    assert (tmp_path / "runs" / "mine" / "model" / "model.safetensors").is_file()


def test_the_first_blocks_dataset_prints_what_the_page_quotes(tmp_path, monkeypatch):
    block = BLOCKS[0]
    made = block.split("\n    model = ", 1)[0]  # its lines up to the Dataset, before the fit
    assert made.rstrip().splitlines()[-1].lstrip().startswith("data = Dataset.from_files(")
    quoted = " ".join(re.search(r"`(<Dataset: [^`]*>)`", PAGE, flags=re.S)[1].split())
    monkeypatch.chdir(tmp_path)  # its phantoms, demo/data, are written under the working folder
    assert repr(_run_as_a_script(made)["data"]) == quoted


def test_the_warning_the_first_block_gives_without_its_warmup_steps_is_the_one_the_page_quotes():
    """The block's fit of 4 steps at the default lr (0.001) and warm-up (20 steps), without `warmup_steps=0`."""
    from accelerated_seg.config import OptimConfig
    from accelerated_seg.model_folders import ESTIMATOR_NAMES
    from accelerated_seg.schedule import warmup_warning

    assert "fit(data, steps=4, warmup_steps=0)" in BLOCKS[0]
    quoted = " ".join(re.search(r"this short run warns `(warning: [^`]*)`", PAGE, flags=re.S)[1].split())
    assert warmup_warning(OptimConfig(), 4, OptimConfig().lr, ESTIMATOR_NAMES) == quoted
