import pytest
from django.urls import reverse

from core.audit import Actor, audit_log

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("params", [{"date_to": "9999-12-31"}, {"date_from": "0001-01-01"}, {"actor": "a\x00b"}])
def test_a_filter_with_an_error_shows_the_error_and_no_events(auditor, params):
    audit_log(actor=Actor.system("test"), action="test.happened")
    response = auditor.get(reverse("audit"), params)
    assert response.status_code == 200
    assert response.context["form"].errors
    assert response.context["page"].paginator.count == 0


def test_a_filter_by_dates_in_range_shows_the_events(auditor):
    audit_log(actor=Actor.system("test"), action="test.happened")
    response = auditor.get(reverse("audit"), {"date_from": "1900-01-01", "date_to": "2100-12-31"})
    assert response.context["page"].paginator.count >= 1
