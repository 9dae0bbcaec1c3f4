"""The schedule page's two steps, for tests that only need the draws: preview, then confirm."""

from django.urls import reverse


def schedule(client, series, body: dict):
    """Preview `body` on the series' schedule page, then confirm what the preview showed."""
    url = reverse("draws:series_schedule", args=[series.pk])
    preview = client.post(url, body)
    assert preview.status_code == 200, preview.content.decode()[:2000]
    digest = preview.context["preview"].digest if preview.context["preview"] else ""
    return client.post(url, body | {"confirm": digest})
