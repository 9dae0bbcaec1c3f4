import csv
import datetime as dt
import functools
import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Sum
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.formats import spreadsheet_safe
from core.forms import submit
from core.paging import page_of, query_without
from core.queueing import enqueue
from members import lookup_views, services
from members.eligibility import member_eligibility
from members.forms import (
    ExclusionForm,
    ExclusionSearchForm,
    ImportFilterForm,
    ImportForm,
    MemberContactForm,
    MemberEditForm,
    MemberFilterForm,
    SignUpForm,
    member_initial,
)
from members.history import FIELD_WORDS, MemberHistory
from members.imports import COLUMNS, sample_csv
from members.models import Exclusion, ImportJob, ImportKind, ImportStatus, Member
from members.selectors import exclusions_list, members_list
from members.staff import staff_property
from members.tasks import import_job_run_task


def permission_any(*perms: str):
    """The view needs one of `perms` (403 otherwise), e.g. a manager's or the desk's edit."""

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            if not any(request.user.has_perm(perm) for perm in perms):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


MEMBERS_COUNTED = 1_000
HISTORY_ON_PAGE = 10  # on the member page; the history page shows the rest
HISTORY_PAGE = 25


# The lookup (page and header field) lives in members/lookup_views.py.
lookup = lookup_views.lookup


@permission_required("members.view_member", raise_exception=True)
def member_detail(request, member_id: int):
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    now = timezone.now()
    # The newest entries, and one more to know whether to link to the rest (no count: each
    # source reads its newest rows only).
    history = MemberHistory(member, request.user)[: HISTORY_ON_PAGE + 1]
    context = {
        "member": member,
        "eligibility": member_eligibility(member, now),
        "exclusions": Exclusion.objects.for_identity(member.id_number),
        "recent_points": member.points.select_related("property").order_by("-earned_at")[:10],
        "points_30_days": member.points.filter(earned_at__gte=now - dt.timedelta(days=30)).aggregate(
            total=Sum("points")
        )["total"]
        or 0,
        "history": history[:HISTORY_ON_PAGE],
        "history_more": len(history) > HISTORY_ON_PAGE,
        "show_id": request.user.has_perm("members.add_member") or request.user.has_perm("members.add_exclusion"),
        "may_edit": not services.member_update_refusal(actor=Actor.from_request(request)),
    }
    return render(request, "members/detail.html", context)


@permission_required("members.view_member", raise_exception=True)
def member_history(request, member_id: int):
    """The member's whole history, newest first, a page at a time."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    page, query = page_of(request, MemberHistory(member, request.user), per_page=HISTORY_PAGE)
    return render(request, "members/history.html", {"member": member, "page": page, "query": query})


@permission_required("members.add_member", raise_exception=True)
def sign_up(request):
    # The clerk's own casino first; staff without one pick it.
    form = SignUpForm(request.POST or None, initial={"home_property": staff_property(request.user)})
    member = submit(
        request, form, lambda: services.member_sign_up(actor=Actor.from_request(request), **form.cleaned_data)
    )
    if member:
        # Like an activation's receipt: straight to the slip to print, the member page a click away.
        return redirect("members:welcome_slip", member_id=member.pk)
    return render(request, "members/sign_up.html", {"form": form})


@permission_required("members.add_member", raise_exception=True)
def welcome_slip(request, member_id: int):
    """The printable welcome slip with the new card number (reprinted from the member page)."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    return render(request, "members/welcome_slip.html", {"member": member, "printed_at": timezone.now()})


@permission_any("members.change_member", "members.change_member_contact")
def member_edit(request, member_id: int):
    """A manager corrects the whole record, the desk the phone and e-mail (members.services)."""
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    full = request.user.has_perm("members.change_member")
    form_class = MemberEditForm if full else MemberContactForm
    form = form_class(request.POST or None, initial=member_initial(member))
    before = {name: getattr(member, name) for name in form.fields}

    def save():
        return services.member_update(actor=Actor.from_request(request), member_id=member.pk, **form.changes())

    saved = submit(request, form, save)
    if saved:
        changed = [FIELD_WORDS[name] for name in form.fields if getattr(saved, name) != before[name]]
        if changed:
            messages.success(request, f"Saved the {_and(changed)} of {saved.full_name}.")
        else:
            messages.info(request, "Nothing was changed.")
        return redirect("members:detail", member_id=saved.pk)
    return render(request, "members/edit.html", {"member": member, "form": form, "full": full})


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


@permission_required("members.view_member", raise_exception=True)
def member_list(request):
    form = MemberFilterForm(request.GET or None)
    data = form.cleaned_data if form.is_valid() else {}
    found = members_list(
        query=data.get("q", ""), home_property=data.get("home_property"), tier=data.get("tier"), app=data.get("app", "")
    )
    # A filter with an error lists nobody, not every member as if they matched.
    members = found.members.none() if form.errors else found.members
    # A filter or a name search counts its matches on the table's rows, not an index: 1,000 is
    # enough for the desk ("more than 1,000 members") and a twentieth of the reading.
    page, query = page_of(request, members, count_up_to=MEMBERS_COUNTED)
    return render(request, "members/list.html", {"form": form, "page": page, "query": query, "hint": found.hint})


@permission_required("members.view_exclusion", raise_exception=True)
def exclusions(request):
    form = ExclusionSearchForm(request.GET or None)
    data = form.cleaned_data if form.is_valid() else {}
    status = data.get("status") or "in_force"
    now = timezone.now()
    found = exclusions_list(query=data.get("q", ""), status=status, kind=data.get("kind", ""), at=now)
    # A search with an error lists nothing, not every exclusion as if they matched.
    listed = found.exclusions.none() if form.errors else found.exclusions
    page, query = page_of(request, listed)
    for exclusion in page:
        exclusion.may_end = services.exclusion_end_refusal(exclusion, now=now) is None
    tabs = [(value, label, found.counts[value]) for value, label in ExclusionSearchForm.STATUSES]
    context = {
        "form": form,
        "page": page,
        "query": query,
        "status": status,
        "tabs": tabs,
        "tab_query": query_without(request, "status", "page"),
        "searched": bool(data.get("q") or data.get("kind")),
    }
    return render(request, "members/exclusions.html", context)


