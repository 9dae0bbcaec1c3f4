"""The conductor records what happened on stage; the system computes the prize lines (issue 14,
item 2): never a typed amount.

- game_event_record: one thing that happened (a slot opened, a ball drawn), checked against the
  game's rules by its pure engine (prizes/games/) before it is kept; GameRefused becomes the
  conductor's refusal in words.
- game_finish: the prize lines of the play's winners, computed from the events, the board, the
  winners' add-on flags at their outcome time and the series' progressive when the game says a
  jackpot was won; stored exactly once (the draw's row lock serialises two clicks).

A play is one per draw and board (`pick` empty, each event naming its pick): finishing
computes every winner's lines together, since most games depend on several winners (the vault's
balls drawn without replacement, slots each opened once, hands ranked). What is particular to a
game — its fields, its turns, its engine, its controls — is its `Conducted` in prizes/conducting/.
"""

from django.db import transaction
from django.utils import timezone

from core.audit import Actor, audit_log
from core.errors import DomainError
from draws.models import Draw, DrawPick, DrawStatus
from members.models import Member
from members.staff import check_staff_property
from prizes.addon_selectors import addon_lines_of_day
from prizes.addons import WinnerFlags, addon_lines
from prizes.boards import candidate_boards, missing_settings_of, most_specific_board
from prizes.carry import place_lines_resolve
from prizes.conducting import conducted
from prizes.conducting.slots import slot_line
from prizes.lines import GameRefused, LineKind, LineSource, LineSpec
from prizes.models import GamePlay, GamePlayStatus, PrizeBoard, PrizeLine, Progressive
from prizes.progressives import jackpot_line, progressive_win
from prizes.services import PRIZES, prize_lines_store

RUN_PERMISSION = "draws.add_drawpick"  # the conductor: whoever runs the draw on stage


# --- Reading a play ---------------------------------------------------------------------------


def play_lines(
    draw: Draw, board: PrizeBoard, events: list[dict], winners: list[DrawPick], *, final: bool = False
) -> dict[int, list[LineSpec]]:
    """Each winner's lines (by pick id) from the events so far; GameRefused if they cannot have
    happened. `winners` are the board's winning picks in pick order. `final`: the play is being
    finished (a declined winner without a turn gets the slot left over, PRIZES.md §1)."""
    game = conducted(board.game)
    if game is None:
        raise GameRefused(f"{board.get_game_display()} is not conducted from this page yet.")
    lines = game.lines(draw, board, events, winners, final)
    extra = [s for s in board.slots.all() if s.every_winner]  # e.g. RF r34.1 entries for every winner
    qualifiers = car_draw_qualifiers(board, winners)
    for pick, pick_lines in lines.items():
        pick_lines.extend(
            slot_line(s) for s in extra if s.kind != LineKind.PLACE or qualifiers is None or pick in qualifiers
        )
    return lines


def car_draw_qualifiers(board: PrizeBoard, winners: list[DrawPick]) -> set[int] | None:
    """The picks whose every-winner place the board gives: with the setting "car_draw_qualifiers"
    (TH r69, A20), the first N winners in pick order; None: every winner."""
    if "car_draw_qualifiers" not in board.settings:
        return None
    return {pick.pk for pick in winners[: board.setting("car_draw_qualifiers") or 0]}


def board_winners(draw: Draw, board: PrizeBoard) -> list[DrawPick]:
    """The draw's winners who play on `board` (the most specific board of their tier), in pick order."""
    boards = candidate_boards(draw)
    picks = DrawPick.objects.filter(draw=draw).select_related("member", "member__tier").order_by("seq")
    return [
        p
        for p in picks
        if p.is_winner() and getattr(most_specific_board(boards, p.member.tier_id), "pk", None) == board.pk
    ]


# --- Services ---------------------------------------------------------------------------------


def _require(actor: Actor) -> None:
    if actor.user is not None and not actor.user.has_perm(RUN_PERMISSION):
        raise DomainError("Only whoever runs the draw on stage records its games.", code="not_allowed")


def _locked(actor: Actor, pick_id: int) -> tuple[Draw, DrawPick, PrizeBoard]:
    """The pick's draw, locked until the transaction ends, the pick and its board, checked."""
    _require(actor)
    try:
        draw_id = DrawPick.objects.values_list("draw_id", flat=True).get(pk=pick_id)
    except DrawPick.DoesNotExist:
        raise DomainError("No such pick.", code="no_pick") from None
    draw = (
        Draw.objects.select_for_update(of=("self",))
        .select_related("property", "series", "series__promotion")
        .get(pk=draw_id)
    )
    check_staff_property(actor, draw.property, **PRIZES)
    if draw.status not in (DrawStatus.RUNNING, DrawStatus.DRAWN):
        raise DomainError("A game is played once the draw has started.", code="draw_not_started")
    pick = DrawPick.objects.select_related("member", "member__tier").get(pk=pick_id)
    if not pick.is_winner():
        raise DomainError(f"Pick {pick.k} is not a winner: only a winner plays.", code="not_winner")
    board = most_specific_board(candidate_boards(draw), pick.member.tier_id)
    if board is None:
        raise DomainError(f"{draw.series.name} has no prize board for this winner.", code="no_board")
    if conducted(board.game) is None:
        raise DomainError(f"{board.get_game_display()} is not conducted from this page yet.", code="game_not_here")
    if missing := missing_settings_of(board):
        raise DomainError(f"The prize board is not complete: set {', '.join(missing)} first.", code="board_incomplete")
    return draw, pick, board


