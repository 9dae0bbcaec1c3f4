"""The record pack's pages: "Build record pack" on the promotion page (records_tags renders the
panel), its progress polled by htmx while the worker builds, and the stored files served."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from promotions.models import Promotion
from records import packs
from records.models import PackStatus, RecordPack


@require_POST
@permission_required("records.add_recordpack", raise_exception=True)
def pack_request(request, promotion_id: int):
    promotion = get_object_or_404(Promotion, pk=promotion_id)
    try:
        packs.pack_request(actor=Actor.from_request(request), promotion=promotion)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"The record pack of {promotion.name} is being built: its progress is shown below.")
    return redirect("promotions:detail", promotion_id=promotion.pk)


@permission_required("records.view_recordpack", raise_exception=True)
def pack_progress(request, pack_id: int):
    """The pack's progress, polled every second while it is queued or building; when it ends,
    the whole page is reloaded to show the downloads (or the error)."""
    pack = get_object_or_404(RecordPack.objects.select_related("promotion"), pk=pack_id)
    response = render(request, "records/_pack_progress.html", {"pack": pack})
    if not pack.in_flight and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response


def _file(request, pack_id: int, which: str):
    pack = get_object_or_404(RecordPack.objects.select_related("promotion"), pk=pack_id)
    stored = pack.zip_file if which == "zip" else pack.pdf_file
    if pack.status != PackStatus.DONE or not stored:
        messages.info(request, "That record pack is not ready: it can be downloaded once it is built.")
        return redirect("promotions:detail", promotion_id=pack.promotion_id)
    try:
        handle = stored.open("rb")
    except FileNotFoundError:
        messages.error(request, "The stored file of that record pack is missing: build a new pack.")
        return redirect("promotions:detail", promotion_id=pack.promotion_id)
    content_type = "application/zip" if which == "zip" else "application/pdf"
    name = f"record-pack-{pack.promotion.code}-{pack.pk}.{which}"
    return FileResponse(handle, content_type=content_type, as_attachment=True, filename=name)


@permission_required("records.view_recordpack", raise_exception=True)
def pack_zip(request, pack_id: int):
    return _file(request, pack_id, "zip")


@permission_required("records.view_recordpack", raise_exception=True)
def pack_pdf(request, pack_id: int):
    return _file(request, pack_id, "pdf")
