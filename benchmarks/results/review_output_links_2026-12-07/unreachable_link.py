"""Command (as root, the checks run as nobody, whom root's 0700 folder shuts out):
  mkdir -p /tmp/r101_perm/locked/store /tmp/r101_perm/out /tmp/r101_perm/run; chmod 700 /tmp/r101_perm/locked
  chmod 777 /tmp/r101_perm/out /tmp/r101_perm/run; ln -s /tmp/r101_perm/locked/store/case.nii.gz /tmp/r101_perm/out/
  ln -s /tmp/r101_perm/locked/store/model /tmp/r101_perm/run/model; cp -r <tree>/accelerated_seg /tmp/r101_perm/pkg/
  runuser -u nobody -- env PYTHONPATH=/tmp/r101_perm/pkg:/work/main/.venv/lib/python3.11/site-packages \
      /usr/bin/python3 unreachable_link.py
A link whose target lies in a folder this user cannot open: predict's output checks, train's and export's link
checks."""
from pathlib import Path

import accelerated_seg
from accelerated_seg.checkpoint_files import check_export_output
from accelerated_seg.inference_outputs import check_outputs
from accelerated_seg.run_folder import refuse_dangling_links

print("package:", Path(accelerated_seg.__file__).parent)
for what, check in (("predict's check_outputs", lambda: check_outputs([], ["/tmp/r101_perm/out/case.nii.gz"])),
                    ("train's refuse_dangling_links",
                     lambda: refuse_dangling_links(Path("/tmp/r101_perm/run"), ["model"])),
                    ("export's check_export_output",
                     lambda: check_export_output(Path("/tmp/r101_perm/run/model"), Path("/tmp/r101_perm/ckpt")))):
    try:
        check()
        print(f"{what}: passed")
    except BaseException as error:  # noqa: BLE001 - what it raises is the finding
        print(f"{what}: {type(error).__name__}: {error}")