def _play(draw: Draw, board: PrizeBoard) -> GamePlay:
    play, _ = GamePlay.objects.get_or_create(draw=draw, board=board, pick=None, defaults={"game": board.game})
    return play


def _refused(error: GameRefused) -> DomainError:
    return DomainError(str(error), code="game_refused")


def game_event_record(*, actor: Actor, pick_id: int, event: dict) -> GamePlay:
    """Record one thing the winner of `pick_id` did on stage, in the fields of the board's game
    (prizes/conducting): {"slot": "3"}, {"ball": "pink"}… Refused, with the engine's words, when
    it cannot have happened; audited."""
    with transaction.atomic():
        draw, pick, board = _locked(actor, pick_id)
        game = conducted(board.game)
        play = _play(draw, board)
        if play.status == GamePlayStatus.FINISHED:
            raise DomainError("This game is finished and its prizes recorded.", code="finished_already")
        if refusal := game.turn_refusal(play.events, pick):
            raise DomainError(refusal, code="turn_recorded")
        cleaned = game.event_clean(board, event, pick)
        recorded = {"pick": pick.pk, "k": pick.k, **cleaned, "at": timezone.now().isoformat()}
        try:
            play_lines(draw, board, [*play.events, recorded], board_winners(draw, board))
        except GameRefused as error:
            raise _refused(error) from None
        play.events = [*play.events, recorded]
        play.save(update_fields=["events"])
        audit_log(
            actor=actor,
            action="prize.game_event",
            obj=draw,
            data={"game": board.game, "board": str(board), "pick": pick.k, "card_number": pick.card_number, **cleaned},
        )
    return play


def game_finish(*, actor: Actor, pick_id: int) -> list[PrizeLine]:
    """Compute and store the prize lines of the game `pick_id` plays in, for every winner of it,
    once: finishing again (or a second click waiting on the lock) is refused and stores nothing."""
    with transaction.atomic():
        draw, _pick, board = _locked(actor, pick_id)
        play = _play(draw, board)
        if play.status == GamePlayStatus.FINISHED:
            raise DomainError("This game is finished and its prizes recorded.", code="finished_already")
        if draw.status != DrawStatus.DRAWN:
            raise DomainError("Finish the game once the draw has all its winners.", code="draw_running")
        winners = board_winners(draw, board)
        game = conducted(board.game)
        waiting = game.waiting(play.events, winners)
        if waiting:
            raise DomainError(
                f"Record pick {waiting.k}'s turn first: every winner plays before the prizes are computed.",
                code="turns_missing",
            )
        try:
            lines = play_lines(draw, board, play.events, winners, final=True)
        except GameRefused as error:
            raise _refused(error) from None
        stored = []
        for pick in winners:
            specs = _with_jackpot(actor, draw, board, pick, lines.get(pick.pk, []))
            # Places and entries name the later draw they are carried into (a second place may
            # become cash, TH r70) before the add-ons, so a conversion earns its add-on (A12).
            Member.objects.select_for_update().filter(pk=pick.member_id).first()  # one place per patron
            specs = place_lines_resolve(draw=draw, pick=pick, specs=specs)
            specs += _addons(draw, pick, specs)
            if specs:
                stored += prize_lines_store(actor=actor, draw=draw, pick=pick, specs=specs)
        play.status = GamePlayStatus.FINISHED
        play.finished_at = timezone.now()
        play.finished_by = actor.label
        play.save(update_fields=["status", "finished_at", "finished_by"])
        if game.after_finish:  # e.g. the safe grows when the 9pm draw closes uncracked (TH A17)
            game.after_finish(actor, draw, board, play.events)
        audit_log(
            actor=actor,
            action="prize.game_finished",
            obj=draw,
            data={"game": board.game, "board": str(board), "lines": len(stored)},
        )
    return stored


def _with_jackpot(actor: Actor, draw: Draw, board: PrizeBoard, pick: DrawPick, specs: list[LineSpec]) -> list[LineSpec]:
    """A jackpot line of the game is paid from its progressive when it has one (its value, then
    back to base, one win a draw); else the board's amount is the jackpot. The line's words keep
    the game's (what happened on stage) before the jackpot's."""
    if not any(spec.source == LineSource.JACKPOT for spec in specs):
        return list(specs)
    game = conducted(board.game)
    progressive = (game.progressive and game.progressive(draw, pick)) or (
        Progressive.objects.filter(series_id=draw.series_id).order_by("pk").first()
    )
    if progressive is None:
        return list(specs)
    result = []
    for spec in specs:
        if spec.source == LineSource.JACKPOT:
            won = jackpot_line(progressive_win(actor=actor, progressive_id=progressive.pk, pick_id=pick.pk))
            spec = LineSpec(
                won.kind, won.amount_cents, won.source, _jackpot_words(spec, won), {**spec.data, **won.data}
            )
        result.append(spec)
    return result


