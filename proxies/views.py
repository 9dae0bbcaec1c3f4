from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.forms import submit
from draws.models import Draw
from members.models import Member
from proxies import pdf, selectors, services
from proxies.forms import DeclineForm, DeclineWithdrawForm, NominateForm, RevokeForm
from proxies.models import DeclineRegistration, ProxyNomination


@permission_required("proxies.add_proxynomination", raise_exception=True)
def member_nominate(request, member_id: int):
    """Nominate a proxy: only the draws the service would accept now are offered."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    draws, refused = selectors.desk_proxy_choices(member, request.user, timezone.now())
    form = NominateForm(request.POST or None, draws=draws)
    nominations = submit(
        request,
        form,
        lambda: services.proxy_nominate(
            actor=Actor.from_request(request),
            participant=member,
            draw_ids=form.cleaned_data["draws"],
            nominee=form.cleaned_data["nominee"],
            participant_id_seen=form.cleaned_data["participant_id_seen"],
            nominee_id_seen=form.cleaned_data["nominee_id_seen"],
            form_signed=form.cleaned_data["form_signed"],
        ),
    )
    if nominations:
        messages.success(request, f"{nominations[0].nominee_name} is {member.full_name}'s proxy. Print the form.")
        return redirect("proxies:nomination", nomination_id=nominations[0].pk)
    context = {"member": member, "draws": draws, "refused": refused, "form": form}
    return render(request, "proxies/nominate.html", context)


@permission_required("proxies.add_declineregistration", raise_exception=True)
def member_decline(request, member_id: int):
    """Register a decline, in person: the swiped member only, no field for anyone else."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    draws, refused = selectors.desk_decline_choices(member, request.user, timezone.now())
    form = DeclineForm(request.POST or None, draws=draws)
    registrations = submit(
        request,
        form,
        lambda: services.decline_register(
            actor=Actor.from_request(request),
            member=member,
            draw_ids=form.cleaned_data["draws"],
            id_seen=form.cleaned_data["id_seen"],
        ),
    )
    if registrations:
        names = ", ".join(r.draw.name for r in registrations)
        messages.success(request, f"{member.full_name} declines to be present at {names}.")
        return redirect("members:detail", member_id=member.pk)
    context = {"member": member, "draws": draws, "refused": refused, "form": form}
    return render(request, "proxies/decline.html", context)


def _nomination(nomination_id: int) -> ProxyNomination:
    return get_object_or_404(
        ProxyNomination.objects.select_related(
            "participant", "draw", "draw__property", "draw__series__promotion", "registered_by", "revoked_by"
        ),
        pk=nomination_id,
    )


@permission_required("proxies.add_proxynomination", raise_exception=True)
def nomination_detail(request, nomination_id: int):
    nomination = _nomination(nomination_id)
    batch = ProxyNomination.objects.filter(batch=nomination.batch).select_related("draw").order_by("draw__scheduled_at")
    return render(request, "proxies/nomination.html", {"nomination": nomination, "batch": batch})


@permission_required("proxies.add_proxynomination", raise_exception=True)
def nomination_pdf(request, nomination_id: int):
    nomination = _nomination(nomination_id)
    response = HttpResponse(pdf.proxy_form_pdf(nomination), content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="proxy-form-{nomination.pk}.pdf"'
    return response


@require_POST
@permission_required("proxies.change_proxynomination", raise_exception=True)
def nomination_revoke(request, nomination_id: int):
    nomination = get_object_or_404(ProxyNomination, pk=nomination_id)
    form = RevokeForm(request.POST)
    done = submit(
        request,
        form,
        lambda: services.proxy_revoke(
            actor=Actor.from_request(request), nomination_id=nomination.pk, reason=form.cleaned_data["reason"]
        ),
    )
    _say(request, form, done, f"The nomination of {nomination.nominee_name} is revoked.")
    return redirect("members:detail", member_id=nomination.participant_id)


@require_POST
@permission_required("proxies.change_declineregistration", raise_exception=True)
def decline_revoke(request, registration_id: int):
    registration = get_object_or_404(DeclineRegistration.objects.select_related("draw"), pk=registration_id)
    form = DeclineWithdrawForm(request.POST)
    done = submit(
        request,
        form,
        lambda: services.decline_revoke(
            actor=Actor.from_request(request),
            registration_id=registration.pk,
            reason=form.cleaned_data["reason"],
            card_number=form.cleaned_data["card"],
        ),
    )
    _say(request, form, done, f"The decline for {registration.draw.name} is withdrawn.")
    return redirect("members:detail", member_id=registration.member_id)


def _say(request, form, done, success: str) -> None:
    """A revoke is a small form on the member page: its outcome comes back as a message."""
    if done:
        messages.success(request, success)
        return
    errors = [e for field_errors in form.errors.values() for e in field_errors]
    messages.error(request, " ".join(errors) or "Nothing was changed.")


@permission_required("proxies.view_proxynomination", raise_exception=True)
def draw_register(request, draw_id: int):
    """The stage team's list: every nomination and decline of the draw, with counts."""
    draw = get_object_or_404(Draw.objects.with_related(), pk=draw_id)
    nominations, declines = selectors.draw_register(draw)
    context = {
        "draw": draw,
        "nominations": nominations,
        "declines": declines,
        "live_nominations": sum(n.is_live for n in nominations),
        "live_declines": sum(d.is_live for d in declines),
        "print": request.GET.get("print") == "1",
        "printed_at": timezone.now(),
    }
    template = "proxies/register_print.html" if context["print"] else "proxies/register.html"
    return render(request, template, context)
