"""The progressives, read-only (issue 14, item 5): each jackpot's value and every change, with
the draw that caused it, who and when. Changes are made on stage and by the services only."""

from django.contrib.auth.decorators import permission_required
from django.db.models import Count, OuterRef, Subquery
from django.shortcuts import get_object_or_404, render

from core.paging import page_of
from prizes.models import Progressive, ProgressiveEntry


@permission_required("prizes.view_progressive", raise_exception=True)
def progressive_list(request):
    last = ProgressiveEntry.objects.filter(progressive=OuterRef("pk")).order_by("-pk").values("balance_cents")[:1]
    progressives = (
        Progressive.objects.select_related("promotion", "series")
        .annotate(last_balance=Subquery(last), changes=Count("entries"))
        .order_by("promotion__name", "name")
    )
    paging = page_of(request, progressives)
    return render(request, "prizes/progressives.html", {"page": paging.page, "query": paging.query})


@permission_required("prizes.view_progressive", raise_exception=True)
def progressive_detail(request, progressive_id: int):
    progressive = get_object_or_404(Progressive.objects.select_related("promotion", "series"), pk=progressive_id)
    entries = progressive.entries.select_related("draw", "pick").order_by("-pk")
    paging = page_of(request, entries)
    last = entries.values_list("balance_cents", flat=True).first()
    context = {
        "progressive": progressive,
        "value": progressive.base_cents if last is None else last,
        "page": paging.page,
        "query": paging.query,
    }
    return render(request, "prizes/progressive.html", context)
