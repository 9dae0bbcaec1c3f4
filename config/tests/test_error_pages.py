"""The error pages: styled, with a way back; the 500 page renders with nothing behind it."""

import pytest
from django.db import connection
from django.test import RequestFactory, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import path, reverse
from django.views.defaults import server_error


@pytest.mark.django_db
def test_the_500_page_needs_no_request_context_and_no_database():
    with CaptureQueriesContext(connection) as queries:
        response = server_error(RequestFactory().get("/draws/1/"))
    html = response.content.decode()
    assert response.status_code == 500 and len(queries) == 0
    assert "Something went wrong on our side" in html
    assert 'href="/"' in html and 'id="try-again"' in html  # a way back
    assert "/static/css/desk.css" in html and "favicon" in html  # styled like the other pages


def _boom(request):
    raise RuntimeError("a bug")


urlpatterns = [path("boom/", _boom)]


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_an_unexpected_error_shows_the_500_page(client_for):
    client = client_for("rewards_desk")
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()


def test_the_404_and_403_pages_have_a_way_back(desk, reference_data):
    html = desk.get("/no-such-page/").content.decode()
    assert "Not found" in html and f'href="{reverse("home")}"' in html
    html = desk.get(reverse("audit")).content.decode()
    assert "not part of your role" in html and f'href="{reverse("home")}"' in html


def test_every_page_links_the_favicon(desk, client):
    for html in (desk.get(reverse("home")).content.decode(), client.get(reverse("login")).content.decode()):
        assert '<link rel="icon" href="/static/favicon.svg"' in html
