"""Time prize letter PDFs (issue 15, item 12): one letter through the service against raw
WeasyPrint on the same HTML in the same run (target: at most 1.2 times), and 100 letters through
a real Celery worker (letters per second).

    .venv/bin/python bench/letters.py [--database-url postgres://postgres@127.0.0.1:5432/promodesk_letterbench]
        [--letters 100] [--runs 20] [--concurrency 2] [--workers 1] [--redis-url redis://127.0.0.1:6379/13]

Uses its own database (promodesk_letterbench by default: created and migrated if missing). The
first run makes --letters letters the way the desk does: draws of 5 winners (the test builders'
draws, run by the engine), each winner's prize lines (R5,000 cash and R500 +Play) and
prizes.letter_services.letter_issue; the render each issue queues is not sent during this
set-up (the bench swaps prizes.letter_pdf._queue out). Later runs reuse the letters.

(1) Per letter, in this process, --runs letters in turn after 3 untimed renders (fonts, caches):
    (a) the service: prizes.letter_pdf.letter_render(letter_id=...) on the letter put back to
        pending: claim, read the letter, build the context (QR included), render the template
        with core.pdf.render_pdf, store the file, mark it ready, audit it;
    (b) raw WeasyPrint on the same HTML (render_to_string of the letter's template and context,
        made before the clock starts), with the same fonts and stylesheets (the project's fonts
        and css/letter.css), parsed once and reused, as core.pdf reuses them in a thread:
        weasyprint.HTML(string=html).write_pdf(stylesheets=..., font_config=...). The same PDF,
        WeasyPrint's work alone: the baseline of the target;
    (c) the same, parsing the fonts and stylesheets for each letter (what one self-contained
        call does; core.pdf did that before it kept them per thread);
    (d) raw WeasyPrint on the same HTML without any stylesheet or font, the brief's literal
        `weasyprint.HTML(string=html).write_pdf()` (another, unstyled layout: for reference).
    The four alternate letter by letter, so a slower moment of the machine hits all of them.
(2) The batch: `celery -A config worker` (prefork, --concurrency processes) on Redis and its own
    queue, MEDIA_ROOT a temporary directory; every letter put back to pending, then one
    prizes.tasks.letter_render task each, sent at once; timed from the first send until the last
    letter is ready (the database polled every 50 ms). Letters per second = letters / that time.
    --workers N starts N such workers on the queue (what `docker compose up --scale worker=N`
    runs); a list, e.g. --workers 1,2,2,1, runs the batch once per entry in that order (so a
    slower moment of the machine hits both counts) and prints each count's median rate against
    the first count's (docs/scaling.md).

Prints the times, the ratio service / raw and the target with whether it was met (as text:
nothing here asserts a time).
"""

import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zoneinfo
from pathlib import Path
from unittest import mock

import psycopg
from drawbench import ROOT, continue_member_factory, load_average, migrate, percentile, setup_django

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/promodesk_letterbench"
DEFAULT_REDIS = "redis://127.0.0.1:6379/13"
TARGET_RATIO = 1.2
WARM_UP = 3
WINNERS_PER_DRAW = 5


def ms(value: float) -> str:
    return f"{value * 1000:,.1f} ms"


def summary(values: list[float]) -> str:
    return f"median {ms(statistics.median(values))}, p95 {ms(percentile(values, 0.95))} ({len(values)} runs)"


def ensure_database(url: str) -> None:
    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
            print(f"Created the database {name}")
    migrate(url)


# --- set-up: letters made as the desk makes them ----------------------------------------------


