"""`/healthz`: for container healthchecks and monitors (core.health has the checks).

No sign-in, no session, no CSRF (GET and HEAD only), never cached; exempt from the HTTPS
redirect (settings.SECURE_REDIRECT_EXEMPT) so a healthcheck over plain HTTP inside the
container gets the answer, not a 301. It costs three cheap, time-bounded checks and writes
nothing, so an anonymous caller can do no more than ask often: keep it off the public proxy
if that matters (README, Deployment).
"""

from django.contrib.auth.decorators import login_not_required
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from core import health


@login_not_required
@never_cache
@require_safe
def healthz(request):
    body = health.report()
    return JsonResponse(body, status=200 if body["status"] == "ok" else 503)
