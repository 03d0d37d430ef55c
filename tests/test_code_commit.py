"""run_info.json records the commit of the checkout the package runs from (code_commit.py)."""

import subprocess

from accelerated_seg.code_commit import checkout_commit


def git(folder, *args):
    subprocess.run(["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def test_the_commit_of_a_checkout_is_marked_where_the_package_differs_and_other_repositories_are_not_taken(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "accelerated_seg").mkdir(parents=True)
    (checkout / "accelerated_seg" / "train.py").write_text("step = 1\n")
    (checkout / "README.md").write_text("readme\n")
    (checkout / ".gitignore").write_text("__pycache__/\n")
    git(checkout, "init", "-q")
    git(checkout, "add", ".")
    git(checkout, "commit", "-q", "-m", "first")
    head = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    package = checkout / "accelerated_seg"
    assert checkout_commit(package) == head
    (checkout / "README.md").write_text("edited\n")  # outside the package: the code is the commit's
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "train.cpython-311.pyc").write_bytes(b"compiled")  # ignored by .gitignore
    assert checkout_commit(package) == head
    (package / "new_module.py").write_text("added = True\n")  # untracked, but code the run imports
    assert checkout_commit(package) == head + "+modified"
    (package / "new_module.py").unlink()
    (package / "train.py").write_text("step = 2\n")
    assert checkout_commit(package) == head + "+modified"
    # installed into a virtual environment inside a project under git: the project's commit is not ours
    installed = checkout / ".venv" / "lib" / "site-packages" / "accelerated_seg"
    installed.mkdir(parents=True)
    assert checkout_commit(installed) is None
    outside = tmp_path / "plain" / "accelerated_seg"  # no repository at all
    outside.mkdir(parents=True)
    assert checkout_commit(outside) is None
