"""The draw record pages: managers and auditors read the record, download its files, verify it,
print the certificate and the promotion's winners; the desk does not."""

import csv
import io
import json
import re

import pytest
from django.conf import settings
from django.urls import reverse

from draws.models import PickOutcome
from draws.record import draw_record_files
from draws.tests.builders import pin_seed
from draws.tests.record_helpers import CONDUCTOR, WITNESS, at, closed_draw, complete, electronic_picks, start
from proxies.tests.factories import decline_on_record, nomination_on_record
from testing.pdf import pdf_fonts, pdf_pages, pdf_text

pytestmark = pytest.mark.django_db

DISQUALIFIED = (PickOutcome.DISQUALIFIED, "Card not his: his brother's")
STAGE = [PickOutcome.NO_SHOW, PickOutcome.PRESENT, DISQUALIFIED, PickOutcome.PROXY_PRESENT, PickOutcome.DECLINED]


@pytest.fixture
def running(reference_data):
    draw = closed_draw(reference_data)
    # Five different members for the five outcomes: a no-show picked again and then declined
    # would be a decliner's no-show, which Verify rightly refuses.
    pin_seed(draw, different_owners(draw), picks=len(STAGE))
    draw = start(draw)
    for pick in electronic_picks(draw, STAGE):  # the registers the stage's outcomes rest on
        if pick.outcome == PickOutcome.PROXY_PRESENT:
            nomination_on_record(draw=draw, member=pick.member, at=at(10, 0))
        elif pick.outcome == PickOutcome.DECLINED:
            decline_on_record(draw=draw, member=pick.member, at=at(10, 5))
    return draw


def different_owners(draw):
    ranges = list(draw.activations.values_list("first_serial", "last_serial", "member_id"))

    def wanted(serials) -> bool:
        owners = [next(member for first, last, member in ranges if first <= serial <= last) for serial in serials]
        return len(set(owners)) == len(owners)

    return wanted


@pytest.fixture
def drawn(running):
    return complete(running)


@pytest.mark.parametrize("name", ["record", "record_json", "record_entries", "record_verify", "certificate"])
def test_managers_and_auditors_read_the_record_and_the_desk_does_not(name, drawn, manager, auditor, desk, cashier):
    url = reverse(f"draws:{name}", kwargs={"draw_id": drawn.pk})
    assert manager.get(url).status_code == 200
    assert auditor.get(url).status_code == 200
    assert desk.get(url).status_code == 403
    assert cashier.get(url).status_code == 403


def test_the_record_page_shows_hashes_picks_conductor_and_witness(drawn, auditor):
    page = auditor.get(reverse("draws:record", kwargs={"draw_id": drawn.pk})).content.decode()
    assert drawn.entries_sha256 in page and drawn.seed_sha256 in page
    assert f'id="seed">{drawn.seed_hex}<' in page
    assert CONDUCTOR in page and WITNESS in page
    assert "Disqualified: redraw" in page and "Card not his: his brother&#x27;s" in page
    assert "No-show: redraw" in page and "Proxy present: a winner" in page
    assert page.count('class="table-success"') == 3  # the three winners


def test_the_seed_stays_secret_on_the_page_until_the_draw_is_complete(running, manager):
    page = manager.get(reverse("draws:record", kwargs={"draw_id": running.pk})).content.decode()
    assert running.seed_hex not in page
    assert "revealed when the draw is complete" in page


def test_a_draw_that_ended_short_says_why(running, manager):
    complete(running, ended_short="The casino closed at midnight.")
    page = manager.get(reverse("draws:record", kwargs={"draw_id": running.pk})).content.decode()
    assert "The casino closed at midnight." in page