@permission_required("members.add_exclusion", raise_exception=True)
def exclusion_new(request):
    initial = {}
    member_id = request.GET.get("member", "")
    if member_id.isascii() and member_id.isdecimal():  # ?member=abc is ignored, not a 500
        member = Member.objects.filter(pk=int(member_id)).first()
        if member:
            initial = {"id_type": member.id_type, "id_number": member.id_number, "full_name": member.full_name}
    form = ExclusionForm(request.POST or None, initial=initial)

    def record():
        data = form.cleaned_data
        return services.exclusion_record(
            actor=Actor.from_request(request),
            id_type=data["id_type"],
            id_number=data["id_number"],
            full_name=data["full_name"],
            kind=data["kind"],
            reason=data["reason"],
            starts_at=form.start_of(data["starts_on"]),
            ends_at=form.end_of(data["ends_on"]),
        )

    exclusion = submit(request, form, record)
    if exclusion:
        messages.success(request, f"Exclusion recorded for {exclusion.full_name}.")
        return redirect("members:exclusions")
    return render(request, "members/exclusion_form.html", {"form": form})


@require_POST
@permission_required("members.change_exclusion", raise_exception=True)
def exclusion_end(request, exclusion_id: int):
    exclusion = get_object_or_404(Exclusion, pk=exclusion_id)
    try:
        services.exclusion_end(actor=Actor.from_request(request), exclusion_id=exclusion.pk)
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Exclusion of {exclusion.full_name} ended.")
    return redirect("members:exclusions")


@permission_required("members.view_importjob", raise_exception=True)
def imports(request):
    form = ImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        if not request.user.has_perm("members.add_importjob"):
            return render(request, "403.html", status=403)
        if form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                job = services.import_job_create(
                    actor=Actor.from_request(request), kind=form.cleaned_data["kind"], file=upload, name=upload.name
                )
            except DomainError as error:
                form.add_error("file", error.message)
            else:
                enqueue(import_job_run_task, job.pk)  # lost with the broker: the tick sends it again
                return redirect("members:import_detail", job_id=job.pk)
    filters = ImportFilterForm(request.GET or None)
    data = filters.cleaned_data if filters.is_valid() else {}
    jobs = ImportJob.objects.select_related("created_by").order_by("-created_at", "-pk")
    if data.get("kind"):
        jobs = jobs.filter(kind=data["kind"])
    counts = dict(jobs.order_by().values_list("status").annotate(n=Count("pk")))
    if data.get("status"):
        jobs = jobs.filter(status=data["status"])
    page, query = page_of(request, jobs.none() if filters.errors else jobs)
    context = {
        "form": form,
        "filters": filters,
        "page": page,
        "query": query,
        "columns": COLUMNS,
        "kinds": ImportKind.choices,
        "status_counts": [(value, label, counts.get(value, 0)) for value, label in ImportStatus.choices],
        "all_count": sum(counts.values()),
        "status": data.get("status", ""),
        "tab_query": query_without(request, "status", "page"),
    }
    return render(request, "members/imports.html", context)


@permission_required("members.add_importjob", raise_exception=True)
def import_sample(request, kind: str):
    """A file of `kind` to start from: the header line and two example rows."""
    if kind not in ImportKind.values:
        raise Http404
    response = HttpResponse(sample_csv(kind), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{kind}-import-sample.csv"'
    return response


@permission_required("members.view_importjob", raise_exception=True)
def import_detail(request, job_id: int):
    job = get_object_or_404(ImportJob.objects.select_related("created_by"), pk=job_id)
    context = {
        "job": job,
        "progress": services.import_job_progress(job),
        "stalled": job.is_stalled(timezone.now()),
        "row_errors": job.row_errors.all()[:200],
        "rejection": _rejection_reason(job.message),
        "keep_rejected_days": settings.IMPORT_KEEP_REJECTED_DAYS,
    }
    return render(request, "members/import_detail.html", context)


@permission_required("members.view_importjob", raise_exception=True)
def import_progress(request, job_id: int):
    """The progress bar, polled by htmx until the job is finished."""
    job = get_object_or_404(ImportJob, pk=job_id)
    context = {"job": job, "progress": services.import_job_progress(job), "stalled": job.is_stalled(timezone.now())}
    response = render(request, "members/_import_progress.html", context)
    if job.is_finished:
        response["HX-Refresh"] = "true"  # show the full result with its error list
    return response


def _rejection_reason(message: str) -> str:
    """The job's message without its "nothing was imported", which the banner says once itself."""
    return re.sub(r"[;:] nothing was imported\.", ".", message)


class _Echo:
    def write(self, value):
        return value


@permission_required("members.view_importjob", raise_exception=True)
def import_errors_csv(request, job_id: int):
    job = get_object_or_404(ImportJob, pk=job_id)
    writer = csv.writer(_Echo())
    rows = (
        writer.writerow([e.line, spreadsheet_safe(e.message), spreadsheet_safe(e.text)])
        for e in job.row_errors.iterator(chunk_size=5000)
    )
    response = StreamingHttpResponse(_with_header(writer, rows), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="import-{job.pk}-errors.csv"'
    return response


def _with_header(writer, rows):
    yield writer.writerow(["line", "error", "row in the file"])
    yield from rows
