from django.conf import settings
from django.contrib.auth import views as auth_views
from django.db import transaction
from django.shortcuts import render
from django.utils import timezone

from core.audit import Actor, audit_log


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's page, plus the audit event: a password change is a change to who may sign in."""

    def form_valid(self, form):
        with transaction.atomic():
            response = super().form_valid(form)
            audit_log(actor=Actor.from_request(self.request), action="auth.password_changed", obj=self.request.user)
        return response


def login_locked_out(request, original_response=None, credentials=None):
    """What a locked-out sign-in sees (django-axes calls it): what happened, and when to try again.

    Every further wrong attempt starts the cool-off again, so "again at" counts from now.
    """
    cool_off = settings.AXES_COOLOFF_TIME
    minutes = int(cool_off.total_seconds() // 60)
    return render(
        request,
        "registration/locked_out.html",
        {
            "failure_limit": settings.AXES_FAILURE_LIMIT,
            "minutes": minutes,
            "again_at": timezone.localtime(timezone.now() + cool_off),
        },
        status=429,
    )