def make_letters(wanted: int) -> list[int]:
    """The ids of `wanted` issued letters, made now if the database has fewer."""
    from prizes.letter_models import PrizeLetter

    have = list(PrizeLetter.objects.filter(status="issued").order_by("id").values_list("pk", flat=True))
    if len(have) >= wanted:
        return have[:wanted]
    import time_machine

    from core.audit import Actor
    from draws.engine import draw_start, pick_outcome_record
    from draws.models import Draw, DrawPick, PickOutcome
    from draws.tests.builders import MANAGER, closed_draw
    from members.demo import ensure_reference_data
    from prizes.letter_services import letter_issue
    from prizes.lines import LineKind, LineSource, LineSpec
    from prizes.services import prize_lines_store
    from promotions.tests.factories import make_series

    ensure_reference_data()
    continue_member_factory()
    desk = Actor.system("bench")
    draws = -(-(wanted - len(have)) // WINNERS_PER_DRAW)
    print(f"Making {wanted - len(have)} letters: {draws} draws of {WINNERS_PER_DRAW} winners ...", flush=True)
    began = time.perf_counter()
    # Letters are issued within 15 days of the draw: draws of two days ago, at one-minute steps,
    # from 14h00 Johannesburg (after make_series' window, 08h00-12h55, whatever the hour now).
    johannesburg = zoneinfo.ZoneInfo("Africa/Johannesburg")
    two_days_ago = dt.datetime.now(johannesburg) - dt.timedelta(days=2)
    start = two_days_ago.replace(hour=14, minute=0, second=0, microsecond=0).astimezone(dt.UTC)
    series = make_series()
    series.winners_per_draw = WINNERS_PER_DRAW
    series.save()
    # The renders the issues queue are not sent during set-up: the bench sends its own.
    with mock.patch("prizes.letter_pdf._queue"):
        for i in range(draws):
            at = start + dt.timedelta(minutes=i)
            with time_machine.travel(at + dt.timedelta(seconds=30), tick=False):
                draw, _ = closed_draw(series, at, [1 + (j * 7) % 11 for j in range(10)])
                draw_start(actor=MANAGER, draw_id=draw.pk, witness_name="Bench Witness")
                while (pick := DrawPick.objects.filter(draw=draw, outcome="").first()) is not None:
                    pick_outcome_record(
                        actor=MANAGER,
                        draw_id=draw.pk,
                        pick_id=pick.pk,
                        outcome=PickOutcome.PRESENT,
                        id_type_seen="sa_id",
                    )
                draw = Draw.objects.get(pk=draw.pk)
                for pick in DrawPick.objects.filter(draw=draw, outcome=PickOutcome.PRESENT).select_related("member"):
                    specs = [
                        LineSpec(LineKind.CASH, 500_000, LineSource.BOARD, "Podium 1"),
                        LineSpec(LineKind.PLAY, 50_000, LineSource.ADD_ON, "+Play (app)"),
                    ]
                    prize_lines_store(actor=MANAGER, draw=draw, pick=pick, specs=specs)
                    letter_issue(
                        actor=desk,
                        pick_id=pick.pk,
                        card_number=pick.member.card_number,
                        id_type_seen="sa_id",
                        id_number_presented=pick.member.id_number,
                    )
    print(f"  made in {time.perf_counter() - began:,.1f} s", flush=True)
    return make_letters(wanted)


# --- (1) one letter: the service against raw WeasyPrint ----------------------------------------


def per_letter(letter_ids: list[int], runs: int) -> dict[str, list[float]]:
    import weasyprint
    from django.template.loader import render_to_string
    from weasyprint.text.fonts import FontConfiguration

    from core.pdf import FONTS_CSS, _static_path
    from prizes import letter_pdf
    from prizes.letter_models import PrizeLetter, RenderState

    paths = [_static_path(name) for name in (FONTS_CSS, letter_pdf.CSS)]

    def parsed():
        fonts = FontConfiguration()
        return fonts, [weasyprint.CSS(filename=path, font_config=fonts) for path in paths]

    kept_fonts, kept_sheets = parsed()

    def service(letter_id, html):
        PrizeLetter.objects.filter(pk=letter_id).update(render_state=RenderState.PENDING)
        began = time.perf_counter()
        assert letter_pdf.letter_render(letter_id=letter_id), "the service did not render the letter"
        return time.perf_counter() - began

    def raw(letter_id, html):
        began = time.perf_counter()
        weasyprint.HTML(string=html, base_url=str(ROOT)).write_pdf(stylesheets=kept_sheets, font_config=kept_fonts)
        return time.perf_counter() - began

    def raw_parsing(letter_id, html):
        began = time.perf_counter()
        fonts, sheets = parsed()
        weasyprint.HTML(string=html, base_url=str(ROOT)).write_pdf(stylesheets=sheets, font_config=fonts)
        return time.perf_counter() - began

    def bare(letter_id, html):
        began = time.perf_counter()
        weasyprint.HTML(string=html).write_pdf()
        return time.perf_counter() - began

    ways = {"service": service, "raw": raw, "raw_parsing": raw_parsing, "bare": bare}
    times: dict[str, list[float]] = {name: [] for name in ways}
    for n in range(runs + WARM_UP):
        letter_id = letter_ids[n % len(letter_ids)]
        letter = PrizeLetter.objects.with_related().get(pk=letter_id)
        html = render_to_string(letter_pdf.TEMPLATE, letter_pdf.letter_pdf_context(letter))
        for name, way in ways.items():
            took = way(letter_id, html)
            if n >= WARM_UP:
                times[name].append(took)
    return times


# --- (2) the batch through a real worker --------------------------------------------------------


def worker_hostname(queue: str, index: int) -> str:
    return f"letterbench-{queue}@localhost" if index == 0 else f"letterbench-{queue}-{index}@localhost"


def start_worker(*, url: str, redis_url: str, queue: str, media_root: str, concurrency: int, log: Path, index: int = 0):
    env = {
        **os.environ,
        "APP_ENV": "development",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": redis_url,
        "REDIS_URL": redis_url,
        "MEDIA_ROOT": media_root,
        "DEBUG": "",
    }
    celery = Path(sys.executable).with_name("celery")
    command = [
        str(celery),
        "-A",
        "config",
        "worker",
        "--pool=prefork",
        f"--concurrency={concurrency}",
        "--loglevel=WARNING",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        f"--hostname={worker_hostname(queue, index)}",
        f"--queues={queue}",
    ]
    with log.open("wb") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def batch(letter_ids: list[int], *, url: str, redis_url: str, concurrency: int, workers: int = 1) -> tuple[float, int]:
    from config.celery import app
    from prizes.letter_models import PrizeLetter, RenderState
    from prizes.tasks import letter_render

    queue = f"letterbench-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    folder = Path(tempfile.mkdtemp(prefix="letterbench-"))
    started = [
        start_worker(
            url=url,
            redis_url=redis_url,
            queue=queue,
            media_root=str(folder / "media"),
            concurrency=concurrency,
            log=folder / f"worker-{index}.log",
            index=index,
        )
        for index in range(workers)
    ]
    try:
        for index, worker in enumerate(started):
            deadline = time.monotonic() + 60
            while not app.control.ping(destination=[worker_hostname(queue, index)], timeout=0.5):
                if worker.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"The worker did not start: see {folder / f'worker-{index}.log'}")
        letters = PrizeLetter.objects.filter(pk__in=letter_ids)
        letters.update(render_state=RenderState.PENDING, render_error="")
        began = time.perf_counter()
        for letter_id in letter_ids:
            letter_render.delay(letter_id)
        # A lost task would otherwise keep the bench (and make test's smoke run) waiting for ever.
        deadline = began + 60 + 10 * len(letter_ids)
        while letters.filter(render_state__in=(RenderState.PENDING, RenderState.RENDERING)).exists():
            if any(worker.poll() is not None for worker in started):
                raise SystemExit(f"A worker exited: see {folder}/worker-*.log")
            if time.perf_counter() > deadline:
                raise SystemExit(f"Letters not all ready after {deadline - began:.0f} s: see {folder}/worker-*.log")
            time.sleep(0.05)
        elapsed = time.perf_counter() - began
        failed = letters.filter(render_state=RenderState.FAILED).count()
    finally:
        for worker in started:
            worker.terminate()
        for worker in started:
            worker.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)  # kept after an error: the worker's log is there
    return elapsed, failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_LETTERS_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--redis-url", default=DEFAULT_REDIS)
    parser.add_argument("--letters", type=int, default=100)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument(
        "--workers",
        default="1",
        help="Celery workers for the batch, each of --concurrency processes; a list (1,2,2,1) runs it once per entry",
    )
    args = parser.parse_args()

    os.environ["CELERY_BROKER_URL"] = args.redis_url  # this process sends the batch's tasks there
    media_root = tempfile.mkdtemp(prefix="letterbench-media-")
    os.environ["MEDIA_ROOT"] = media_root
    ensure_database(args.database_url)  # migrates in this process: after the settings' environment
    try:
        measure(args)
    finally:
        shutil.rmtree(media_root, ignore_errors=True)


