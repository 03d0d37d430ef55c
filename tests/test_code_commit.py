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


def test_a_package_pip_installed_from_git_records_the_commit_pip_kept(tmp_path):
    """Installed by pip from a git repository, the package runs from site-packages, no checkout: runs
    recorded no commit (seventy-eighth session's probe). pip keeps it in direct_url.json (PEP 610)."""
    import json
    from importlib import metadata

    from accelerated_seg.code_commit import installed_commit

    info = tmp_path / "accelerated_seg-0.1.0.dist-info"
    info.mkdir()
    package = tmp_path / "accelerated_seg"  # installed beside its record, as pip installs it
    package.mkdir()
    (package / "__init__.py").write_text("")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: accelerated_seg\nVersion: 0.1.0\n")
    commit = "0123456789abcdef0123456789abcdef01234567"
    (info / "direct_url.json").write_text(json.dumps(
        {"url": "https://example.org/accelerated_seg.git", "vcs_info": {"vcs": "git", "commit_id": commit}}))
    assert installed_commit(metadata.Distribution.at(info), package) == commit
    for direct in ({"url": "file:///src/accelerated_seg", "dir_info": {"editable": True}},  # an editable install
                   {"url": "file:///wheels/accelerated_seg-0.1.0-py3-none-any.whl", "archive_info": {}}):
        (info / "direct_url.json").write_text(json.dumps(direct))
        assert installed_commit(metadata.Distribution.at(info), package) is None
    (info / "direct_url.json").unlink()  # from an index: no such file
    assert installed_commit(metadata.Distribution.at(info), package) is None
    (info / "direct_url.json").write_text("{not json")
    assert installed_commit(metadata.Distribution.at(info), package) is None
    # a copy of the package elsewhere (a source tree on PYTHONPATH) is not the installed one
    (info / "direct_url.json").write_text(json.dumps({"url": "x", "vcs_info": {"vcs": "git", "commit_id": commit}}))
    assert installed_commit(metadata.Distribution.at(info), package) == commit
    elsewhere = tmp_path / "tree" / "accelerated_seg"
    elsewhere.mkdir(parents=True)
    assert installed_commit(metadata.Distribution.at(info), elsewhere) is None
