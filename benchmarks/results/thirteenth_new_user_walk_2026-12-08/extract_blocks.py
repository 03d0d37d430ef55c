# python extract_blocks.py: writes docs/python_api.md's ```python blocks, as the page gives them, to block_N.py here
import re
from pathlib import Path

here = Path(__file__).parent
page = (here.parents[2] / "docs" / "python_api.md").read_text(encoding="utf-8")
for n, block in enumerate(re.findall(r"^```python\n(.*?)^```", page, flags=re.S | re.M), 1):
    (here / f"block_{n}.py").write_text(f"# docs/python_api.md's Python block {n}, as the page gives it\n" + block)
    print(n, block.splitlines()[0])
