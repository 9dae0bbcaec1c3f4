"""A letter's PDF at the desk (issue 15, item 5): "Rendering…" polled until ready, then opened;
the stored file served inline and never rendered on request; "Render again"; a draw's letters'
progress bar polled until every letter is ready."""

import pytest
from django.urls import reverse

from core.audit import Actor
from core.roles import AUDITOR, CASH_DESK, REWARDS_DESK
from prizes import letter_pdf
from prizes.letter_models import PrizeLetter, RenderState
from prizes.letter_services import letter_issue
from prizes.tasks import letter_render as letter_render_task
from prizes.tests.letter_helpers import presented

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def letter(won, user_for) -> PrizeLetter:
    _, first, _ = won
    return letter_issue(actor=Actor.for_user(user_for(REWARDS_DESK)), **presented(first))


@pytest.fixture
def rendered(letter) -> PrizeLetter:
    assert letter_render_task(letter.pk)
    letter.refresh_from_db()
    return letter


def html(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def test_the_letter_page_shows_it_rendering_and_polls_its_state(letter, desk):
    state_url = reverse("prizes:letter_pdf_state", args=[letter.pk])
    page = html(desk.get(reverse("prizes:letter", args=[letter.pk])))
    assert "Rendering…" in page and f'hx-get="{state_url}"' in page
    assert reverse("prizes:letter_pdf", args=[letter.pk]) not in page

    fragment = html(desk.get(state_url, **HTMX))
    assert "Rendering…" in fragment and f'hx-get="{state_url}"' in fragment and "data-open-now" not in fragment


def test_once_ready_the_poll_opens_the_pdf_and_the_page_links_it_without_polling(rendered, desk):
    pdf_url = reverse("prizes:letter_pdf", args=[rendered.pk])
    fragment = html(desk.get(reverse("prizes:letter_pdf_state", args=[rendered.pk]), **HTMX))
    assert f'href="{pdf_url}" data-open-now autofocus' in fragment and "hx-get" not in fragment

    page = html(desk.get(reverse("prizes:letter", args=[rendered.pk])))
    assert f'href="{pdf_url}"' in page and "data-open-now" not in page  # a later visit opens nothing itself
    assert "Render again" not in page


@pytest.mark.parametrize("role", [REWARDS_DESK, CASH_DESK, AUDITOR])
def test_the_stored_pdf_is_served_inline_and_never_rendered_on_request(rendered, role, client_for, monkeypatch):
    renders = []
    monkeypatch.setattr(letter_pdf, "letter_pdf_bytes", lambda lt: renders.append(lt.pk) or b"")
    monkeypatch.setattr("core.pdf.render_pdf", lambda *a, **k: renders.append("core") or b"")
    with rendered.pdf.open("rb") as handle:
        stored = handle.read()
    http = client_for(role)

    for _ in range(2):
        response = http.get(reverse("prizes:letter_pdf", args=[rendered.pk]))
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        assert response["Content-Disposition"] == f'inline; filename="prize-letter-{rendered.number}.pdf"'
        assert b"".join(response.streaming_content) == stored
    assert renders == []


def test_a_pdf_not_rendered_yet_sends_the_reader_back_to_the_letter(letter, cashier, monkeypatch):
    monkeypatch.setattr(letter_pdf, "letter_pdf_bytes", lambda lt: pytest.fail("rendered on request"))
    response = cashier.get(reverse("prizes:letter_pdf", args=[letter.pk]), follow=True)
    assert response.redirect_chain == [(reverse("prizes:letter", args=[letter.pk]), 302)]
    assert "is not ready yet" in response.content.decode()


def test_a_missing_file_is_said_and_the_desk_renders_it_again(rendered, desk):
    rendered.pdf.storage.delete(rendered.pdf.name)
    response = desk.get(reverse("prizes:letter_pdf", args=[rendered.pk]), follow=True)
    page = response.content.decode()
    assert "The stored PDF is missing" in page and 'id="letter-render-again"' in page

    response = desk.post(reverse("prizes:letter_render", args=[rendered.pk]), follow=True)
    assert "being rendered again" in response.content.decode()
    rendered.refresh_from_db()
    assert rendered.render_state == RenderState.PENDING


def test_a_failed_render_shows_its_words_and_only_the_desk_may_render_again(letter, desk, cashier, monkeypatch):
    monkeypatch.setattr(letter_pdf, "letter_pdf_bytes", lambda lt: (_ for _ in ()).throw(OSError("disk full")))
    letter_render_task(letter.pk)
    url = reverse("prizes:letter", args=[letter.pk])
    assert "OSError: disk full" in html(desk.get(url)) and 'id="letter-render-again"' in html(desk.get(url))
    assert 'id="letter-render-again"' not in html(cashier.get(url))
    assert cashier.post(reverse("prizes:letter_render", args=[letter.pk])).status_code == 403


def test_the_draws_letters_progress_polls_until_every_letter_is_ready(letter, desk, cashier):
    draw_url = reverse("prizes:draw", args=[letter.draw_id])
    progress_url = reverse("prizes:draw_letters_progress", args=[letter.draw_id])
    page = html(desk.get(draw_url))
    assert "Letters for this draw" in page and "0 of 1 ready · 1 rendering" in page
    assert f'hx-get="{progress_url}"' in page and 'id="letters-render"' in page
    assert 'id="letters-render"' not in html(cashier.get(draw_url))  # the cash desk reads, never renders

    letter_render_task(letter.pk)
    fragment = html(desk.get(progress_url, **HTMX))
    assert "1 of 1 ready" in fragment and 'data-percent="100"' in fragment and "hx-get" not in fragment
    assert f'href="{reverse("prizes:letter_pdf", args=[letter.pk])}"' in html(desk.get(draw_url))


def test_the_batch_button_queues_the_missing_letters(rendered, desk):
    rendered.pdf.storage.delete(rendered.pdf.name)
    response = desk.post(reverse("prizes:draw_letters_render", args=[rendered.draw_id]), follow=True)
    assert "1 letter of" in response.content.decode() and "being rendered" in response.content.decode()
    rendered.refresh_from_db()
    assert rendered.render_state == RenderState.PENDING

    response = desk.post(reverse("prizes:draw_letters_render", args=[rendered.draw_id]), follow=True)
    assert "nothing to render again" in response.content.decode()
