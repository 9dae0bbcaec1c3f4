"""An import's report: each bad row's text beside its reasons, on the page and in the CSV; the
rejection said once; a sample file of each kind; a progress bar that moves through every step
(issue 9, 8)."""

import csv
import io

import pytest
from django.urls import reverse

from core.roles import AUDITOR
from members import imports, services
from members.imports import COLUMNS, ROW_TEXT_CHARS
from members.models import ImportJob, ImportStatus, Member
from members.tests.factories import MemberFactory
from members.tests.test_imports import MEMBERS_HEADER, member_line, points_file, run_import

pytestmark = pytest.mark.django_db


def rows_of(job: ImportJob) -> list[tuple[int, str, str]]:
    return list(job.row_errors.values_list("line", "message", "text"))


def report_csv(client, job) -> list[list[str]]:
    body = b"".join(client.get(reverse("members:import_errors_csv", args=[job.pk])).streaming_content)
    return list(csv.reader(io.StringIO(body.decode())))


# --- the bad row's own text -----------------------------------------------------------------


def test_each_bad_row_keeps_its_text_beside_its_reasons(reference_data, manager):
    good, bad = member_line("2000000001"), member_line("2000000002", tier="Gold")
    job = run_import("members", f"{MEMBERS_HEADER}\n{good}\n{bad}\n")
    assert rows_of(job) == [(3, "unknown tier 'Gold' (expected one of Ten, Jack, Queen, King, Ace)", bad)]
    page = manager.get(reverse("members:import_detail", args=[job.pk])).content.decode()
    assert f'<td class="mono small text-break import-row-text">{bad}</td>' in page
    assert report_csv(manager, job) == [["line", "error", "row in the file"], ["3", rows_of(job)[0][1], bad]]


def test_a_row_spread_over_lines_by_a_quoted_field_keeps_all_of_them(reference_data):
    bad = member_line("2000000001", tier="Gold").replace("Refilwe", '"Refi\nlwe"')
    job = run_import("members", f"{MEMBERS_HEADER}\r\n{bad}\r\n")
    ((line, _, text),) = rows_of(job)
    assert line == 3 and text == bad  # its line break kept; the row's own line ending not


def test_a_row_with_the_wrong_number_of_columns_keeps_its_text(reference_data):
    job = run_import("members", f"{MEMBERS_HEADER}\nonly,three,cells\n")
    assert rows_of(job) == [(2, "expected 11 columns, found 3", "only,three,cells")]


def test_a_very_long_bad_row_is_kept_cut_to_a_readable_length(reference_data):
    bad = member_line("2000000001", first_name="N" * 3000)
    job = run_import("members", f"{MEMBERS_HEADER}\n{bad}\n")
    ((_, message, text),) = rows_of(job)
    assert "first_name is longer than 60 characters" in message
    assert len(text) == ROW_TEXT_CHARS and text.endswith("…") and text.startswith("2000000001,")


def test_a_nul_in_a_bad_row_is_written_as_backslash_zero(reference_data):
    bad = member_line("2000000001", first_name="Re\x00filwe")
    job = run_import("members", f"{MEMBERS_HEADER}\n{bad}\n")
    ((_, message, text),) = rows_of(job)
    assert message == "first_name contains a NUL character" and "Re\\0filwe" in text


def test_points_rows_keep_their_text_too(reference_data):
    MemberFactory(card_number="3000000001")
    rows = ["3000000001,GRC,2026-10-01 10:00:00,5,R1", "9999999999,GRC,2026-10-01 10:00:00,5,R2"]
    rows.append("3000000001,GRC,2026-10-01 10:00:00,7,R1")  # the same reference twice
    job = run_import("points", points_file(*rows))
    assert [(line, text) for line, _, text in rows_of(job)] == [(3, rows[1]), (4, rows[2])]


def test_a_row_whose_card_was_taken_before_the_final_step_keeps_its_text(reference_data, monkeypatch):
    """A sign-up between the check and the final step: found by the final step, whose row text
    is read again from the file."""
    first, second = member_line("2000000001"), member_line("2000000002")
    real = services._progress_report

    def a_sign_up_meanwhile(job, *, step, **kwargs):
        # The final step begins: the rows were read. (Once: a file that the one statement of a
        # plain file does not take begins it again, after checking its rows one by one.)
        if step == "saving" and not Member.objects.filter(card_number="2000000002").exists():
            MemberFactory(card_number="2000000002")
        real(job, step=step, **kwargs)

    monkeypatch.setattr(services, "_progress_report", a_sign_up_meanwhile)
    job = run_import("members", f"{MEMBERS_HEADER}\n{first}\n{second}\n")
    assert job.status == ImportStatus.FAILED
    assert rows_of(job) == [(3, "card number 2000000002 already belongs to a member", second)]


def test_a_row_text_that_looks_like_a_formula_is_defused_in_the_csv(reference_data, manager):
    job = run_import("members", f"{MEMBERS_HEADER}\n=1+1,{member_line().split(',', 1)[1]}\n")
    assert report_csv(manager, job)[1][2].startswith("'=1+1,")


# --- the rejection, said once ---------------------------------------------------------------


