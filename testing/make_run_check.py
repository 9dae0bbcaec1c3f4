"""What `make run` serves, checked on its zero-setup SQLite after its own setup steps ran
(config/tests/test_make_run_sqlite.py runs this in a process of its own with the development
settings): every demo user's pages that the home page leads to answer without a server error,
and a kiosk reads a member's open draws and activates their tickets through the device API.

    python -m testing.make_run_check PAGES    # at most PAGES pages per user; prints one JSON line
"""

import datetime as dt
import json
import os
import re
import sys

SKIPPED = ("logout", "/static/", "/admin/", "export", ".pdf", "download", "/media/")


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def crawl(pages: int) -> tuple[dict[str, int], list[str]]:
    """Each user's pages reached by links from the home page (at most `pages` each): how many
    were read, and every one that answered 500 or raised."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    read, errors = {}, []
    for user in get_user_model().objects.order_by("username"):
        client = Client(raise_request_exception=False, HTTP_HOST="127.0.0.1")
        client.force_login(user)
        seen, queue = set(), ["/"]
        while queue and len(seen) < pages:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            response = client.get(url)
            if response.status_code >= 500:
                errors.append(f"{user.username} GET {url}: {response.status_code}")
            elif response.status_code == 200 and "html" in response.get("Content-Type", ""):
                for href in re.findall(r'href="(/[^"#]*)"', response.content.decode(errors="replace")):
                    if not any(part in href for part in SKIPPED):
                        queue.append(href.replace("&amp;", "&"))
        read[user.username] = len(seen)
    return read, errors


def kiosk() -> dict:
    """A draw of a demo series with its window open now, an eHost's token, and one member's read,
    activation and second activation through the API."""
    from django.test import Client
    from django.utils import timezone

    from core.audit import Actor
    from core.errors import DomainError
    from draws.allocation import draw_allocations
    from draws.services import device_token_create, draw_schedule
    from members.models import Member
    from promotions.models import DrawSeries

    actor = Actor.system("make-run-check")
    now = timezone.now()
    at = (now + dt.timedelta(hours=2)).replace(second=0, microsecond=0)
    windows = [(now - dt.timedelta(minutes=5), at - dt.timedelta(minutes=30))]
    draw = None
    for series in DrawSeries.objects.filter(promotion__status="published").order_by("pk"):
        try:  # the first demo series whose promotion runs today
            draw = draw_schedule(actor=actor, series=series, scheduled_at=at, name="make run check", windows=windows)
            break
        except DomainError:
            continue
    if draw is None:
        return {"error": "no demo series takes a draw today (seed_demo_draws keeps one running)"}
    holder = next((a for a in draw_allocations(draw, at=now) if a.tickets > 0), None)
    if holder is None:
        return {"error": f"no member holds tickets for {draw.name} (seed_demo gives members points)"}
    card = Member.objects.get(pk=holder.member_id).card_number
    _device, token = device_token_create(actor=actor, prop=draw.property, name="make-run-check")
    client = Client(headers={"Authorization": f"Bearer {token}"}, HTTP_HOST="127.0.0.1")
    read = client.get(f"/api/v1/members/{card}/draws")
    body = json.dumps({"draw_id": draw.pk, "card_number": card})
    first = client.post("/api/v1/activations", data=body, content_type="application/json")
    again = client.post("/api/v1/activations", data=body, content_type="application/json")
    offered = [row for row in read.json() if row["draw_id"] == draw.pk] if read.status_code == 200 else []
    return {
        "read": read.status_code,
        "offered": offered[0]["tickets_available"] if offered else None,
        "tickets": holder.tickets,
        "activation": first.status_code,
        "activated": first.json().get("tickets") if first.status_code == 201 else first.content.decode()[:300],
        "again": again.json().get("code") if again.status_code < 500 else again.status_code,
    }


def main() -> None:
    _setup()
    read, errors = crawl(int(sys.argv[1]))
    print(json.dumps({"pages": read, "errors": errors, "kiosk": kiosk()}))


if __name__ == "__main__":
    main()
