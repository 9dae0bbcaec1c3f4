import csv
import datetime as dt

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import permission_required
from django.db.models import Sum
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from core.audit import Actor
from core.errors import DomainError
from core.formats import spreadsheet_safe
from core.forms import submit
from core.models import AuditEvent
from members import lookup_views, services
from members.eligibility import member_eligibility
from members.forms import ExclusionForm, ExclusionSearchForm, ImportForm, SignUpForm
from members.imports import COLUMNS
from members.models import Exclusion, ImportJob, Member
from members.selectors import exclusions_in_force
from members.tasks import import_job_run_task

# The lookup (page and header field) lives in members/lookup_views.py.
lookup = lookup_views.lookup


@permission_required("members.view_member", raise_exception=True)
def member_detail(request, member_id: int):
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    now = timezone.now()
    context = {
        "member": member,
        "eligibility": member_eligibility(member, now),
        "exclusions": Exclusion.objects.for_identity(member.id_number),
        "recent_points": member.points.select_related("property").order_by("-earned_at")[:10],
        "points_30_days": member.points.filter(earned_at__gte=now - dt.timedelta(days=30)).aggregate(
            total=Sum("points")
        )["total"]
        or 0,
        "history": AuditEvent.objects.filter(object_type="members.member", object_id=str(member.pk))[:20],
        "show_id": request.user.has_perm("members.add_member") or request.user.has_perm("members.add_exclusion"),
    }
    return render(request, "members/detail.html", context)


@permission_required("members.add_member", raise_exception=True)
def sign_up(request):
    form = SignUpForm(request.POST or None)
    member = submit(
        request, form, lambda: services.member_sign_up(actor=Actor.from_request(request), **form.cleaned_data)
    )
    if member:
        messages.success(request, f"{member.full_name} is signed up. New card number: {member.card_number}.")
        return redirect("members:detail", member_id=member.pk)
    return render(request, "members/sign_up.html", {"form": form})


@permission_required("members.view_exclusion", raise_exception=True)
def exclusions(request):
    form = ExclusionSearchForm(request.GET or None)
    query = form.cleaned_data["q"] if form.is_valid() else ""
    # A search with an error lists nothing, not every exclusion as if they matched.
    found = Exclusion.objects.none() if form.errors else exclusions_in_force(query=query, at=timezone.now())
    return render(request, "members/exclusions.html", {"exclusions": found[:200], "q": query, "form": form})


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
                import_job_run_task.delay_on_commit(job.pk)
                return redirect("members:import_detail", job_id=job.pk)
    jobs = ImportJob.objects.select_related("created_by")[:30]
    return render(request, "members/imports.html", {"form": form, "jobs": jobs, "columns": COLUMNS})


@permission_required("members.view_importjob", raise_exception=True)
def import_detail(request, job_id: int):
    job = get_object_or_404(ImportJob.objects.select_related("created_by"), pk=job_id)
    context = {
        "job": job,
        "progress": services.import_job_progress(job),
        "stalled": job.is_stalled(timezone.now()),
        "row_errors": job.row_errors.all()[:200],
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


class _Echo:
    def write(self, value):
        return value


@permission_required("members.view_importjob", raise_exception=True)
def import_errors_csv(request, job_id: int):
    job = get_object_or_404(ImportJob, pk=job_id)
    writer = csv.writer(_Echo())
    rows = (writer.writerow([e.line, spreadsheet_safe(e.message)]) for e in job.row_errors.iterator(chunk_size=5000))
    response = StreamingHttpResponse(_with_header(writer, rows), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="import-{job.pk}-errors.csv"'
    return response


def _with_header(writer, rows):
    yield writer.writerow(["line", "error"])
    yield from rows
