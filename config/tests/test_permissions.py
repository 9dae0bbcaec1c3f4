"""Every URL of the project, for every role: allowed or forbidden.

A new URL that is not listed in MATRIX fails test_every_url_is_in_the_matrix, so each later
issue has to say who may use its pages.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from conftest import ROLES
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK, STAGE_DISPLAY
from prizes.models import Progressive

EVERYONE = {REWARDS_DESK, PROMOTIONS_MANAGER, CASH_DESK, AUDITOR}
READERS = {REWARDS_DESK, PROMOTIONS_MANAGER, AUDITOR}  # promotions, draws and receipts
NOBODY: set[str] = set()
SIGNED_IN = EVERYONE | {STAGE_DISPLAY}  # the start page and one's own password
STAGE = {PROMOTIONS_MANAGER, AUDITOR, STAGE_DISPLAY}  # the stage screen and tonight's draws

# url name -> (kwargs maker, roles allowed to GET it). Superusers may use every page.
MATRIX = {
    "home": (None, SIGNED_IN),
    "audit": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    "audit_csv": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    "password_change": (None, SIGNED_IN),
    "password_change_done": (None, SIGNED_IN),
    "sign_in_pauses": (None, {PROMOTIONS_MANAGER}),
    "members:lookup": (None, EVERYONE),
    "members:list": (None, EVERYONE),
    "members:edit": (lambda o: {"member_id": o["member"].pk}, {PROMOTIONS_MANAGER, REWARDS_DESK}),
    "members:welcome_slip": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK}),
    "members:import_sample": (lambda o: {"kind": "members"}, {PROMOTIONS_MANAGER}),
    "members:sign_up": (None, {REWARDS_DESK}),
    "members:detail": (lambda o: {"member_id": o["member"].pk}, EVERYONE),
    "members:history": (lambda o: {"member_id": o["member"].pk}, EVERYONE),
    "members:exclusions": (None, {REWARDS_DESK, PROMOTIONS_MANAGER, AUDITOR}),
    "members:exclusion_new": (None, {PROMOTIONS_MANAGER}),
    "members:imports": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    "members:import_detail": (lambda o: {"job_id": o["job"].pk}, {PROMOTIONS_MANAGER, AUDITOR}),
    "members:import_progress": (lambda o: {"job_id": o["job"].pk}, {PROMOTIONS_MANAGER, AUDITOR}),
    "members:import_errors_csv": (lambda o: {"job_id": o["job"].pk}, {PROMOTIONS_MANAGER, AUDITOR}),
    "promotions:list": (None, READERS),
    "promotions:detail": (lambda o: {"promotion_id": o["series"].promotion_id}, READERS),
    "promotions:new": (None, {PROMOTIONS_MANAGER}),
    "promotions:edit": (lambda o: {"promotion_id": o["series"].promotion_id}, {PROMOTIONS_MANAGER}),
    "promotions:series_new": (lambda o: {"promotion_id": o["series"].promotion_id}, {PROMOTIONS_MANAGER}),
    "promotions:series_edit": (lambda o: {"series_id": o["series"].pk}, {PROMOTIONS_MANAGER}),
    "draws:series_schedule": (lambda o: {"series_id": o["series"].pk}, {PROMOTIONS_MANAGER}),
    "draws:list": (None, READERS),
    "draws:detail": (lambda o: {"draw_id": o["draw"].pk}, READERS),
    "draws:run": (lambda o: {"draw_id": o["draw"].pk}, READERS),  # the draw page's polled run
    "draws:move": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER}),
    "draws:cancel": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER}),
    "draws:cancel_many": (None, {PROMOTIONS_MANAGER}),
    "draws:activate": (lambda o: {"draw_id": o["draw"].pk}, {REWARDS_DESK}),
    "draws:receipt": (lambda o: {"activation_id": o["activation"].pk}, READERS),
    "draws:receipt_pdf": (lambda o: {"activation_id": o["activation"].pk}, READERS),
    # The draw record: its files, the verification, the certificate, winners lists.
    **{
        f"draws:{name}": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER, AUDITOR})
        for name in ("record", "record_json", "record_entries", "record_verify", "certificate")
    },
    "draws:promotion_winners": (lambda o: {"promotion_id": o["series"].promotion_id}, {PROMOTIONS_MANAGER, AUDITOR}),
    "draws:promotion_winners_csv": (
        lambda o: {"promotion_id": o["series"].promotion_id},
        {PROMOTIONS_MANAGER, AUDITOR},
    ),
    # A RAPS session's list (the matrix's electronic draw gets the page saying it is not one).
    "draws:raps_upload": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER}),
    "draws:raps_sample": (None, {PROMOTIONS_MANAGER}),
    # Draw night (issue 13): the big screen follows a draw; the evening's draws.
    "draws:tonight": (None, STAGE),
    "draws:stage": (lambda o: {"draw_id": o["draw"].pk}, STAGE),
    "draws:stage_state": (lambda o: {"draw_id": o["draw"].pk}, STAGE),
    # Progressive jackpots (issue 14): read-only, for managers and auditors.
    "prizes:progressives": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    "prizes:progressive": (lambda o: {"progressive_id": o["progressive"].pk}, {PROMOTIONS_MANAGER, AUDITOR}),
    "proxies:member_nominate": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK}),
    "proxies:member_decline": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK}),
    # Steps 2 and 3 of a nomination; with no details filled in yet (BOUNCE) they send the desk back to step 1.
    "proxies:nominate_sign": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK}),
    "proxies:nominate_form_pdf": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK}),
    "proxies:nomination": (lambda o: {"nomination_id": o["nomination"].pk}, {REWARDS_DESK}),
    "proxies:nomination_pdf": (lambda o: {"nomination_id": o["nomination"].pk}, {REWARDS_DESK}),
    "proxies:draw_register": (lambda o: {"draw_id": o["draw"].pk}, READERS),
    # Prizes (issue 14): boards filled in by managers, read by auditors; the prize record.
    "prizes:series_boards": (lambda o: {"series_id": o["series"].pk}, {PROMOTIONS_MANAGER, AUDITOR}),
    "prizes:board": (lambda o: {"board_id": o["board"].pk}, {PROMOTIONS_MANAGER, AUDITOR}),
    # The desk and the cash desk see it for the winners' letters (issue 15).
    "prizes:draw": (lambda o: {"draw_id": o["draw"].pk}, EVERYONE),
    "prizes:record": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    # A manager's forms: a board's new prize, a vault draw's jackpots (GH r9), a jackpot back to base.
    "prizes:board_slot_add": (lambda o: {"board_id": o["board"].pk}, {PROMOTIONS_MANAGER}),
    "prizes:vault": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER}),
    "prizes:progressive_reset": (lambda o: {"progressive_id": o["progressive"].pk}, {PROMOTIONS_MANAGER}),
    "prizes:record_csv": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    # The correction form (the matrix's line is of a running draw: the form, or why not).
    "prizes:reverse": (lambda o: {"line_id": o["prize_line"].pk}, {PROMOTIONS_MANAGER}),
    # Prize letters (issue 15): the desk issues (the matrix's draw is not complete: the form's
    # refusal), everyone reads a letter, a manager voids or reissues.
    "prizes:letter_issue": (lambda o: {"pick_id": o["prize_line"].pick_id}, {REWARDS_DESK}),
    "prizes:letter": (lambda o: {"letter_id": o["letter"].pk}, EVERYONE),
    "prizes:letter_void": (lambda o: {"letter_id": o["letter"].pk}, {PROMOTIONS_MANAGER}),
    # The cash desk (issue 15, items 6 and 9): cashiers pay; the desk, managers and auditors read.
    "prizes:cash_desk": (None, EVERYONE),
    "prizes:cash_desk_letter": (lambda o: {"letter_id": o["letter"].pk}, EVERYONE),
    # The letters' reports (issue 15, item 10): managers and auditors all; the desk its winners
    # still to collect; the cash desk its payouts of the day.
    "prizes:letter_report": (None, {PROMOTIONS_MANAGER, AUDITOR}),
    "prizes:uncollected": (None, {REWARDS_DESK, PROMOTIONS_MANAGER, AUDITOR}),
    "prizes:payout_summary": (None, {CASH_DESK, PROMOTIONS_MANAGER, AUDITOR}),
    # Its PDF (item 5): read by all four; the matrix's letter is not rendered yet (BOUNCE: back
    # to its page); its state polled; a draw's letters' progress bar.
    "prizes:letter_pdf": (lambda o: {"letter_id": o["letter"].pk}, EVERYONE),
    "prizes:letter_pdf_state": (lambda o: {"letter_id": o["letter"].pk}, EVERYONE),
    "prizes:draw_letters_progress": (lambda o: {"draw_id": o["draw"].pk}, EVERYONE),
    # Record packs (issue 16): managers and auditors; the matrix's pack is queued (its files
    # not built: BOUNCE, back to the promotion page).
    **{
        f"records:{name}": (lambda o: {"pack_id": o["record_pack"].pk}, {PROMOTIONS_MANAGER, AUDITOR})
        for name in ("pack_progress", "pack_zip", "pack_pdf")
    },
    # A member's own record (POPIA s23): the desk and managers print it for the member in person;
    # auditors read its audit event only (issue 16).
    "records:member_record": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK, PROMOTIONS_MANAGER}),
}
# POST-only actions: (kwargs maker, roles allowed).
POST_MATRIX = {
    "members:exclusion_end": (lambda o: {"exclusion_id": o["exclusion"].pk}, {PROMOTIONS_MANAGER}),
    # Posted empty: refused with the reason (nothing unlocked), back to the list.
    "sign_in_unlock": (lambda o: {}, {PROMOTIONS_MANAGER}),
    "draws:standing_refresh": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER}),
    # Running a draw; posted empty: refused with the reason (nothing changes), back to the draw.
    **{
        f"draws:{name}": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER})
        for name in ("start", "witness", "outcome", "key_serial", "end_short", "resume")
    },
    # Posted without a reason: refused on the form (nothing revoked), redirected for the desk.
    "proxies:nomination_revoke": (lambda o: {"nomination_id": o["nomination"].pk}, {REWARDS_DESK}),
    # A board's row buttons; posted empty: refused with the reason, back to the board.
    "prizes:board_slot_change": (lambda o: {"board_id": o["board"].pk}, {PROMOTIONS_MANAGER}),
    "proxies:decline_revoke": (lambda o: {"registration_id": o["decline"].pk}, {REWARDS_DESK}),
    # Paid at the device (RF r14, r29); the matrix's series pays by letter: refused, back to the draw.
    "prizes:device_payout": (lambda o: {"line_id": o["prize_line"].pk}, {PROMOTIONS_MANAGER}),
    # A letter's payout; posted empty: refused with the reason (nothing paid), back to the letter.
    "prizes:cash_desk_pay": (lambda o: {"letter_id": o["letter"].pk}, {CASH_DESK}),
    # A letter's PDF rendered again, a draw's letters as a batch: the desk and managers; the
    # matrix's letter is waiting for the worker (refused with the reason), back to its page.
    "prizes:letter_render": (lambda o: {"letter_id": o["letter"].pk}, {REWARDS_DESK, PROMOTIONS_MANAGER}),
    "prizes:draw_letters_render": (lambda o: {"draw_id": o["draw"].pk}, {REWARDS_DESK, PROMOTIONS_MANAGER}),
    # The proxy's swipe on the nomination form; posted empty: the piece of page saying so (200).
    "proxies:nominee_lookup": (lambda o: {"member_id": o["member"].pk}, {REWARDS_DESK}),
    # The stage game's buttons; posted empty: refused with the reason (no pick), back to the draw.
    **{
        f"prizes:{name}": (lambda o: {"draw_id": o["draw"].pk}, {PROMOTIONS_MANAGER})
        for name in ("game_event", "game_finish", "wild_card_bin")
    },
    # A pack asked for (the matrix's promotion has one queued: refused with the reason, back to it).
    "records:pack_request": (lambda o: {"promotion_id": o["series"].promotion_id}, {PROMOTIONS_MANAGER, AUDITOR}),
}
# Allowed, but answered otherwise than the usual 200 (GET) or 302 (POST).
# GET: 302, nothing to sign yet; a letter's PDF not rendered yet: back to the letter's page.
BOUNCE = {
    "proxies:nominate_sign",
    "proxies:nominate_form_pdf",
    "prizes:letter_pdf",
    "records:pack_zip",
    "records:pack_pdf",
}
POST_ANSWERS = {"proxies:nominee_lookup": 200}
# Served outside the role system: the login page, logout, and Django's admin (staff only).
OUTSIDE = {"login", "logout"}
# The machine API: device tokens, never a staff session (draws/tests/test_api.py).
DEVICE_API = {"api:activate", "api:activity", "api:api-root", "api:open_draws"}
# No sign-in at all: the API's description, and the health check (core/tests/test_health.py).
PUBLIC = {"api:openapi-json", "healthz"}


def _project_url_names(resolver=None, namespace=""):
    resolver = resolver or get_resolver()
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            if pattern.app_name == "admin":
                continue
            child_ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            yield from _project_url_names(pattern, child_ns)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}{pattern.name}"


@pytest.fixture
def objects(db, reference_data, user_for):
    import datetime as dt

    import time_machine
    from django.utils import timezone

    from core.audit import Actor
    from draws.services import activation_create
    from draws.tests.factories import make_draw
    from members.models import ImportJob
    from members.tests.factories import ExclusionFactory, MemberFactory, PointsEntryFactory
    from promotions.tests.factories import make_series
    from proxies.tests.factories import decline, nominate

    # Pinned for the whole test: the draw must fall inside the test promotion's dates (2025 to 2027).
    with time_machine.travel(dt.datetime(2026, 3, 4, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), tick=False):
        member = MemberFactory(card_number="6000000001")
        PointsEntryFactory(member=member, points=500)
        draw = make_draw(
            make_series(windows=[{"day": -1, "open": "00:00", "close_before": 5}]),
            timezone.now() + dt.timedelta(hours=2),
        )
        activation = activation_create(
            actor=Actor.system("test"), draw_id=draw.pk, card_number="6000000001", channel="ehost"
        )
        # 10:00 on the draw day: inside its proxy window (08:00 to 11:45) and its decline window.
        nomination = nominate(participant=member, draw=draw, now=timezone.now())
        registration = decline(member=member, draw=draw, now=timezone.now())
        yield {
            "member": member,
            "nomination": nomination,
            "decline": registration,
            "draw": draw,
            "series": draw.series,
            "activation": activation,
            "job": ImportJob.objects.create(kind="points", original_name="p.csv", file="imports/p.csv"),
            "exclusion": ExclusionFactory(recorded_by=user_for(PROMOTIONS_MANAGER)),
            "actor": Actor.system("test"),
            "progressive": Progressive.objects.create(
                promotion=draw.series.promotion, series=draw.series, code="safe", name="Safe", base_cents=100
            ),
            **_prize_objects(draw.series),
            "record_pack": _record_pack(draw.series.promotion),
            # After the prize objects: a vault jackpot holds its series' draws at the Start.
            "vault": Progressive.objects.create(
                promotion=draw.series.promotion,
                series=draw.series,
                code=f"gh-vault-{draw.series.eligible_tiers.first().code.lower()}",
                name="Vault jackpot",
                base_cents=0,
            ),
        }


def _prize_objects(series) -> dict:
    """A prize board of the series and a prize line of another draw, run to its first winner."""
    import datetime as dt

    import time_machine

    from draws.engine import draw_start, pick_outcome_record
    from draws.models import DrawPick
    from draws.tests.builders import MANAGER, closed_draw, sast
    from prizes.lines import LineKind, LineSource, LineSpec
    from prizes.services import SlotDef, board_create, prize_lines_store

    board = board_create(actor=MANAGER, series=series, game="podium", slots=[SlotDef("Podium 1", 100_000)])
    at = sast(2026, 3, 2, 12, 0)
    with time_machine.travel(at + dt.timedelta(minutes=1), tick=False):
        ran, _ = closed_draw(series, at, [3, 4])
        draw_start(actor=MANAGER, draw_id=ran.pk, witness_name="T. Nkosi")
        pick = DrawPick.objects.get(draw=ran, outcome="")
        pick_outcome_record(actor=MANAGER, draw_id=ran.pk, pick_id=pick.pk, outcome="present", id_type_seen="sa_id")
        spec = LineSpec(LineKind.CASH, 100_000, LineSource.BOARD, "Podium 1")
        [line] = prize_lines_store(actor=MANAGER, draw=ran, pick=pick, specs=[spec])
    from prizes.models import PrizeLetter

    letter = PrizeLetter.objects.create(
        number="GRC-26-000001",
        draw=ran,
        pick=pick,
        member=pick.member,
        property=ran.property,
        collection_place="the Cash Desk, Gold Reef City",
        issued_at=at,
        issued_by="desk",
        id_type_seen="sa_id",
        expires_at=at + dt.timedelta(days=16),
        code="0" * 64,
    )
    return {"board": board, "prize_line": line, "letter": letter}


def _record_pack(promotion):
    """A pack asked for and waiting for its worker (no task is sent: the test runs no worker)."""
    from django.utils import timezone

    from records.models import RecordPack

    now = timezone.now()
    return RecordPack.objects.create(promotion=promotion, requested_at=now, queued_at=now, requested_by="manager")


def test_every_url_is_in_the_matrix():
    names = set(_project_url_names())
    assert names, "no URLs found"
    unlisted = names - set(MATRIX) - set(POST_MATRIX) - OUTSIDE - DEVICE_API - PUBLIC
    assert not unlisted, f"add these URLs to the permission matrix: {sorted(unlisted)}"


def test_public_urls_answer_without_signing_in(client, db):
    for name in PUBLIC:
        response = client.get(reverse(name))
        # /healthz is 503 here (no tick has run): an answer all the same, not the sign-in page.
        assert response.status_code in (200, 503) and "Location" not in response, name


@pytest.mark.parametrize("role", [*ROLES, STAGE_DISPLAY, "superuser", None])
def test_each_role_gets_exactly_its_pages(role, client_for, client, objects):
    http = client_for(role) if role else client
    for name, (kwargs, allowed) in MATRIX.items():
        url = reverse(name, kwargs=kwargs(objects) if kwargs else None)
        response = http.get(url)
        if role is None:
            assert response.status_code == 302 and "/accounts/login/" in response["Location"], name
        elif role == "superuser" or role in allowed:
            expected = 302 if name in BOUNCE else 200
            assert response.status_code == expected, f"{role} should open {name}, got {response.status_code}"
        else:
            assert response.status_code == 403, f"{role} must not open {name}, got {response.status_code}"


@pytest.mark.parametrize("role", [*ROLES, STAGE_DISPLAY])
def test_each_role_may_post_only_its_actions(role, client_for, objects):
    http = client_for(role)
    for name, (kwargs, allowed) in POST_MATRIX.items():
        response = http.post(reverse(name, kwargs=kwargs(objects)))
        expected = POST_ANSWERS.get(name, 302) if role in allowed else 403
        assert response.status_code == expected, f"{role} POST {name}: {response.status_code}"


@pytest.mark.parametrize(
    ("role", "visible", "hidden"),
    [
        (
            REWARDS_DESK,
            ["Member lookup", "Sign up a guest", "Exclusions", "Draws", "Prizes"],
            ["Imports", "Audit log", "Cash desk"],
        ),
        (
            PROMOTIONS_MANAGER,
            ["Member lookup", "Exclusions", "Imports", "Audit log", "Prizes"],
            ["Sign up a guest"],
        ),
        (
            CASH_DESK,
            ["Member lookup", "Cash desk"],
            ["Sign up a guest", "Exclusions", "Imports", "Audit log", "Draws", "Prizes"],
        ),
        (AUDITOR, ["Member lookup", "Exclusions", "Imports", "Audit log", "Prizes"], ["Sign up a guest"]),
        (STAGE_DISPLAY, ["Tonight"], ["Member lookup", "Draws", "Exclusions", "Audit log", "Sign up a guest"]),
    ],
)
def test_navigation_shows_each_role_only_its_pages(role, visible, hidden, client_for):
    nav = client_for(role).get(reverse("home")).context["nav_items"]
    labels = [item["label"] for item in nav]
    assert all(label in labels for label in visible), labels
    assert not any(label in labels for label in hidden), labels


def test_the_auditor_cannot_upload_an_import(auditor, reference_data):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("p.csv", b"card_number,property,earned_at,points,reference\n")
    response = auditor.post(reverse("members:imports"), {"kind": "points", "file": upload})
    assert response.status_code == 403


@pytest.mark.parametrize("role", [*ROLES, "superuser"])
def test_a_staff_login_does_not_open_the_device_api(role, client_for, objects):
    response = client_for(role).get(reverse("api:open_draws", kwargs={"card_number": objects["member"].card_number}))
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("role", "page"),
    [
        (PROMOTIONS_MANAGER, "prizes:letter_report"),
        (AUDITOR, "prizes:letter_report"),
        (REWARDS_DESK, "prizes:uncollected"),
    ],
)
def test_the_prizes_link_opens_the_first_report_the_role_may_read(role, page, client_for):
    nav = client_for(role).get(reverse("home")).context["nav_items"]
    assert [item["url"] for item in nav if item["label"] == "Prizes"] == [reverse(page)]


@pytest.mark.parametrize("role", [CASH_DESK, "superuser"])
def test_a_cashier_s_prizes_place_in_the_menu_is_the_cash_desk_which_links_the_days_payouts(role, client_for):
    """One place in the row for the prize pages (it must fit 1024 px): a user who pays has the cash
    desk there, and the cash desk links the payouts of the day."""
    client = client_for(role)
    nav = client.get(reverse("home")).context["nav_items"]
    assert [item["label"] for item in nav if item["url"].startswith("/prizes/")] == ["Cash desk"]
    page = client.get(reverse("prizes:cash_desk")).content.decode()
    assert f'href="{reverse("prizes:payout_summary")}"' in page


def test_one_navigation_link_is_active_the_longest_the_page_is_under(manager):
    nav = manager.get(reverse("members:imports")).context["nav_items"]
    assert [item["label"] for item in nav if item["active"]] == ["Imports"]
    nav = manager.get(reverse("members:lookup")).context["nav_items"]
    assert [item["label"] for item in nav if item["active"]] == ["Member lookup"]


# --- Properties (issue 12): the desk and managers act only at their own properties ------------
#
# Every POST that changes something of a property's draw, for the role that may post it, with a
# form the view accepts: a user of that role at ANOTHER property (Montecasino; the fixture's
# draw is at Gold Reef City) gets the plain refusal and nothing changes; one at Gold Reef City
# gets past that check (whatever the draw's state then says). (url name, kwargs maker, role, data)
OWN_TEAM = "by its own team"  # the end of members.staff's refusal
PROPERTY_POSTS = [
    ("draws:activate", lambda o: {"draw_id": o["draw"].pk}, REWARDS_DESK, lambda o: {"card": o["queen"].card_number}),
    (
        "draws:move",
        lambda o: {"draw_id": o["draw"].pk},
        PROMOTIONS_MANAGER,
        lambda o: {"scheduled_at": "2026-03-05T12:00", "reason": "The stage is booked."},
    ),
    ("draws:cancel", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {"reason": "Venue closed."}),
    ("draws:cancel_many", None, PROMOTIONS_MANAGER, lambda o: {"draw": [o["draw"].pk], "reason": "Venue closed."}),
    ("draws:standing_refresh", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {}),
    ("draws:start", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {"witness_name": "T. Nkosi"}),
    ("draws:witness", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {"witness_name": "T. Nkosi"}),
    (
        "draws:outcome",
        lambda o: {"draw_id": o["draw"].pk},
        PROMOTIONS_MANAGER,
        lambda o: {"pick": 1, "outcome": "present", "id_type_seen": "sa_id"},
    ),
    ("draws:key_serial", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {"serial": "1"}),
    ("draws:end_short", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {"reason": "Bin empty."}),
    ("draws:resume", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {}),
    ("prizes:wild_card_bin", lambda o: {"draw_id": o["draw"].pk}, PROMOTIONS_MANAGER, lambda o: {"bin_number": "3"}),
    (
        "proxies:nomination_revoke",
        lambda o: {"nomination_id": o["nomination"].pk},
        REWARDS_DESK,
        lambda o: {"reason": "Participant will attend."},
    ),
    (
        "proxies:decline_revoke",
        lambda o: {"registration_id": o["decline"].pk},
        REWARDS_DESK,
        lambda o: {"reason": "Will attend after all.", "card": o["decline"].member.card_number},
    ),
]


def _state(objects) -> tuple:
    """What any of the posts above would change: the audit log, the draw, its tickets, its registers."""
    from core.models import AuditEvent
    from draws.models import Activation, Draw
    from proxies.models import DeclineRegistration, ProxyNomination

    draw = objects["draw"]
    return (
        AuditEvent.objects.count(),
        Draw.objects.filter(pk=draw.pk).values().get(),
        Activation.objects.filter(draw=draw).count(),
        list(ProxyNomination.objects.filter(draw=draw).values_list("revoked_at", flat=True)),
        list(DeclineRegistration.objects.filter(draw=draw).values_list("revoked_at", flat=True)),
        getattr(Draw.objects.get(pk=draw.pk), "standing", None) and Draw.objects.get(pk=draw.pk).standing.requested_at,
    )


@pytest.fixture
def queen(objects):
    """A Queen member with points at the draw's casino: the desk may print their tickets."""
    from members.models import Tier
    from members.tests.factories import MemberFactory, PointsEntryFactory

    member = MemberFactory(card_number="6000000002", tier=Tier.objects.get(code="QUEEN"))
    PointsEntryFactory(member=member, points=500)
    return member


