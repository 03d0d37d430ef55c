"""Review r48: is every top-level definition of the old train.py (32313e7f) the same in the four modules h60's split
(2be1f778) put them in? Compared as ast (code and docstrings) and as source lines (comments too), the three renames
(_configured_run, _finish, _say_where_a_preempted_run_goes_on lost their underscore or became finish_run) applied.

    git show 32313e7f:accelerated_seg/train.py > /tmp/old_train.py
    python moved_definitions.py /tmp/old_train.py <checkout>/accelerated_seg
"""
import ast
import difflib
import re
import sys
from pathlib import Path

RENAMED = {"_configured_run": "configured_run", "_finish": "finish_run",
           "_say_where_a_preempted_run_goes_on": "say_where_a_preempted_run_goes_on"}
MODULES = ("train.py", "configured_run.py", "loop_state.py", "preempted_run.py")


def definitions(path: Path) -> dict:
    source = path.read_text()
    lines = source.splitlines()
    return {node.name: (node, lines[node.lineno - 1 - len(node.decorator_list):node.end_lineno])
            for node in ast.parse(source).body if hasattr(node, "name")}


class Renamed(ast.NodeTransformer):
    def visit_Name(self, node):
        node.id = RENAMED.get(node.id, node.id)
        return node

    def visit_FunctionDef(self, node):
        node.name = RENAMED.get(node.name, node.name)
        self.generic_visit(node)
        return node


old = definitions(Path(sys.argv[1]))
new = {}
for module in MODULES:
    new.update({name: (module, *found) for name, found in definitions(Path(sys.argv[2]) / module).items()})
counts = {"same": 0, "same once renamed": 0, "other": 0}
for name, (node, lines) in old.items():
    module, new_node, new_lines = new[RENAMED.get(name, name)]
    unchanged = ast.dump(node) == ast.dump(new_node)  # before the renames, which visit ``node`` in place
    old_text = ast.unparse(Renamed().visit(node))
    if unchanged:
        verdict = "same"
    elif old_text == ast.unparse(new_node):
        verdict = "same once renamed"
    else:
        verdict = "other"
    counts[verdict] += 1
    renamed_lines = [re.sub(r"\b(" + "|".join(RENAMED) + r")\b", lambda m: RENAMED[m.group(1)], line) for line in lines]
    line_diff = [d for d in difflib.unified_diff(renamed_lines, new_lines, lineterm="", n=0) if d[:1] in "+-"
                 and d[:3] not in ("+++", "---")]
    if verdict != "same" or line_diff:
        print(f"{name} -> {module}: {verdict}; source lines that differ:", *line_diff or ["none"], sep="\n  ")
print(f"{len(old)} definitions:", counts)
