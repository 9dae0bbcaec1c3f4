from django.contrib.auth import views as auth_views
from django.db import transaction

from core import throttle
from core.audit import Actor, audit_log
from core.throttle_views import paused_page


class PasswordChangeView(auth_views.PasswordChangeView):
    """Django's page, plus the audit events and the throttle: a password change is a change to
    who may sign in, and its "current password" field must not be a way to guess it (5 wrong
    ones pause the page for the account, core.throttle)."""

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            pause = throttle.password_change_pause(username=request.user.get_username())
            if pause is not None:
                # Paused: the current password is not even checked.
                return paused_page(request, pause, template="registration/password_change_paused.html")
        return super().dispatch(request, *args, **kwargs)

    def form_invalid(self, form):
        if form.has_error("old_password", "password_incorrect"):
            pause = throttle.password_change_failed(actor=Actor.from_request(self.request), user=self.request.user)
            if pause is not None:
                return paused_page(self.request, pause, template="registration/password_change_paused.html")
        return super().form_invalid(form)

    def form_valid(self, form):
        with transaction.atomic():
            response = super().form_valid(form)
            actor = Actor.from_request(self.request)
            audit_log(actor=actor, action="auth.password_changed", obj=self.request.user)
            throttle.password_changed(user=self.request.user)
        return response
