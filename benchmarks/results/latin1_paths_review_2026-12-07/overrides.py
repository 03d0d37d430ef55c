"""Overrides given a byte that is not UTF-8, through config.load_config (configs/demo.yaml): path settings plain,
quoted, Windows-1252 0x80-0x9f, 0xfe 0xff, every high byte, a list, a mapping; settings that are not paths. Command:
  PYTHONPATH=<package folder> /work/main/.venv/bin/python benchmarks/results/latin1_paths_review_2026-12-07/overrides.py
(overrides_main.txt with main c59329d6, overrides_after.txt with branch r110)"""
import os
from accelerated_seg.config import load_config, ConfigError
e = os.fsdecode(b"\xe9")
cases = [
 ("plain", f"--train.output_dir=r{e}s"),
 ("single-quoted", f"--train.output_dir='r{e}s'"),
 ("double-quoted", f'--train.output_dir="r{e}s"'),
 ("double-quoted escape", f'--train.output_dir="r{e}s\\tx"'),
 ("cp1252 0x80-0x9f", "--train.output_dir=" + os.fsdecode(bytes(range(0x80, 0xa0)))),
 ("0xfe 0xff", "--train.output_dir=" + os.fsdecode(b"\xfe\xff")),
 ("all 128 high bytes", "--train.output_dir=x" + os.fsdecode(bytes(range(0x80, 0x100)))),
 ("a list", f"--train.output_dir=[a{e}, b]"),
 ("a mapping", f"--train.output_dir={{a: b{e}}}"),
 ("a number-like", f"--data.cache_dir=1{e}"),
 ("not a path", f"--model.name=u{e}net"),
 ("not a path list", f"--data.patch_size=[1{e}, 2, 3]"),
 ("the stand-in itself", "--train.output_dir=r\U0010ffe9s"),
 ("stand-in and byte", f"--train.output_dir=r\U0010ffe9s{e}"),
 ("space form", ("--train.output_dir", f"r{e}s")),
 ("a comment", f"--train.output_dir=r{e}s #x"),
 ("resume", f"--train.resume=r{e}s"),
]
for label, item in cases:
    items = list(item) if isinstance(item, tuple) else [item]
    try:
        cfg = load_config("configs/demo.yaml", items)
        said = f"train.output_dir={cfg.train.output_dir!a} resume={cfg.train.resume!a} cache={cfg.data.cache_dir!a} model={cfg.model.name!a}"
    except ConfigError as error:
        said = f"ConfigError: {error}"
    except Exception as error:
        said = f"{type(error).__name__}: {error}"
    print(f"[{label}] {ascii(said)}")