@pytest.mark.parametrize(("name", "kwargs", "role", "data"), PROPERTY_POSTS, ids=[row[0] for row in PROPERTY_POSTS])
def test_staff_of_another_property_are_refused_and_nothing_changes(name, kwargs, role, data, objects, queen, user_for):
    from django.test import Client

    objects["queen"] = queen
    url = reverse(name, kwargs=kwargs(objects) if kwargs else None)
    elsewhere = Client()
    elsewhere.force_login(user_for(role, properties=["MC"]))
    before = _state(objects)
    page = elsewhere.post(url, data(objects), follow=True)
    assert page.status_code == 200, name
    assert "You work at Montecasino: " in page.content.decode() and OWN_TEAM in page.content.decode(), name
    assert _state(objects) == before, f"{name} changed something for staff of another property"

    here = Client()
    here.force_login(user_for(role, properties=["GRC"]))
    page = here.post(url, data(objects), follow=True)
    assert page.status_code == 200 and OWN_TEAM not in page.content.decode(), name


def test_every_property_post_is_a_known_action():
    """The table names only real POST actions of the matrix above (a rename fails here)."""
    posts = {name for name, *_ in PROPERTY_POSTS}
    assert posts <= set(MATRIX) | set(POST_MATRIX)
    # Every run action and both register revocations are in it (not the proxy's lookup: it changes nothing).
    assert {n for n in POST_MATRIX if n.startswith(("draws:", "proxies:"))} - set(POST_ANSWERS) <= posts
