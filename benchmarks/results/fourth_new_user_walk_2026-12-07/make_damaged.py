# python make_damaged.py   (run from the walk's clone after walk_0: writes damaged/<kind>/, copies of
# output/demo/best_model each damaged as one bullet of inference.md's "### A damaged export" says)
import json
import shutil
from pathlib import Path

source = Path("output/demo/best_model")
text = (source / "config.json").read_text(encoding="utf-8")
config = json.loads(text)
root = Path("damaged")
if root.exists():
    shutil.rmtree(root)


def export(kind, config_text=None, config_bytes=None, weights=None):
    folder = root / kind
    shutil.copytree(source, folder)
    if config_text is not None:
        (folder / "config.json").write_text(config_text, encoding="utf-8")
    if config_bytes is not None:
        (folder / "config.json").write_bytes(config_bytes)
    if weights is not None:
        (folder / "model.safetensors").write_bytes(weights)


def edited(**changes):
    return json.dumps({**config, **changes}, indent=2, ensure_ascii=False)  # as an editor saves it: é as é


def without(*keys, section=None):
    out = json.loads(text)
    for key in keys:
        (out[section] if section else out).pop(key)
    return json.dumps(out, indent=2)


lines = text.splitlines()
export("not_json", config_text=text.replace('"in_channels"', '"in_channels" 0,', 1))
export("no_in_channels", config_text=without("in_channels"))
export("no_model_args", config_text=without("args", section="model"))
export("args_do_not_build", config_text=edited(model={**config["model"], "args": {**config["model"]["args"],
                                                                                  "channels": [8], "strides": []}}))
export("utf16", config_bytes=text.encode("utf-16"))
export("latin1", config_bytes=edited(name="Tumeur c\u00e9r\u00e9brale").encode("latin-1"))
export("trailing_comma", config_text=text.rstrip().rstrip("}").rstrip() + ",\n}\n")
export("cut_short", config_text=text[: len(text) // 2])
export("quote_left_out", config_text=text.replace('"num_classes"', 'num_classes"', 1))
export("binary", config_bytes=(source / "model.safetensors").read_bytes()[:4000])
export("bom", config_bytes=b"\xef\xbb\xbf" + text.encode("utf-8"))
export("lfs_pointer", weights=b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64 + b"\nsize 123456\n")
export("weights_cut", weights=(source / "model.safetensors").read_bytes()[:-1000])
other = json.loads(Path("runs/brats2/best_model/config.json").read_text())
export("two_exports", config_text=json.dumps(other, indent=2))
export("channels_edited", config_text=edited(in_channels=2, channels={"0": "T1", "1": "FLAIR"}))
export("bad_values", config_text=edited(num_classes=5, patch_size=[16, 16], channels=["T1"],
                                        labels=["background", "a", "b"],
                                        preprocessing={**config["preprocessing"], "normalization": "minmax"}))
export("unknown_network", config_text=edited(model={**config["model"], "name": "unetr_plus"}))
export("unknown_class", config_text=edited(model={**config["model"], "monai_class": "monai.networks.nets.UNetPlus"}))
export("newer_format", config_text=edited(format_version=2))
print("wrote", sorted(p.name for p in root.iterdir()))
print("keys:", sorted(config), "model:", sorted(config["model"]))
