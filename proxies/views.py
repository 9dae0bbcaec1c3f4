from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.forms import submit
from draws.models import Draw
from members.models import Member
from proxies import drafts, pdf, selectors, services
from proxies.forms import (
    NO_SINGLE_MEMBER,
    DeclineForm,
    DeclineWithdrawForm,
    NominateForm,
    NomineeLookupForm,
    RevokeForm,
    SignForm,
    nominee_member,
)
from proxies.models import DeclineRegistration, ProxyNomination


@permission_required("proxies.add_proxynomination", raise_exception=True)
def member_nominate(request, member_id: int):
    """Nominate a proxy, step 1: the draws (only those the service would accept now) and the
    proxy. Checked as the registration will be, then kept as a draft to print and sign."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    draws, refused = selectors.desk_proxy_choices(member, request.user, timezone.now())
    draft = drafts.draft_of(request.session, member) if request.method == "GET" else None
    form = NominateForm(request.POST or None, draws=draws, initial=_draft_initial(draft))
    nominee = submit(
        request,
        form,
        lambda: services.proxy_nomination_check(
            actor=Actor.from_request(request),
            participant=member,
            draw_ids=form.cleaned_data["draws"],
            nominee=form.cleaned_data["nominee"],
        ),
    )
    if nominee:
        drafts.draft_save(request.session, participant=member, draw_ids=form.cleaned_data["draws"], nominee=nominee)
        return redirect("proxies:nominate_sign", member_id=member.pk)
    context = {"member": member, "draws": draws, "refused": refused, "form": form}
    return render(request, "proxies/nominate.html", context)


def _draft_initial(draft: drafts.Draft | None) -> dict:
    """Back from the signing step to change a detail: the form as it was (a member proxy by card)."""
    if draft is None:
        return {}
    if draft.nominee.member:
        return {"draws": draft.draw_ids, "lookup": draft.nominee.member.card_number}
    nominee = draft.nominee
    return {
        "draws": draft.draw_ids,
        "nominee_name": nominee.name,
        "nominee_id_type": nominee.id_type,
        "nominee_id_number": nominee.id_number,
        "nominee_phone": nominee.phone,
        "nominee_date_of_birth": nominee.date_of_birth.strftime("%d/%m/%Y") if nominee.date_of_birth else "",
    }


@require_POST
@permission_required("proxies.add_proxynomination", raise_exception=True)
def nominee_lookup(request, member_id: int):
    """The proxy's swipe on the nomination form (static/js/proxy_form.js): who it is, as a piece
    of the form; the form itself is not sent."""
    member = get_object_or_404(Member, pk=member_id)
    form = NomineeLookupForm(request.POST)
    found = nominee_member(form.cleaned_data["lookup"]) if form.is_valid() else None
    if not form.is_valid():
        problem = " ".join(e for errors in form.errors.values() for e in errors)
    elif found is None:
        problem = NO_SINGLE_MEMBER
    elif found.pk == member.pk:
        found, problem = None, "A participant cannot be their own proxy."
    else:
        problem = ""
    return render(request, "proxies/_nominee_found.html", {"found": found, "problem": problem})


def _back_to_step_one(request, member: Member):
    """Steps 2 and 3 without a draft (expired, cleared, or opened by URL)."""
    messages.info(request, "Fill in the proxy's details first.")
    return redirect("proxies:member_nominate", member_id=member.pk)


@permission_required("proxies.add_proxynomination", raise_exception=True)
def nominate_sign(request, member_id: int):
    """Nominate a proxy, step 2: print the form, have both sign it, then register it."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    draft = drafts.draft_of(request.session, member)
    if draft is None:
        return _back_to_step_one(request, member)
    form = SignForm(request.POST or None)

    def register():
        if not draft.printed:
            raise DomainError("Print the form and have both sign it first.", code="not_printed")
        return services.proxy_nominate(
            actor=Actor.from_request(request),
            participant=member,
            draw_ids=draft.draw_ids,
            nominee=draft.nominee,
            participant_id_seen=form.cleaned_data["participant_id_seen"],
            nominee_id_seen=form.cleaned_data["nominee_id_seen"],
            form_signed=form.cleaned_data["form_signed"],
        )

    nominations = submit(request, form, register)
    if nominations:
        drafts.draft_clear(request.session, member)
        messages.success(request, f"{nominations[0].nominee_name} is {member.full_name}'s proxy.")
        return redirect("proxies:nomination", nomination_id=nominations[0].pk)
    draws = Draw.objects.with_related().filter(pk__in=draft.draw_ids).order_by("scheduled_at")
    nominee = pdf.nominee_words(draft.nominee)
    context = {"member": member, "draft": draft, "draws": draws, "form": form, "nominee": nominee}
    return render(request, "proxies/nominate_sign.html", context)


@permission_required("proxies.add_proxynomination", raise_exception=True)
def nominate_form_pdf(request, member_id: int):
    """The form of the draft, to be signed: nothing registered yet, and it says so."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    draft = drafts.draft_of(request.session, member)
    if draft is None:
        return _back_to_step_one(request, member)
    body = pdf.draft_form_pdf(
        participant=member, draw_ids=draft.draw_ids, nominee=draft.nominee, clerk=request.user, at=timezone.now()
    )
    drafts.draft_printed(request.session, member)
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="proxy-form-{member.card_number}.pdf"'
    return response


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
