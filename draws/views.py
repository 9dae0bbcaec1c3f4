from django.contrib.auth.decorators import permission_required
from django.shortcuts import render

from draws.models import Draw


@permission_required("draws.view_draw", raise_exception=True)
def draw_list(request):
    draws = Draw.objects.with_related().order_by("-scheduled_at")[:100]
    return render(request, "draws/list.html", {"draws": draws})
