"""Apps depend one way: core <- members <- promotions <- draws <- proxies <- prizes <- records. A lower app
never imports a higher one (tests and migrations aside), so each layer can be read, tested
and changed without the ones above it."""

import ast
from pathlib import Path

import pytest
from django.conf import settings

LAYERS = ["core", "members", "promotions", "draws", "proxies", "prizes", "records"]


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


# --- What slips past the imports (issue 13) ----------------------------------------------------
#
# A lower app can still reach a higher one without importing it: through a reverse relation a
# higher app's model adds to its models (`draw.nominations`, `series.draws.model`,
# `Count("series__draws")`, `_meta.get_field("draws").related_model`), by loading a higher app's
# template tags in its templates, or through test factories that build a higher app's objects.
# Each higher app answers through a registry the lower one owns (draws.registers,
# promotions.draw_links, core.panels).


def _reverse_names_into_higher_apps(app: str) -> set[str]:
    """The accessor and query names of reverse relations that models of `app` (or below) get
    from the models of apps above `app`."""
    from django.apps import apps

    names = set()
    below = set(LAYERS[: LAYERS.index(app) + 1])
    above = set(LAYERS[LAYERS.index(app) + 1 :])
    for model in apps.get_models():
        if model._meta.app_label not in below:
            continue
        for field in model._meta.get_fields():
            if not (field.auto_created and not field.concrete) or field.related_model is None:
                continue
            if field.related_model._meta.app_label in above:
                names |= {field.get_accessor_name(), field.name}
    return names - {None}


def _names_a_reverse_relation(node: ast.AST, names: set[str]) -> bool:
    """A string such as "draws" (get_field, Count) or "series__draws" (a lookup), not a sentence."""
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or " " in node.value:
        return False
    return bool(names & set(node.value.split("__"))) and (node.value in names or "__" in node.value)


def _reverse_reaches(path: Path, names: set[str]) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in names:
            found.append(f"{node.lineno}: .{node.attr}")
        elif isinstance(node, ast.keyword) and node.arg and node.arg.split("__")[0] in names:
            found.append(f"{node.lineno}: {node.arg}=")
        elif _names_a_reverse_relation(node, names):
            found.append(f"{node.lineno}: {node.value!r}")
    return found


@pytest.mark.parametrize("app", LAYERS[:-1])
def test_an_app_reaches_no_higher_app_through_a_reverse_relation(app):
    names = _reverse_names_into_higher_apps(app)
    offenders = {str(path.relative_to(settings.BASE_DIR)): _reverse_reaches(path, names) for path in _modules(app)}
    assert {path: lines for path, lines in offenders.items() if lines} == {}


def test_the_reverse_relation_check_sees_the_ways_in(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "draw.nominations.live()\n"
        "Count('series__draws')\n"
        "DrawSeries._meta.get_field('draws').related_model\n"
        "Draw.objects.filter(declines__revoked_at=None)\n"
        "print('the draws of the day')\n"
    )
    found = _reverse_reaches(module, {"nominations", "draws", "declines"})
    assert sorted(line.split(":")[0] for line in found) == ["1", "2", "3", "4"]


def _tag_libraries() -> dict[str, str]:
    """Template tag library name -> the app that defines it."""
    return {
        path.stem: app
        for app in LAYERS
        for path in (Path(settings.BASE_DIR) / app / "templatetags").glob("*.py")
        if path.stem != "__init__"
    }


def _loaded_libraries(text: str) -> set[str]:
    import re

    return {name for load in re.findall(r"{%\s*load\s+([^%]+?)\s*%}", text) for name in load.split()}


def _app_templates(app: str):
    for root in (Path(settings.BASE_DIR) / "templates" / app, Path(settings.BASE_DIR) / app / "templates" / app):
        yield from sorted(root.rglob("*.html"))


@pytest.mark.parametrize("app", LAYERS)
def test_a_template_loads_no_higher_apps_tags(app):
    above = set(LAYERS[LAYERS.index(app) + 1 :])
    libraries = _tag_libraries()
    offenders = {
        str(path.relative_to(settings.BASE_DIR)): sorted(
            name for name in _loaded_libraries(path.read_text(encoding="utf-8")) if libraries.get(name) in above
        )
        for path in _app_templates(app)
    }
    assert {path: names for path, names in offenders.items() if names} == {}


def test_the_template_check_sees_a_load():
    assert _loaded_libraries("{% load humanize proxies_tags %}\n{% load formats %}") == {
        "humanize",
        "proxies_tags",
        "formats",
    }
    assert _tag_libraries()["proxies_tags"] == "proxies"


FACTORY_MODULES = ("factories.py", "builders.py")


@pytest.mark.parametrize("app", LAYERS)
def test_test_factories_import_only_the_apps_below_them(app):
    """Factories are what other apps' tests build on: a lower app's factory importing a higher
    app would make every test of the lower app depend on the higher one."""
    above = set(LAYERS[LAYERS.index(app) + 1 :])
    paths = [p for name in FACTORY_MODULES for p in (Path(settings.BASE_DIR) / app / "tests").glob(name)]
    offenders = {str(path.relative_to(settings.BASE_DIR)): sorted(_imported_apps(path) & above) for path in paths}
    assert {path: apps for path, apps in offenders.items() if apps} == {}
