"""The member's own record at the desk (POPIA s23): the clerk confirms the member is present
and identified, then the PDF downloads. Thin: records.member_record refuses, prints and audits."""

from django.contrib.auth.decorators import permission_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from core.audit import Actor
from core.forms import submit
from members.models import Member
from records.member_record import member_record_issue
from records.member_record_forms import MemberRecordForm
from records.member_record_perms import PERMISSION


@permission_required(PERMISSION, raise_exception=True)
def member_record(request, member_id: int):
    member = get_object_or_404(Member.objects.with_related(), pk=member_id)
    form = MemberRecordForm(request.POST or None)
    disclosure = submit(
        request,
        form,
        lambda: member_record_issue(
            actor=Actor.from_request(request),
            member_id=member.pk,
            identified_by=form.cleaned_data["identified_by"],
            in_person=form.cleaned_data["in_person"],
        ),
    )
    if disclosure:
        response = HttpResponse(disclosure.pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="{disclosure.filename}"'
        response["Cache-Control"] = "no-store"  # personal data: never kept by a browser or proxy
        return response
    return render(request, "records/member_record_form.html", {"member": member, "form": form})
