"""The rules of the guide a linter does not check: no function in ``core/`` over 60 lines (issue 29), the docs naming
what is there."""

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "core"
LONGEST = 60


def test_no_function_in_core_is_over_60_lines():
    long = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > LONGEST:
                long.append(f"{path.relative_to(CORE.parent)}:{node.lineno} {node.name} "
                            f"({node.end_lineno - node.lineno + 1} lines)")
    assert not long, "split these functions: " + "; ".join(long)


def test_the_layout_names_every_module_of_core():
    # the README's layout omitted nine modules (issue 29): docs/how-it-works.md names each, or its folder
    layout = (CORE.parent / "docs" / "how-it-works.md").read_text()
    unnamed = [str(path.relative_to(CORE)) for path in sorted(CORE.rglob("*.py"))
               if path.name not in ("__init__.py", "__main__.py")
               and f"`{path.relative_to(CORE)}`" not in layout and f"`{path.name}`" not in layout
               and f"`{path.parent.relative_to(CORE)}/`" not in layout]
    assert not unnamed, "name these in docs/how-it-works.md: " + ", ".join(unnamed)


def test_the_contributors_guide_names_every_metric_of_the_registry():
    # issue 48: docs/contributing.md listed 9 of the 15 metrics
    from core.metrics.registry import PRIVACY_METRICS, SIGNAL_METRICS

    guide = (CORE.parent / "docs" / "contributing.md").read_text()
    unnamed = [module.__name__.rsplit(".", 1)[1] for module in (*SIGNAL_METRICS, *PRIVACY_METRICS)
               if f"`{module.__name__.rsplit('.', 1)[1]}`" not in guide]
    assert not unnamed, "name these metrics in docs/contributing.md: " + ", ".join(unnamed)
