"""Which code wrote a run, where the package's version cannot tell.

``accelerated_seg.__version__`` names a release, and every commit of a checkout says the same one:
an upgrade probe's runs of five versions, 650 commits apart, all recorded 0.1.0, so nothing told
which code had trained a checkpoint (seventy-sixth session). Imported from a git checkout (an
editable install, the usual research setup), the run also records the checkout's commit, marked
when the package's own files differ from it. Installed by pip from a git repository (``pip install
git+https://...@<ref>``), it records the commit pip installed, which pip keeps beside the package
(PEP 610's ``direct_url.json``); such runs recorded none before the seventy-ninth session. A package
installed from a folder or a wheel file records none: nothing kept says which commit it was.
"""

from __future__ import annotations

import functools
import json
import subprocess
from importlib import metadata
from pathlib import Path


def checkout_commit(package: Path = Path(__file__).resolve().parent) -> str | None:
    """The commit of the git checkout the package is imported from, with "+modified" where its
    files differ from it; None for an installed package (or one inside another project's
    repository: a virtual environment in a project under git), or without git."""
    def git(*args: str) -> str | None:
        try:
            # no optional locks: a status refreshing the index took .git/index.lock from the user's own git
            done = subprocess.run(["git", "--no-optional-locks", "-C", str(package), *args], capture_output=True,
                                  text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):  # no git, or a filesystem too slow to answer
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != package.parent.resolve():
        return None
    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None
    changed = git("status", "--porcelain", "--", ".")  # a new module counts, what .gitignore names does not
    return commit + ("+modified" if changed else "")


def installed_commit(distribution: metadata.Distribution | None = None,
                     package: Path = Path(__file__).resolve().parent) -> str | None:
    """The git commit pip installed the package from, as its ``direct_url.json`` records it (PEP 610);
    None for an install from a folder, a wheel or an index, or an editable one (whose checkout
    ``checkout_commit`` asks), and where the distribution found is not the one ``package`` runs from
    (another copy earlier on the path: a review found a source tree on PYTHONPATH named by the
    editable install's record). Files edited after the install are not told apart."""
    try:
        distribution = distribution if distribution is not None else metadata.distribution("accelerated_seg")
        installed_here = Path(distribution.locate_file(f"{package.name}/__init__.py")).resolve().parent == package
        direct = json.loads(distribution.read_text("direct_url.json") or "{}")
    except (metadata.PackageNotFoundError, OSError, ValueError):  # a source tree on PYTHONPATH has none
        return None
    if not installed_here:
        return None
    vcs = direct.get("vcs_info") if isinstance(direct, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and isinstance(vcs.get("commit_id"), str):
        return vcs["commit_id"]
    return None


@functools.cache
def run_commit() -> str | None:
    """``checkout_commit()``, else ``installed_commit()``, asked once per process: run_info.json and the
    exports' config.json of a run (of every run of a k-fold script) name the same code, for three
    git calls in all."""
    return checkout_commit() or installed_commit()
