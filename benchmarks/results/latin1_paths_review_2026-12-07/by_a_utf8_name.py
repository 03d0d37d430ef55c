"""files.by_a_utf8_name and the readers that use it, driven directly. Command:
  PYTHONPATH=<package folder> /work/main/.venv/bin/python \
    benchmarks/results/latin1_paths_review_2026-12-07/by_a_utf8_name.py > .../by_a_utf8_name.txt 2>&1
(1) an ordinary path (ASCII, UTF-8) is given back as given, no fd opened; (2) 200 reads of an export's weights and
shapes in a folder named in Latin-1 leave /proc/self/fd as it was; (3) a folder's /proc/self/fd name reaches a file
below it; (4) a missing, a damaged and a Git LFS pointer's weights in such a folder: the line a user sees."""
import os
import tempfile
from pathlib import Path

import torch
from safetensors.torch import save_file

from accelerated_seg.data.errors import DataError
from accelerated_seg.exported_model import read_safetensors, safetensors_shapes
from accelerated_seg.files import by_a_utf8_name

root = Path(tempfile.mkdtemp())


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


for name in ("ascii", "d\u00e9j\u00e0", os.fsdecode(b"\xe9tude")):
    folder = root / name
    folder.mkdir()
    before = fds()
    with by_a_utf8_name(folder) as given:
        inside = fds()
    print(f"{ascii(name)}: given {ascii(given.replace(str(root), 'TMP'))}, fds +{inside - before} inside, "
          f"+{fds() - before} after")

latin = root / os.fsdecode(b"\xe9tude")
weights = latin / "model.safetensors"
save_file({"w": torch.zeros(3)}, os.fsencode(weights).decode("latin-1") if False else "/tmp/r110p_w.safetensors")
os.replace("/tmp/r110p_w.safetensors", weights)
before = fds()
for _ in range(100):
    read_safetensors(weights)
    safetensors_shapes(weights)
print(f"200 reads in a Latin-1 folder: fds +{fds() - before}")
with by_a_utf8_name(latin) as given:
    print("a file below a folder's fd name:", sorted(read_safetensors(Path(given) / "model.safetensors")))

for label, content in (("missing", None), ("damaged", b"\x00" * 20),
                       ("LFS pointer", b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 +
                        b"\nsize 1234\n")):
    path = latin / f"{label.replace(' ', '_')}.safetensors"
    if content is not None:
        path.write_bytes(content)
    for reader in (read_safetensors, safetensors_shapes):
        try:
            reader(path)
            said = "read"
        except (DataError, Exception) as error:
            said = f"{type(error).__name__}: {error}"
        print(f"{label}, {reader.__name__}: {ascii(said.replace(str(root), 'TMP'))}")