def measure(args) -> None:
    setup_django(args.database_url)
    print(f"Load: {load_average()}")
    letter_ids = make_letters(args.letters)

    times = per_letter(letter_ids, args.runs)
    ratio = statistics.median(times["service"]) / statistics.median(times["raw"])
    ratio_parsing = statistics.median(times["service"]) / statistics.median(times["raw_parsing"])
    print("\n(1) One letter (this process)")
    print(f"  (a) service (letter_render: claim, context, QR, render, store, audit): {summary(times['service'])}")
    print(f"  (b) raw WeasyPrint, same HTML, fonts and sheets parsed once:          {summary(times['raw'])}")
    print(f"  (c) raw WeasyPrint, same HTML, fonts and sheets parsed per letter:    {summary(times['raw_parsing'])}")
    print(f"  (d) raw WeasyPrint, same HTML, no stylesheet (reference):             {summary(times['bare'])}")
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    print(f"  (a) / (b), medians: {ratio:.2f}x; target <= {TARGET_RATIO}x: {verdict}")
    print(f"  (a) / (c), medians: {ratio_parsing:.2f}x")

    counts = [int(count) for count in args.workers.split(",")]
    rates: dict[int, list[float]] = {}
    for workers in counts:
        elapsed, failed = batch(
            letter_ids, url=args.database_url, redis_url=args.redis_url, concurrency=args.concurrency, workers=workers
        )
        rates.setdefault(workers, []).append(len(letter_ids) / elapsed)
        print(f"\n(2) {len(letter_ids)} letters through {workers} worker(s) of {args.concurrency} processes each")
        print(f"  all ready in {elapsed:,.2f} s: {len(letter_ids) / elapsed:,.1f} letters/second ({failed} failed)")
    if len(rates) > 1:
        first = statistics.median(rates[counts[0]])
        for workers, values in rates.items():
            rate = statistics.median(values)
            print(
                f"  {workers} worker(s): median {rate:,.1f} letters/second, {rate / first:.2f}x {counts[0]} worker(s)"
            )
    print(f"Load: {load_average()}")


if __name__ == "__main__":
    main()
