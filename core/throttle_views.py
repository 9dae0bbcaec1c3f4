"""The pages of the sign-in throttle (core.throttle): the "signing in is paused" answer, and the
promotions manager's list of pauses with Unlock buttons."""

from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core import throttle
from core.audit import Actor
from core.errors import DomainError


def again_at(until) -> str:
    """The time to try again, to the second when the pause does not end on a whole minute."""
    local = timezone.localtime(until)
    return f"{local:%H:%M:%S}" if local.second else f"{local:%H:%M}"


def paused_page(request, pause: throttle.Pause, *, template: str = "registration/locked_out.html"):
    return render(
        request,
        template,
        {
            "pause": pause,
            "failure_limit": pause.failures,
            "minutes": pause.minutes,
            "again_at": again_at(pause.until),
            "short": pause.scope in (throttle.ACCOUNT, throttle.ADDRESS),
        },
        status=429,
    )


class SignInPauseMiddleware:
    """A sign-in refused by a pause, or whose failure started one, gets the "paused" page (429)
    instead of the form: on the sign-in page and on the admin's alike (core.auth sets
    request.sign_in_pause)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        pause = getattr(request, "sign_in_pause", None)
        if pause is not None and request.method == "POST":
            return paused_page(request, pause)
        return response


@permission_required("core.unlock_sign_in", raise_exception=True)
def sign_in_pauses(request):
    pauses = throttle.current_pauses()
    rows = [{"pause": p, "again_at": again_at(p.until)} for p in pauses]
    return render(request, "core/sign_in_pauses.html", {"rows": rows})


@require_POST
@permission_required("core.unlock_sign_in", raise_exception=True)
def sign_in_unlock(request):
    username, ip = request.POST.get("username", ""), request.POST.get("ip", "")
    try:
        forgotten = throttle.unlock(actor=Actor.from_request(request), username=username, ip=ip)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        what = f"the account {username.strip()}" if username.strip() else f"the address {ip.strip()}"
        if forgotten:
            messages.success(request, f"Unlocked {what}: it can sign in again now.")
        else:
            messages.info(request, f"There was nothing to unlock for {what}.")
    return redirect("sign_in_pauses")
