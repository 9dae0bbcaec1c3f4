"""The start page: one section for each role the user holds (issue 9, item 3). It reads draws,
proxies, imports and promotions, so it lives above every app, beside the URLs."""

from django.shortcuts import render
from django.utils import timezone

from config import home_data
from core.roles import AUDITOR, CASH_DESK, PROMOTIONS_MANAGER, REWARDS_DESK, ROLE_LABELS
from members.staff import staff_properties


def home(request):
    # Signing in is required by LoginRequiredMiddleware; every role (and none) may see this page.
    user = request.user
    now = timezone.now()
    roles = {g.name for g in user.groups.all()}
    properties = staff_properties(user)
    property_ids = [p.pk for p in properties] if properties else None
    context = {
        "now": now,
        "roles": [ROLE_LABELS.get(name, name) for name in sorted(roles)] + (["Superuser"] if user.is_superuser else []),
        "properties": properties,
        "where": " and ".join(p.name for p in properties) if properties else "every property",
        "desk": REWARDS_DESK in roles,
        "manager": PROMOTIONS_MANAGER in roles or user.is_superuser,
        "auditor": AUDITOR in roles,
        "cash_desk": CASH_DESK in roles,
    }
    if context["desk"]:
        context["today"], context["today_more"] = home_data.desk_today(property_ids, now)
        day = f"{timezone.localdate(now):%Y-%m-%d}"
        context["today_list_query"] = f"date_from={day}&date_to={day}"  # the draws list starts at their property
    if context["desk"] or context["manager"]:
        context["heartbeat"] = home_data.heartbeat(now)
    if context["manager"]:
        context["attention"] = home_data.manager_attention(property_ids, now)
    if context["manager"] or context["auditor"]:
        context["audit_seal"] = home_data.audit_seal(now)
    if context["auditor"]:
        context["recent_draws"] = home_data.recent_draws(property_ids, now)
        context["records_running"] = home_data.records_running(property_ids)
        context["audit_today"] = home_data.audit_entries_today(now)
    return render(request, "core/home.html", context)
