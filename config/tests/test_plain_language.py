"""Every page, opened as each role, speaks plain language (SCREENS.md rule 3): no audit action
codes ("member.signed_up"), no error codes ("already_activated"), no constraint names, no
"Enter a valid JSON", no Python reprs or JSON in what a person reads.

The pages and their objects are test_permissions' (MATRIX and its `objects` fixture), so a new
page is walked as soon as it is in the permission matrix.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from config.tests.test_permissions import MATRIX, objects  # noqa: F401 (the fixture)
from conftest import ROLES
from core.models import AuditEvent
from core.roles import STAGE_DISPLAY

APPS = ["core", "members", "promotions", "draws", "proxies", "prizes", "records", "config"]
# What a person must never read, in the page's visible text.
JARGON = [
    ("a constraint name", re.compile(r"Constraint “|violates .* constraint|IntegrityError")),
    ("a JSON form error", re.compile(r"Enter a valid JSON")),
    ("a Python repr", re.compile(r"\{'|\[\{'|\['|<QuerySet|<[A-Z][A-Za-z]+: |datetime\.(datetime|date)\(|Decimal\('")),
    ("JSON", re.compile(r"\{\"[a-z_]+\":")),
    ("a stack trace", re.compile(r"Traceback \(most recent call last\)")),
]
# A whole element that says only None (or True/False): a Python value printed as it is.
BARE_VALUE = re.compile(r">\s*(None|True|False)\s*</")


def source_codes() -> set[str]:
    """The audit action codes ("draw.moved") and error codes ("already_activated") in the code."""
    found = set()
    for app in APPS:
        for path in (Path(settings.BASE_DIR) / app).rglob("*.py"):
            if "tests" in path.parts or "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            found |= set(re.findall(r'action="([a-z_]+\.[a-z_]+)"', text))
            found |= set(re.findall(r'code="([a-z]+_[a-z_]+)"', text))
    return found


class _Text(HTMLParser):
    """The text a person reads: no tags, attributes, scripts or styles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(parser.parts)


def problems_in(html: str, codes: set[str]) -> list[str]:
    text = visible_text(html)
    found = [f"{label}: {match.group(0)!r}" for label, pattern in JARGON if (match := pattern.search(text))]
    found += [f"a bare Python value: {match.group(0)!r}" for match in [BARE_VALUE.search(html)] if match]
    words = set(re.findall(r"\b[a-z_]+(?:\.[a-z_]+)?\b", text))
    found += [f"a code: {code!r}" for code in sorted(words & codes)]
    return found


def test_the_check_finds_each_kind_of_jargon():
    codes = {"member.signed_up", "already_activated"}
    html = (
        "<p>member.signed_up by x</p><p>Refused: already_activated</p><p>Constraint “promotion_dates” is violated.</p>"
        "<p>Enter a valid JSON.</p><p>[{&#x27;day&#x27;: 0}]</p><td>None</td><p>&lt;QuerySet []&gt;</p>"
    )
    found = problems_in(html, codes)
    assert len(found) == 6, found
    clean = '<option value="member.signed_up">Member signed up</option><script>x={"a":1}</script><p>None of them</p>'
    assert problems_in(clean, codes) == []


HTML_PAGES = {
    name: spec for name, spec in MATRIX.items() if not name.endswith(("_csv", "_pdf", "_json")) and "pdf" not in name
}


@pytest.mark.parametrize("role", [*ROLES, STAGE_DISPLAY, "superuser"])
def test_every_page_speaks_plain_language(role, client_for, objects):  # noqa: F811
    http = client_for(role)
    codes = source_codes() | set(AuditEvent.objects.values_list("action", flat=True))
    failures = {}
    for name, (kwargs, allowed) in HTML_PAGES.items():
        if role != "superuser" and role not in allowed:
            continue
        response = http.get(reverse(name, kwargs=kwargs(objects) if kwargs else None))
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        if found := problems_in(response.content.decode(), codes):
            failures[name] = found
    report = "\n".join(f"{name}: {'; '.join(found)}" for name, found in failures.items())
    assert not failures, f"pages with jargon, as {role}:\n{report}"
