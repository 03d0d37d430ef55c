"""Is a Ctrl-C that lands while nibabel's ArrayProxy.__del__ runs dropped? (hundred-and-sixth session)

The SIGINT is sent from inside the __del__ (wrapped, so that it runs there every time, where in `check` it lands
there by chance): CPython prints "Exception ignored in" and goes on, as it does for any exception in a __del__.

    PYTHONPATH=. .venv/bin/python benchmarks/results/known_issues_open_2026-12-05/ctrl_c_in_a_del_is_dropped.py \
        > benchmarks/results/known_issues_open_2026-12-05/ctrl_c_in_a_del_is_dropped.txt 2>&1
"""

import os
import signal
import tempfile

import nibabel as nib
import numpy as np
from nibabel.arrayproxy import ArrayProxy

closing = ArrayProxy.__del__


def interrupted_while_closing(self):
    os.kill(os.getpid(), signal.SIGINT)  # the handler runs at the next bytecode, still inside this __del__
    closing(self)


ArrayProxy.__del__ = interrupted_while_closing
path = os.path.join(tempfile.mkdtemp(), "case.nii.gz")
nib.save(nib.Nifti1Image(np.zeros((4, 4, 4), np.float32), np.eye(4)), path)
try:
    image = nib.load(path)
    del image  # the proxy's __del__ runs here, and the interrupt with it
    print("the interrupt was dropped: the program went on past the Ctrl-C")
except KeyboardInterrupt:
    print("the interrupt stopped the program")
