"""Review r113, probe 1: hand_edited.read_json_file on RIGHT files and its cost.

Run: cd <worktree> && PYTHONPATH=. /work/main/.venv/bin/python \
    benchmarks/results/review_r113_2026-12-07/probe_reader.py \
    > benchmarks/results/review_r113_2026-12-07/reader_<when>.txt
"""
import json
import tempfile
import time
from pathlib import Path

from accelerated_seg.data.errors import DataError
from accelerated_seg.data.manifest import load_cases
from accelerated_seg.hand_edited import read_json_file

tmp = Path(tempfile.mkdtemp())


def read(name: str, text: str | bytes) -> None:
    path = tmp / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    try:
        got = read_json_file(path, "copy it again")
        print(f"{name}: read, {str(got)[:90]}")
    except DataError as error:
        print(f"{name}: REFUSED {str(error).replace(str(tmp), '<tmp>')}")


read("regions.json", '{"labels": {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3]}}')
read("training.json", '{"training": [{"image": "a", "label": "b"}, {"image": "c", "label": "d"}]}')
read("bom.json", b'\xef\xbb\xbf{"a": 1}')
read("nan.json", '{"a": NaN, "b": Infinity, "c": -Infinity}')
read("top_array.json", '[{"train": ["a"], "val": ["b"]}, {"train": ["b"], "val": ["a"]}]')
read("twice_in_array_item.json", '[{"train": ["a"], "train": ["b"]}]')
read("nested_same_key.json", '{"a": {"a": {"a": 1}}, "b": [{"a": 1, "b": 2}, {"a": 3}]}')
read("escaped_key_twice.json", '{"labels": {"1": "liver", "\\u0031": "tumour"}}')

# the cost: a 10,000-case dataset.json against json.loads
cases = [{"image": f"./imagesTr/case_{i:05d}.nii.gz", "label": f"./labelsTr/case_{i:05d}.nii.gz"} for i in range(10000)]
document = {"name": "big", "labels": {"0": "background", "1": "one"}, "modality": {"0": "CT"},
            "numTraining": len(cases), "training": cases, "test": []}
text = json.dumps(document, indent=4)
big = tmp / "big.json"
big.write_text(text)


def timed(what, call, repeat=3):
    best = min((lambda t0: (call(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(repeat))
    print(f"{what}: {best * 1000:.0f} ms")
    return best


plain = timed("json.loads, 10,000 cases", lambda: json.loads(text))
ours = timed("read_json_file, 10,000 cases", lambda: read_json_file(big, "again"))
print(f"ratio {ours / plain:.1f}x")

# a key given twice in one case of the 10,000: the lines are found where "image" is written 10,001 times
twice = text.replace('"label": "./labelsTr/case_09999.nii.gz"',
                     '"label": "./labelsTr/case_09999.nii.gz", "image": "x"')
bad = tmp / "big_twice.json"
bad.write_text(twice)
t0 = time.perf_counter()
try:
    read_json_file(bad, "again")
except DataError as error:
    print(f"refused in {(time.perf_counter() - t0) * 1000:.0f} ms: {str(error).replace(str(tmp), '<tmp>')}")
for n in (20000, 40000):
    listed = [{"image": f"i{i}", "label": f"l{i}"} for i in range(n)] + [{"image": 2}]
    many = json.dumps({"training": listed}, indent=4).replace('"image": 2', '"image": 1,\n "image": 2')
    (tmp / "many.json").write_text(many)
    t0 = time.perf_counter()
    try:
        read_json_file(tmp / "many.json", "again")
    except DataError:
        print(f"{n} cases, the last with 'image' twice: refused in {(time.perf_counter() - t0) * 1000:.0f} ms")

# an object with many keys (nnU-Net v2's "dataset" form: a case id to its files, thousands of them)
wide = {"dataset": {f"case_{i:05d}": {"images": [f"/d/{i}_0000.nii.gz"], "label": f"/d/{i}.nii.gz"}
                    for i in range(10000)}}
wide_text = json.dumps(wide)
(tmp / "wide.json").write_text(wide_text)
plain = timed("json.loads, an object of 10,000 keys", lambda: json.loads(wide_text), 1)
ours = timed("read_json_file, an object of 10,000 keys", lambda: read_json_file(tmp / "wide.json", "again"), 1)
print(f"ratio {ours / plain:.1f}x")

# a real path: load_cases of a folder with a region-based nnU-Net v2 dataset.json (no images: what it says)
folder = tmp / "Dataset001"
(folder / "imagesTr").mkdir(parents=True)
(folder / "labelsTr").mkdir()
(folder / "dataset.json").write_text(json.dumps({
    "channel_names": {"0": "T1"}, "labels": {"background": 0, "whole tumor": [1, 2, 3], "tumor core": [2, 3]},
    "regions_class_order": [1, 2], "numTraining": 0, "file_ending": ".nii.gz"}))
try:
    load_cases(folder)
    print("load_cases region-based: read")
except DataError as error:
    print(f"load_cases region-based: {str(error).replace(str(tmp), '<tmp>')[:300]}")
