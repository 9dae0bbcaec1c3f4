"""The member lookup: its own page and the field in the header of every staff page.

The header field posts (nothing typed or swiped lands in a URL, the history or the access log);
the page's own field searches by GET so a list of names can be bookmarked and reloaded. The
browser sends only the card number of a swipe; the server scrubs the raw stripe again in case."""

from urllib.parse import urlencode

from django.contrib.auth.decorators import permission_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.swipe import looks_like_swipe, scrub
from members.forms import LookupForm
from members.lookup_targets import resolve
from members.selectors import member_lookup

MISREAD = "The card could not be read. Swipe it again, or type the card number."


@require_http_methods(["GET", "POST"])
@permission_required("members.view_member", raise_exception=True)
def lookup(request):
    raw = (request.POST if request.method == "POST" else request.GET).get("q", "")
    query = scrub(raw)
    form = LookupForm({"q": query} if query else None)
    target = result = None
    if form.is_valid():
        target = resolve(query, request.user)
        if not target:
            result = member_lookup(query)
            if len(result.members) == 1 and not result.truncated:
                target = reverse("members:detail", args=[result.members[0].pk])
    if target:
        return redirect(target)
    if request.method == "GET" and looks_like_swipe(raw):
        # A page showing a stripe's search must not keep the stripe in its address.
        url = reverse("members:lookup")
        return redirect(f"{url}?{urlencode({'q': query})}" if query else url)
    misread = MISREAD if raw.strip() and not query else ""
    return render(request, "members/lookup.html", {"form": form, "result": result, "misread": misread})