def test_the_record_page_reads_a_bounded_number_of_queries(drawn, manager, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        manager.get(reverse("draws:record", kwargs={"draw_id": drawn.pk}))


def test_the_downloads_are_exactly_the_files_of_the_export(drawn, auditor):
    files = draw_record_files(drawn)
    record = auditor.get(reverse("draws:record_json", kwargs={"draw_id": drawn.pk}))
    entries = auditor.get(reverse("draws:record_entries", kwargs={"draw_id": drawn.pk}))
    assert record.content == files.json
    assert entries.streaming and b"".join(entries.streaming_content) == files.entries  # streamed, in chunks
    assert record["Content-Disposition"] == f'attachment; filename="draw-{drawn.pk}.json"'
    assert entries["Content-Disposition"] == f'attachment; filename="draw-{drawn.pk}-entries.csv"'


def test_verify_shows_every_pick_holding(drawn, auditor):
    response = auditor.get(reverse("draws:record_verify", kwargs={"draw_id": drawn.pk}))
    page = response.content.decode()
    assert "Every check holds: the record is consistent." in page
    picks = len(json.loads(draw_record_files(drawn).json)["picks"])
    assert all(f"<th>Pick {n}</th>" in page for n in range(1, picks + 1))
    assert "DOES NOT HOLD" not in page


def test_verify_by_post_as_the_button_may_send_it(drawn, auditor):
    response = auditor.post(reverse("draws:record_verify", kwargs={"draw_id": drawn.pk}))
    assert response.status_code == 200 and response.context["report"].holds


def test_verify_of_a_running_draw_says_it_is_not_fully_verified(running, auditor):
    page = auditor.get(reverse("draws:record_verify", kwargs={"draw_id": running.pk})).content.decode()
    assert "Not fully verified: the seed is not revealed yet" in page
    assert "not verified yet" in page and "DOES NOT HOLD" not in page


def test_the_certificate_carries_the_hashes_the_seed_and_the_masked_winners(drawn, manager):
    response = manager.get(reverse("draws:certificate", kwargs={"draw_id": drawn.pk}))
    assert response["Content-Type"] == "application/pdf"
    text = pdf_text(response.content)
    flat = re.sub(r"\s+", "", text)  # a hash may wrap across lines
    assert drawn.entries_sha256 in flat and drawn.seed_sha256 in flat and drawn.seed_hex in flat
    winners = [pick for pick in drawn.picks.select_related("member").order_by("seq") if pick.is_winner()]
    assert len(winners) == 3
    for pick in winners:
        assert f"******{pick.card_number[-4:]}" in text
        assert pick.card_number not in flat  # never the whole card number
        assert f"Naledi {pick.member.last_name[0]}." in text
        assert pick.member.last_name not in text  # never the surname
    assert "Witness: " + WITNESS in text and "Conducted by: " + CONDUCTOR in text
    # One sheet: the pick list grows with the automatic redraws this seed happens to make.
    assert len(pdf_pages(response.content)) <= 2
    # The project's fonts (static/css/pdf_fonts.css): the hashes in Desk Mono.
    assert pdf_fonts(response.content) == {"Desk-Sans", "Desk-Sans-Bold", "Desk-Mono"}


def test_the_certificate_of_a_running_draw_keeps_the_seed_for_later(running, manager):
    text = pdf_text(manager.get(reverse("draws:certificate", kwargs={"draw_id": running.pk})).content)
    assert "revealed on completion" in text
    assert running.seed_hex not in re.sub(r"\s+", "", text)


def test_the_promotion_winners_page_and_csv_list_every_winning_pick(drawn, manager, auditor, desk):
    promotion_id = drawn.series.promotion_id
    page_url = reverse("draws:promotion_winners", kwargs={"promotion_id": promotion_id})
    csv_url = reverse("draws:promotion_winners_csv", kwargs={"promotion_id": promotion_id})
    assert desk.get(page_url).status_code == 403 and desk.get(csv_url).status_code == 403
    winners = [pick for pick in drawn.picks.select_related("member").order_by("seq") if pick.is_winner()]
    page = manager.get(page_url).content.decode()
    assert "3 winning picks" in page
    assert all(pick.card_number in page and pick.member.full_name in page for pick in winners)
    response = auditor.get(csv_url)
    assert response["Content-Disposition"] == 'attachment; filename="winners-test-promo.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["draw_id", "draw", "scheduled_at", "property", "card_number", "name", "k", "outcome"]
    assert rows[1:] == [
        [
            str(drawn.pk),
            drawn.name,
            "2025-10-15 13:00",
            "GRC",
            pick.card_number,
            pick.member.full_name,
            str(pick.k),
            pick.get_outcome_display(),
        ]
        for pick in winners
    ]


def test_an_unknown_draw_or_promotion_is_not_found(manager, db):
    assert manager.get(reverse("draws:record", kwargs={"draw_id": 999})).status_code == 404
    assert manager.get(reverse("draws:promotion_winners", kwargs={"promotion_id": 999})).status_code == 404


def test_the_record_page_and_the_certificate_cite_the_spec_shipped_with_the_project(drawn, auditor, manager):
    page = auditor.get(reverse("draws:record", kwargs={"draw_id": drawn.pk})).content.decode()
    text = re.sub(r"\s+", "", pdf_text(manager.get(reverse("draws:certificate", kwargs={"draw_id": drawn.pk})).content))
    for spec in ("draw-records.md", "draw-records-registers.md"):  # DRAWS.md, and our addition to its §6
        assert f"docs/{spec}" in page and f"docs/{spec}" in text
        assert (settings.BASE_DIR / "docs" / spec).is_file()


def test_the_certificate_names_people_in_full_and_lists_every_pick(drawn, manager, user_for):
    user_for(None, username=CONDUCTOR, first_name="Sipho", last_name="Mokoena")
    text = " ".join(pdf_text(manager.get(reverse("draws:certificate", kwargs={"draw_id": drawn.pk})).content).split())
    assert f"Conducted by: Sipho Mokoena ({CONDUCTOR})" in text
    assert "at or after its time" in text
    picks = list(drawn.picks.order_by("seq"))  # the stage's outcomes and the automatic redraws between them
    assert len(picks) >= len(STAGE)
    for pick in picks:
        assert pick.get_outcome_display() in text  # no-shows and disqualifications too
    assert "No-show: redraw" in text and "Disqualified: redraw" in text
    assert "Card not his" not in text  # the reason stays on the record, not on the wall


def test_a_certificate_without_a_witness_says_so(reference_data, manager):
    draw = start(closed_draw(reference_data), witness="")
    text = pdf_text(manager.get(reverse("draws:certificate", kwargs={"draw_id": draw.pk})).content)
    assert "no witness was recorded for this draw" in text
