"""Every refusal a rule can give: one table of codes (issue 15). A service raises
`DomainError(message, code=...)`: the message is the clerk's words for this case (names, times),
the code one entry of ERRORS, whose meaning is the generic description (the API's OpenAPI
document quotes it) and whose status is what the machine API answers (draws/api.py).

One code means one thing: a new situation gets a new code here, never a borrowed one.
core/tests/test_errors.py checks every raise site's code against this table and the table
against the raise sites."""

import logging
from dataclasses import dataclass

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ErrorCode:
    code: str
    status: int  # what the machine API answers; 400 for refusals no device can meet
    meaning: str


def _table(*entries: tuple) -> dict[str, ErrorCode]:
    table = {}
    for code, status, meaning in entries:
        if code in table:
            raise ValueError(f"error code {code!r} is in the table twice")
        table[code] = ErrorCode(code, status, meaning)
    return table


# fmt: off
ERRORS = _table(
    # Activation: what the machine API answers (draws/api.py; README "Machine API"). Statuses are
    # part of the API contract: do not change them.
    ("unknown_card", 404, "no member has this card number"),
    ("unknown_draw", 404, "there is no draw with this id"),
    ("wrong_device", 403, "this kind of device may not do this"),
    ("wrong_property", 403, "the device belongs to another property than the draw"),
    ("not_active_on_floor", 403, "the app activates only while the feed reports the member playing at the draw's "
        "property, within PLAYING_FRESH_MINUTES"),
    ("not_eligible", 403, "the member may not enter this draw (the reason is for the Rewards desk, not the floor)"),
    ("is_proxy", 403, "the member is a registered proxy of another participant in this draw and may not take part"),
    ("window_closed", 409, "the draw's ticket windows are not open now"),
    ("not_published", 409, "the draw's promotion is not published: its draws take no tickets"),
    ("already_activated", 409, "the member already activated for this draw"),
    ("rule_changed", 409, "the draw's earning rule changed while the tickets were counted; send the request again"),
    ("rule_unreadable", 409, "the draw's earning rule cannot be read; the promotions manager must fix it"),
    ("no_tickets", 422, "the member has no tickets for this draw"),
    ("raps_session", 422, "the draw is a RAPS session: it picks players actively playing, nobody activates tickets"),
    ("bad_channel", 422, "the channel sent is not the one this device's token activates as"),
    ("unknown_channel", 422, "the channel is not one of ehost, app or desk"),
    ("desk_tier", 403, "the desk prints tickets only for the draw's desk-assisted tiers"),
    ("finalist_draw_has_tickets", 400, "a finalist draw takes only carried places, but tickets were activated for it"),
    # Members, exclusions, imports.
    ("already_member", 400, "this person already holds a card"),
    ("person_refused", 400, "the person may not hold a card: under 18, excluded or a connected person"),
    ("invalid_member", 400, "a member's field is empty or not valid"),
    ("invalid_phone", 400, "the phone number is not valid"),
    ("invalid_identity", 400, "the ID document is not valid"),
    ("invalid_sa_id", 400, "the SA ID number is not valid"),
    ("invalid_id_type", 400, "the kind of ID document is not known"),
    ("invalid_document_number", 400, "the ID document number is not 5 to 20 letters and digits"),
    ("birth_date_mismatch", 400, "the date of birth is not the one the SA ID number holds"),
    ("no_birth_date", 400, "the date of birth is missing and the document does not hold it"),
    ("invalid_kind", 400, "the kind of exclusion is not known"),
    ("already_ended", 400, "the exclusion has already ended"),
    ("ends_before_start", 400, "the exclusion would end before it starts"),
    ("unknown_kind", 400, "the kind of import is not known"),
    ("file_too_large", 400, "the imported file is over the size limit"),
    # Staff and permissions.
    ("not_allowed", 400, "the signed-in user's role may not do this"),
    ("other_property", 400, "the signed-in user does not work at the property concerned"),
    ("no_user", 400, "only a signed-in member of staff may do this"),
    ("unlock_what", 400, "an unlock names neither one account nor one address"),
    ("unlock_bad_address", 400, "the address to unlock is not a computer's address"),
    # Promotions, series and rules.
    ("invalid", 400, "the promotion's fields are not valid"),
    ("bad_rule", 400, "a value of the earning rule is not valid"),
    ("bad_window", 400, "a ticket window is not valid"),
    ("no_window", 400, "the draw has no ticket window"),
    ("no_tiers", 400, "no eligible tier is chosen"),
    ("outside_promotion", 400, "the date lies outside the promotion's dates"),
    ("series_live", 400, "tickets are activated for an open draw of the series: its rule cannot change now"),
    ("series_has_draws", 400, "the series has draws at its property: its property cannot change"),
    # Scheduling, moving and cancelling draws.
    ("in_the_past", 400, "the time chosen has already passed"),
    ("time_taken", 400, "the series already has a draw at that time"),
    ("schedule_refused", 400, "one of the draws to schedule is refused"),
    ("not_movable", 400, "the draw cannot be moved now"),
    ("no_reason", 400, "the reason, which is kept, is missing"),
    ("nothing_chosen", 400, "no draw is chosen"),
    ("too_many", 400, "more draws are chosen than may be cancelled at once"),
    ("not_cancellable", 400, "a chosen draw cannot be cancelled"),
    ("duplicate_device", 400, "the property already has a device of that name"),
    # Running a draw on stage.
    ("cannot_start", 400, "the draw cannot start now"),
    ("no_winner_left", 400, "the draw has no winner left to pick (its places are held already)"),
    ("early_start_reason_required", 400, "the draw starts before its time: say why"),
    ("witness_required", 400, "the witness's name is missing"),
    ("witness_recorded", 400, "the witness is already recorded"),
    ("not_running", 400, "the draw is not running"),
    ("not_manual", 400, "the draw is not drawn from a manual bin"),
    ("pick_awaiting", 400, "a pick's outcome must be recorded first"),
    ("serial_refused", 400, "the ticket serial keyed cannot be a pick"),
    ("no_entrant_left", 400, "no entrant left can win: the draw must end with a reason"),
    ("bad_outcome", 400, "the outcome is not one of the pick outcomes"),
    ("id_type_required", 400, "a present winner's ID document type is missing"),
    ("bad_id_type", 400, "the ID document type is not one of those seen on stage"),
    ("stand_in_not_declined", 400, "an audience stand-in is named only for a declined winner"),
    ("outcome_recorded", 400, "the pick already has its outcome"),
    ("outcome_refused", 400, "that outcome cannot be recorded for this pick"),
    ("won_in_scope", 400, "the member already won where one win is allowed"),
    # RAPS sessions.
    ("raps_not_csv", 400, "the uploaded list cannot be read as CSV"),
    ("raps_bad_header", 400, "the uploaded list's header is not the expected one"),
    ("raps_too_large", 400, "the uploaded list is too large for one session"),
    ("raps_empty_list", 400, "the uploaded list has no players"),
    ("raps_bad_rows", 400, "rows of the uploaded list are wrong"),
    ("raps_bad_min_spend", 400, "the minimum spend is not a whole number, 0 or more"),
    ("raps_bad_quota", 400, "the slot and table quotas are not whole numbers adding up to the winners"),
    ("raps_bad_exclusion", 400, "the excluded machines cannot be read"),
    ("raps_empty_pool", 400, "no player qualifies for a pool whose quota is above 0"),
    ("raps_not_open", 400, "the session's list cannot be uploaded now"),
    ("raps_replace_reason", 400, "a list is replaced without the reason"),
    # Proxies and declines.
    ("several_days", 400, "the draws chosen are not on one promotional day"),
    ("no_name", 400, "the proxy's name is missing"),
    ("proxy_refused", 400, "a rule refuses this proxy nomination"),
    ("decline_refused", 400, "a rule refuses this decline"),
    ("not_presented", 400, "the documents or the person required in person were not presented"),
    ("not_printed", 400, "the proxy form is not printed and signed yet"),
    ("unknown_registration", 400, "the registration no longer exists"),
    ("already_revoked", 400, "the registration is already revoked or withdrawn"),
    ("draw_started", 400, "the draw has started: the registration stands"),
    # Prize boards.
    ("board_in_use", 400, "the prize board cannot be changed now"),
    ("board_settings", 400, "the prize board's game settings are not valid"),
    ("board_over_total", 400, "the prizes add up to more than the board's total"),
    ("board_under_total", 400, "the prizes add up to less than the board's total"),
    ("label_required", 400, "the prize has no name"),
    ("label_taken", 400, "the board already has a prize of that name"),
    ("wrong_target", 400, "a carried place or entries go to a draw outside the promotion's later draws"),
    ("last_slot", 400, "a prize board keeps at least one prize"),
    ("vault_slot", 400, "the vault's pink and white ball prizes stay on the board"),
    ("no_slot", 400, "the prize is not on this board"),
    ("no_move", 400, "the prize is already first or last"),
    # Conducting games and recording prizes.
    ("not_winner", 400, "the pick is not a winner"),
    ("no_pick", 400, "no such pick, or none chosen"),
    ("pick_of_other_draw", 400, "the pick is not of this draw"),
    ("draw_not_started", 400, "the draw has not started"),
    ("draw_running", 400, "the draw does not have all its winners yet"),
    ("no_board", 400, "the series has no prize board for this winner"),
    ("game_not_here", 400, "the game is not conducted from this page"),
    ("board_incomplete", 400, "the prize board is not complete"),
    ("game_refused", 400, "what the conductor recorded cannot have happened in the game"),
    ("finished_already", 400, "the game is finished and its prizes recorded"),
    ("turn_recorded", 400, "the winner's turn cannot be recorded now"),
    ("turns_missing", 400, "a winner's turn is still to be recorded"),
    ("event_blank", 400, "what happened on stage is not filled in"),
    ("event_unreadable", 400, "what happened on stage cannot be read or cannot have happened"),
    ("nothing_to_record", 400, "nothing is played on stage for this board"),
    ("bad_paddle", 400, "there is no such paddle"),
    ("stand_in_required", 400, "the audience stand-in who chooses for a declined finalist is not named"),
    ("no_prize", 400, "the game gave no prize to record"),
    ("reversal_here", 400, "a correction is made from the prize record"),
    ("reverse_refused", 400, "the prize line cannot be corrected"),
    ("carry_target_unknown", 400, "a carried prize does not say which later draw it is for"),
    ("carry_no_later_draw", 400, "no later draw of the series is scheduled to carry to"),
    ("carry_target_frozen", 400, "the later draw's entries are frozen"),
    ("place_already_held", 400, "the member already holds a place in the later draw"),
    # Progressive jackpots and vaults.
    ("wrong_draw", 400, "the draw is not one of the jackpot's draws"),
    ("shared_out", 400, "the jackpot has been shared out"),
    ("draw_not_closed", 400, "the draw has not finished"),
    ("won_already", 400, "the jackpot was already won"),
    ("grown_already", 400, "the jackpot already grew after this draw"),
    ("no_amount", 400, "the jackpot has no amount for this draw"),
    ("grows_by_rule", 400, "the jackpot grows by its rule: its amount is not set by hand"),
    ("invalid_amount", 400, "the amount is not valid"),
    ("too_late", 400, "the draw has started: amounts are set before it"),
    ("no_sharers", 400, "the winners sharing the jackpot are not named"),
    ("progressive_changed", 400, "the jackpot changed while the share-out was finished"),
    ("no_vault", 400, "the draw has no vault jackpot for the tier"),
    ("no_vault_board", 400, "there is no vault prize board to play"),
    # Wild cards.
    ("no_draw", 400, "no such draw"),
    ("not_wild_card", 400, "the draw is not a wild card draw"),
    ("wild_card_frozen", 400, "the wild card draw's entries are frozen"),
    ("wild_card_bin_number", 400, "the bin number is not 1 to 5"),
    ("wild_card_bin_taken", 400, "the bin was drawn for the other wild card"),
    ("wild_card_no_bin", 400, "there is no such bin on the day"),
    ("wild_card_bin_not_drawn", 400, "the bin has not been drawn yet"),
    # Prize letters and payouts.
    ("letter_refused", 400, "the winner's letter cannot be issued (draw not complete, late, paid at the device, "
     "no money line, or a live letter already)"),
    ("letter_card_required", 400, "the winner's card was not swiped"),
    ("letter_card_mismatch", 400, "the card swiped is not the winner's"),
    ("letter_proxy", 403, "a letter is issued to the winner in person, never to a proxy"),
    ("letter_id_type", 400, "the ID type is not one the desk accepts"),
    ("letter_id_invalid", 400, "the ID number presented is not a valid number of its type"),
    ("letter_id_mismatch", 400, "the ID presented is not the winner's"),
    ("letter_void_refused", 400, "the letter cannot be voided (paid, voided or expired already)"),
    ("payout_refused", 400, "the prize cannot be recorded as paid at the device"),
    # The cash desk (prizes/cash_desk.py).
    ("payout_code_invalid", 400, "the letter's code does not match it: altered or not issued by us"),
    ("payout_letter_voided", 400, "the letter was voided: it is not paid"),
    ("payout_letter_expired", 400, "the letter expired: its prizes were not collected in time"),
    ("payout_already_paid", 409, "the prize of the letter is already paid"),
    ("payout_no_such_prize", 400, "the letter has no prize of the kind chosen"),
    ("payout_id_type", 400, "the type of ID the winner shows is not one the cash desk accepts"),
    ("payout_id_digits", 400, "the last four characters of the ID shown were not typed"),
    ("payout_id_mismatch", 400, "the ID shown is not the winner's"),
    ("payout_signature", 400, "the winner has not signed for receipt"),
    ("letter_render_refused", 400, "the letter's PDF is ready or already being rendered: nothing to render again"),
    # Record packs (records/packs.py).
    ("record_pack_in_progress", 409, "a record pack of the promotion is already being built"),
    # A member's own record (POPIA s23; records/member_record.py).
    ("record_not_confirmed", 400, "the member's presence and ID were not confirmed before printing their own record"),
    ("record_not_the_member", 400, "the card or ID number given is not the member's whose own record was asked for"),
    # Records kept three years (issue 16; records/retention.py).
    ("kept_three_years", 400, "a promotion's records are kept three years after it ends: none of them is deleted"),
)
# fmt: on


class DomainError(Exception):
    """A rule refused the action. `message` is written for the desk clerk who reads it;
    `code` is stable, for API clients and tests: one entry of ERRORS."""

    def __init__(self, message: str, *, code: str) -> None:
        if code not in ERRORS:
            from django.conf import settings

            # A code missing from the table is a programming error: loud in tests and development,
            # while in production the clerk still reads the refusal rather than a server error.
            if not getattr(settings, "PRODUCTION", False):
                raise ValueError(f"DomainError code {code!r} is not in core.errors.ERRORS")
            logger.error("DomainError code %r is not in core.errors.ERRORS", code)
        super().__init__(message)
        self.message = message
        self.code = code
