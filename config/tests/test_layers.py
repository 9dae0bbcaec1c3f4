"""Apps depend one way: core <- members <- promotions <- draws <- proxies <- prizes. A lower app
never imports a higher one (tests and migrations aside), so each layer can be read, tested
and changed without the ones above it."""

import ast
from pathlib import Path

import pytest
from django.conf import settings

LAYERS = ["core", "members", "promotions", "draws", "proxies", "prizes"]


def _modules(app: str):
    for path in sorted((Path(settings.BASE_DIR) / app).rglob("*.py")):
        parts = path.relative_to(settings.BASE_DIR).parts
        if "tests" in parts or "migrations" in parts:
            continue
        yield path


def _imported_apps(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(LAYERS)


@pytest.mark.parametrize("app", LAYERS)
def test_an_app_imports_only_the_apps_below_it(app):
    above = set(LAYERS[LAYERS.index(app) + 1 :])
    offenders = {
        str(path.relative_to(settings.BASE_DIR)): sorted(_imported_apps(path) & above) for path in _modules(app)
    }
    assert {path: apps for path, apps in offenders.items() if apps} == {}


def test_the_check_sees_an_upward_import(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from draws.models import Draw\nimport members.models\n")
    assert _imported_apps(module) == {"draws", "members"}
