"""Run as: PYTHONPATH=<package> OMP_NUM_THREADS=1 .venv/bin/python in_memory_arrays.py  (writes under /tmp/r66a)
Segmentation.predict on arrays (2 channels, and 1) whose affine is in micrometres (2000) or metres (0.002) for a model
in mm at 1.5: what each refusal says. At main (d8f8409b, in_memory_arrays_main.txt) the far finer refusal still
offered "(nibabel, from metres: img = nib.load(path, mmap=False); ...; nib.save(..., path))", predict's temporary
file, which in_memory_lines' pattern ("nibabel: " alone) missed; on r66 (in_memory_arrays_r66.txt) said of img."""
import warnings, importlib.util
from pathlib import Path
import numpy as np
spec=importlib.util.spec_from_file_location("h78",str(Path(__file__).resolve().parent.parent / "predict_case_units_alike_2026-12-06" / "units_left.py"))
h78=importlib.util.module_from_spec(spec); spec.loader.exec_module(h78)
from accelerated_seg.estimator import Segmentation
from accelerated_seg.data.errors import DataError
root=Path("/tmp/r66a"); root.mkdir(exist_ok=True)
for ch in (2,1):
    model=Segmentation.load(h78.export(root/f"m{ch}",ch,"mm",[1.5]*3))
    x=(np.random.default_rng(0).random((ch,8,8,8))+1).astype(np.float32)
    for affine in (np.diag([2000.0]*3+[1.0]), np.diag([0.002]*3+[1.0])):
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                model.predict(x if ch>1 else x[0], affine=affine)
            print(ch, affine[0,0], "segmented; warnings:", [str(m.message)[:300] for m in w])
        except DataError as e:
            print(ch, affine[0,0], "REFUSED:", str(e)[:1500])
