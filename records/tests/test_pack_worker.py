"""A record pack asked for on the promotion page and built by a real Celery worker (over Redis,
on the test database): queued on commit, built once, its progress polled until the page shows
the downloads, and the ZIP served as the worker stored it."""

import io
import zipfile

import pytest
from django.urls import reverse

from records.models import PackStatus, RecordPack
from records.tests.pack_helpers import manifest, sha256
from testing.worker import celery_worker_fixture, celery_worker_process_fixture  # noqa: F401

pytestmark = pytest.mark.worker


def test_a_pack_asked_for_on_the_page_is_built_by_the_worker(celery_worker, promotion, manager):
    page = manager.post(reverse("records:pack_request", args=[promotion.pk]), follow=True)
    assert "is being built" in page.content.decode()
    pack = RecordPack.objects.get(promotion=promotion)
    progress = reverse("records:pack_progress", args=[pack.pk])

    def finished():
        fragment = manager.get(progress).content.decode()
        return "hx-get" not in fragment and fragment

    fragment = celery_worker.wait_for(finished, "the worker to build the record pack", timeout=60)
    pack.refresh_from_db()
    assert pack.status == PackStatus.DONE, pack.error
    assert pack.manifest_sha256 in fragment and "Download ZIP" in fragment
    assert str(celery_worker.media_root) in pack.zip_file.path
    response = manager.get(reverse("records:pack_zip", args=[pack.pk]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert sha256(archive.read("manifest.json")) == pack.manifest_sha256
    assert all(sha256(archive.read(f["path"])) == f["sha256"] for f in manifest(archive)["files"])