def _jackpot_words(stage: LineSpec, won: LineSpec) -> str:
    """What happened on stage, then the jackpot that paid it ("Safe cracked: R140,000; paid
    from Digit safe: R140,000"): the record keeps both, within the line's 300 characters."""
    paid = f"; paid from {won.words}"
    room = PrizeLine._meta.get_field("words").max_length - len(paid)
    said = stage.words if len(stage.words) <= room else stage.words[: room - 1] + "…"
    return f"{said}{paid}"


def _addons(draw: Draw, pick: DrawPick, specs: list[LineSpec]) -> list[LineSpec]:
    """The winner's add-ons by his flags at the moment his outcome was recorded (A6, A12)."""
    verified_at = pick.outcome_at or timezone.now()
    promotion = draw.series.promotion
    return addon_lines(
        promotion_code=promotion.code,
        series_code=draw.series.code,
        flags=WinnerFlags.of(pick.member),
        verified_at=verified_at,
        prize_lines=specs,
        earlier_addons_today=addon_lines_of_day(
            member_id=pick.member_id, promotion_id=promotion.pk, day=timezone.localdate(verified_at)
        ),
    )


# --- The conductor's panel (the draw's run page) ----------------------------------------------


def conduct_panel(draw: Draw) -> list[dict]:
    """For each board the draw's winners play on: its winners in pick order with the turn
    recorded, the choices still open (slots not opened; the balls) and, once finished, the
    lines computed. Only once the draw has started."""
    if draw.status not in (DrawStatus.RUNNING, DrawStatus.DRAWN):
        return []
    boards = candidate_boards(draw)
    if not boards:
        return []
    plays = {p.board_id: p for p in GamePlay.objects.filter(draw=draw, pick__isnull=True)}
    picks = list(DrawPick.objects.filter(draw=draw).select_related("member").order_by("seq"))
    lines: dict[int, list[PrizeLine]] = {}
    for line in PrizeLine.objects.filter(draw=draw).order_by("pk"):
        lines.setdefault(line.pick_id, []).append(line)
    panels: dict[int, dict] = {}
    for pick in picks:
        if not pick.is_winner():
            continue
        board = most_specific_board(boards, pick.member.tier_id)
        if board is None:
            continue
        play = plays.get(board.pk)
        panel = panels.setdefault(
            board.pk, {"board": board, "play": play, "rows": [], "supported": conducted(board.game) is not None}
        )
        events = {e["pick"]: e for e in (play.events if play else [])}
        panel["rows"].append({"pick": pick, "event": events.get(pick.pk), "lines": lines.get(pick.pk, [])})
    for panel in panels.values():
        board, play, game = panel["board"], panel["play"], conducted(panel["board"].game)
        events = play.events if play else []
        panel["finished"] = bool(play and play.status == GamePlayStatus.FINISHED)
        if game:
            panel.update(template=game.template, **game.controls(board, events))
            for row in panel["rows"]:
                mine = [e for e in events if e.get("pick") == row["pick"].pk]
                row["words"] = "; ".join(w for e in mine if (w := game.turn_words(e)))
                row["more"] = game.turn_refusal(events, row["pick"]) is None  # may record another turn
        # Whose turn it is: the first winner who may still record (the page's focus and keys go
        # there); None once every turn is in, when Finish is next.
        turn = next((row for row in panel["rows"] if row.get("more")), None)
        panel["turn"] = turn["pick"].pk if turn and not panel["finished"] else None
    return list(panels.values())


# --- The stage screen (draws.stage.register_game_words) ---------------------------------------


def stage_game_words(draw: Draw) -> list[str]:
    """What the audience reads of the draw's games: each turn as it is recorded ("Pick 2: white
    ball"), then the prizes won once the game is finished. Pick numbers only, no names: two
    queries whatever the number of winners."""
    plays = list(GamePlay.objects.filter(draw=draw).order_by("pk"))
    if not plays:
        return []
    lines: dict[int, list[str]] = {}
    for k, words in PrizeLine.objects.filter(draw=draw).order_by("pick__seq", "pk").values_list("pick__k", "words"):
        lines.setdefault(k, []).append(words)
    shown = []
    for play in plays:
        game = conducted(play.game)
        turns = [(e["k"], words) for e in play.events if game and e.get("k") and (words := game.turn_words(e))]
        last = {k: i for i, (k, _) in enumerate(turns)}  # the prize follows a winner's last turn
        for i, (k, turn) in enumerate(turns):
            won = "; ".join(lines.get(k, [])) if last[k] == i else ""
            shown.append(f"Pick {k}: {turn}" + (f". Won: {won}" if won else ""))
    return shown
