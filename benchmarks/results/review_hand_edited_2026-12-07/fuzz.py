"""Fuzz hand_edited.read_json_file with mangled config.json files; print each case's line.
Command: cd /tmp/wt_r104 && PYTHONPATH=/tmp/wt_r104 /work/main/.venv/bin/python \
    benchmarks/results/review_hand_edited_2026-12-07/fuzz.py > benchmarks/results/review_hand_edited_2026-12-07/fuzz.txt
"""
import codecs, json, struct, sys, tempfile
from pathlib import Path
from accelerated_seg.hand_edited import read_json_file
from accelerated_seg.data.errors import DataError

good = json.dumps({"model": {"name": "UNet", "channels": [16, 32]}, "num_classes": 3, "step": 10}, indent=2) + "\n"
safetensors_header = json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
cases = {
    "good": good.encode(),
    "BOM": codecs.BOM_UTF8 + good.encode(),
    "BOM + trailing comma": codecs.BOM_UTF8 + good.replace('"step": 10', '"step": 10,').encode(),
    "trailing comma in object": good.replace('"step": 10', '"step": 10,').encode(),
    "trailing comma in list": good.replace("32\n", "32,\n").encode(),
    "comma then wrong bracket {..,]": b'{"model": {"a": 1,]\n}\n',
    "empty": b"",
    "only whitespace": b"  \n\n\t \n",
    "cut short mid-number": good.encode()[:60],
    "cut short mid-string": good.encode()[:25],
    "cut short after comma": good.encode()[:good.index(",") + 1],
    "missing closing quote (multi-line)": good.replace('"UNet"', '"UNet').encode(),
    "missing closing quote (one line)": b'{"model": {"name": "UNet}, "num_classes": 3}',
    "missing ] (ends with })": good.replace("32\n    ]", "32\n").encode(),
    "missing } at end": good.rstrip()[:-1].encode() + b"\n",
    "stray character": good.replace('"step"', 'x"step"').encode(),
    "stray character at end": (good + "x\n").encode(),
    "extra } at end": (good + "}\n").encode(),
    "single quotes": good.replace('"UNet"', "'UNet'").encode(),
    "comment line": good.replace("{\n", "{\n  // edited\n", 1).encode(),
    "NaN-ish None": good.replace("10", "None").encode(),
    "two BOMs": codecs.BOM_UTF8 * 2 + good.encode(),
    "UTF-16 LE with BOM": good.encode("utf-16"),
    "UTF-16 BE no BOM": good.encode("utf-16-be"),
    "UTF-16 LE no BOM": good.encode("utf-16-le"),
    "UTF-32 with BOM": good.encode("utf-32"),
    "Latin-1 é": good.replace("UNet", "UNét").encode("latin-1"),
    "safetensors named config.json": struct.pack("<Q", len(safetensors_header)) + safetensors_header + b"\0" * 4,
    "gzip named config.json": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + bytes(range(256)),
    "zip named config.json": b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(200, 256)) * 3,
    "png named config.json": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    "random bytes no NUL": bytes((i * 37 + 11) % 255 + 1 for i in range(300)),
    "NUL in middle of text": good.replace("UNet", "UN\0et").encode(),
}
with tempfile.TemporaryDirectory() as folder:
    for name, data in cases.items():
        path = Path(folder) / "config.json"
        path.write_bytes(data)
        try:
            read_json_file(path, "COPY AGAIN")
            said = "read"
        except DataError as error:
            said = str(error).replace(str(path), "config.json")
        print(f"[{name}]\n    {said}")
print(sys.version.split()[0])