def test_the_rejection_banner_says_nothing_was_imported_once(reference_data, manager):
    job = run_import("members", f"{MEMBERS_HEADER}\n{member_line(tier='Gold')}\n")
    page = manager.get(reverse("members:import_detail", args=[job.pk])).content.decode()
    assert page.lower().count("nothing was imported") == 1
    assert "Rejected: nothing was imported.</strong> 1 bad row. Fix it and upload the whole file again." in page


def test_a_file_rejected_whole_says_why_after_the_banner(reference_data, manager):
    job = run_import("members", "wrong,header\n1,2\n")
    page = manager.get(reverse("members:import_detail", args=[job.pk])).content.decode()
    assert page.lower().count("nothing was imported") == 1 and "Line 1: wrong header." in page


# --- samples --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["members", "points"])
def test_each_kind_has_a_sample_file_with_its_header(kind, manager, reference_data):
    response = manager.get(reverse("members:import_sample", args=[kind]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert response["Content-Disposition"] == f'attachment; filename="{kind}-import-sample.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == COLUMNS[kind] and len(rows) == 3
    assert all(len(row) == len(COLUMNS[kind]) for row in rows)


def test_the_samples_import_as_they_are(manager, reference_data):
    members = manager.get(reverse("members:import_sample", args=["members"])).content
    assert run_import("members", members).status == ImportStatus.SUCCEEDED
    assert Member.objects.get(card_number="1000000016").phone == "+27821234567"
    points = manager.get(reverse("members:import_sample", args=["points"])).content
    job = run_import("points", points)
    assert (job.status, job.rows_imported) == (ImportStatus.SUCCEEDED, 2), rows_of(job)


def test_the_imports_page_links_each_sample(manager, reference_data):
    page = manager.get(reverse("members:imports")).content.decode()
    for kind in ("members", "points"):
        assert reverse("members:import_sample", args=[kind]) in page


def test_an_unknown_kind_has_no_sample(manager):
    assert manager.get(reverse("members:import_sample", args=["draws"])).status_code == 404


def test_the_auditor_reads_imports_but_does_not_get_samples(client_for, reference_data):
    auditor = client_for(AUDITOR)
    assert auditor.get(reverse("members:import_sample", args=["members"])).status_code == 403
    assert reverse("members:import_sample", args=["members"]) not in auditor.get(reverse("members:imports")).text


# --- the progress bar -----------------------------------------------------------------------


@pytest.fixture
def reports(monkeypatch):
    seen = []
    real = services._progress_report

    def spy(job, *, rows, percent, step):
        seen.append((step, rows, percent))
        real(job, rows=rows, percent=percent, step=step)

    monkeypatch.setattr(services, "_progress_report", spy)
    return seen


def test_the_bar_moves_chunk_by_chunk_and_then_through_the_final_step(reference_data, reports, monkeypatch):
    monkeypatch.setattr(imports, "CHUNK_ROWS", 2)
    lines = [member_line(f"200000000{n}") for n in range(1, 8)]
    job = run_import("members", "\n".join([MEMBERS_HEADER, *lines]) + "\n")
    assert job.status == ImportStatus.SUCCEEDED
    reading = [(rows, percent) for step, rows, percent in reports if step == "reading"]
    assert [rows for rows, _ in reading] == [2, 4, 6, 7]
    percents = [percent for _, percent in reading]
    assert percents == sorted(percents) and 0 < percents[0] < percents[-1] == services.READ_SHARE
    assert reports[-1] == ("saving", 7, services.READ_SHARE + 5)  # not stuck at 100% while saving
    assert services.import_job_progress(job) == {"rows": 7, "percent": 100}


def test_a_long_list_of_bad_rows_moves_the_bar_while_it_is_written(reference_data, reports, monkeypatch):
    monkeypatch.setattr(services, "ROW_ERROR_BATCH", 2)
    lines = [member_line(f"200000000{n}", tier="Gold") for n in range(1, 6)]
    run_import("members", "\n".join([MEMBERS_HEADER, *lines]) + "\n")
    listing = [percent for step, _, percent in reports if step == "listing"]
    assert listing == [94, 98, 100]


@pytest.mark.parametrize(
    ("progress", "says"),
    [
        ({"rows": 5000, "percent": 40, "step": "reading"}, "Checking the file · 5,000 rows read"),
        ({"rows": 9000, "percent": 95, "step": "saving"}, "All 9,000 rows are good: saving them."),
        ({"rows": 9000, "percent": 92, "step": "listing"}, "9,000 rows read: listing the bad ones."),
    ],
)
def test_the_bar_says_which_step_the_import_is_in(progress, says, manager, reference_data, monkeypatch):
    job = run_import("members", f"{MEMBERS_HEADER}\n{member_line()}\n")
    ImportJob.objects.filter(pk=job.pk).update(status=ImportStatus.RUNNING, finished_at=None)
    monkeypatch.setattr(services, "import_job_progress", lambda job: progress)
    fragment = manager.get(reverse("members:import_progress", args=[job.pk])).content.decode()
    assert says in fragment and f'data-percent="{progress["percent"]}"' in fragment


def test_a_queued_import_says_it_waits_for_a_worker(manager, reference_data):
    from django.core.files.base import ContentFile

    from core.audit import Actor

    job = services.import_job_create(
        actor=Actor.system("test"), kind="members", file=ContentFile(b"x"), name="members.csv"
    )
    page = manager.get(reverse("members:import_detail", args=[job.pk])).content.decode()
    assert "Waiting for a worker to start it." in page and 'data-percent="0"' in page
