# Command: cd <worktree> && PYTHONPATH=$PWD /work/main/.venv/bin/python \
#   benchmarks/results/review_r116_2026-12-07/dataset_repr.py \
#   > benchmarks/results/review_r116_2026-12-07/dataset_repr_main.txt 2>&1
# print(Dataset)'s channels for: one file a case, named and not; two files, a mix; a 4D file of 3 channels (named and
# not); a name the user gave that is the Dataset's own (image, image_0); an MSD dataset.json with "modality".
import json
import re
import shutil
import tempfile
from pathlib import Path

import nibabel as nib
import numpy as np

from accelerated_seg import Dataset

CHANNELS = re.compile(r'; (\d+ channels? \([^)]*\));')
w = Path(tempfile.mkdtemp())
pairs, four_d, two = [], [], []
for i in range(4):
    image, label, image4 = w / f"img_{i}.nii.gz", w / f"lab_{i}.nii.gz", w / f"img4_{i}.nii.gz"
    nib.save(nib.Nifti1Image(np.random.rand(8, 8, 8).astype(np.float32), np.eye(4)), image)
    nib.save(nib.Nifti1Image(np.random.rand(8, 8, 8, 3).astype(np.float32), np.eye(4)), image4)
    nib.save(nib.Nifti1Image((np.random.rand(8, 8, 8) > 0.5).astype(np.uint8), np.eye(4)), label)
    copy = shutil.copy(image, w / f"img_{i}_b.nii.gz")
    pairs.append((str(image), str(label)))
    four_d.append((str(image4), str(label)))
    two.append(([str(image), copy], str(label)))


def said(what, pairs, **kw):
    try:
        text = repr(Dataset.from_files(pairs, n_classes=2, **kw))
        print(f"{what:48} {CHANNELS.search(text)[1]}")
    except Exception as error:  # noqa: BLE001 (a probe)
        print(f"{what:48} {type(error).__name__}: {error}")


said("one file a case", pairs)
said("one file a case, named CT", pairs, channel_names=["CT"])
said("one file a case, named 'image' by the user", pairs, channel_names=["image"])
said("two files a case", two)
said("two files, named T1, T2", two, channel_names=["T1", "T2"])
said("two files, named image_0, T2", two, channel_names=["image_0", "T2"])
said("two files, named T1, image_1", two, channel_names=["T1", "image_1"])
said("two files, named ' ', T2", two, channel_names=[" ", "T2"])
said("a 4D file of 3 channels", four_d)
said("a 4D file of 3 channels, named", four_d, channel_names=["T1", "T2", "FLAIR"])
msd = w / "msd"
(msd / "imagesTr").mkdir(parents=True)
(msd / "labelsTr").mkdir()
for i in range(4):
    shutil.copy(w / f"img4_{i}.nii.gz", msd / "imagesTr" / f"c{i}.nii.gz")
    shutil.copy(w / f"lab_{i}.nii.gz", msd / "labelsTr" / f"c{i}.nii.gz")
(msd / "dataset.json").write_text(json.dumps({
    "modality": {"0": "FLAIR", "1": "", "2": "T2"}, "labels": {"0": "background", "1": "tumour"},
    "training": [{"image": f"./imagesTr/c{i}.nii.gz", "label": f"./labelsTr/c{i}.nii.gz"} for i in range(4)]}))
MSD = 'an MSD dataset.json, modality FLAIR, blank, T2'
try:
    from accelerated_seg.config import DataConfig
    from accelerated_seg.data.manifest import load_cases

    text = repr(Dataset(load_cases(msd), DataConfig()))  # as a dataset.json's cases
    print(f"{MSD:48} {CHANNELS.search(text)[1]}")
except Exception as error:  # noqa: BLE001
    print(f"MSD: {type(error).__name__}: {error}")
shutil.rmtree(w)
