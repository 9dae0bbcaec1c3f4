from django.contrib.auth.decorators import permission_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils import timezone

from core.filters import audit_events
from core.models import WorkerHeartbeat
from core.roles import ROLE_LABELS


def home(request):
    heartbeat = WorkerHeartbeat.objects.filter(name="beat").first()
    roles = [ROLE_LABELS.get(g.name, g.name) for g in request.user.groups.all()]
    if request.user.is_superuser:
        roles.append("Superuser")
    return render(
        request,
        "core/home.html",
        {
            "heartbeat": heartbeat,
            "heartbeat_age": (timezone.now() - heartbeat.last_tick_at).total_seconds() if heartbeat else None,
            "roles": roles,
        },
    )


@permission_required("core.view_auditevent", raise_exception=True)
def audit(request):
    form, events = audit_events(request.GET)
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    return render(request, "core/audit.html", {"form": form, "page": page, "query": query.urlencode()})
