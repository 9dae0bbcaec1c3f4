"""Plain forms for prize boards and corrections: amounts in rand, one field per slot and per
setting (never JSON on screen, issue 14 item 1)."""

import re
from decimal import Decimal, InvalidOperation

from django import forms

from core.forms import SwipeGuard
from members.identity import IdType
from prizes.games.best_hand import deck_refusal, parse_card
from prizes.lines import LineKind
from prizes.models import KIND_CHOICES, KIND_LABELS, PrizeBoard
from promotions.models import DrawSeries

MONEY_KINDS = [(k.value, KIND_LABELS[k]) for k in (LineKind.CASH, LineKind.PLAY, LineKind.VEHICLE, LineKind.OTHER)]
MOST_CENTS = 100_000_000_00  # R100 million: anything above is a typing slip


class RandField(forms.Field):
    """An amount in rand as a clerk types it ("5000", "5,000", "R 5 000.50") -> whole cents."""

    widget = forms.TextInput

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)
        attrs = {"inputmode": "decimal", "maxlength": "20", "class": "form-control form-control-sm text-end"}
        self.widget.attrs.update(attrs)

    def prepare_value(self, value):
        if isinstance(value, int):
            return f"{value // 100}.{value % 100:02d}"
        return value

    def to_python(self, value):
        text = re.sub(r"[\sR,]", "", str(value or ""), flags=re.IGNORECASE)
        if not text:
            return None
        try:
            amount = Decimal(text)
        except InvalidOperation:
            raise forms.ValidationError("Type an amount in rand, e.g. 5000 or 5,000.00.") from None
        if amount < 0:
            raise forms.ValidationError("A prize is never negative: corrections are made on the prize record.")
        cents = amount * 100
        if cents != cents.to_integral_value():
            raise forms.ValidationError("Rand and cents only: at most two decimals.")
        if cents > MOST_CENTS:
            raise forms.ValidationError("That is more than R100 million: check the amount.")
        return int(cents)


class DeckField(forms.CharField):
    """The Best Hand deck as a clerk types it ("AS KS QS …", commas allowed) -> the 25 cards as
    the engine writes them ("As Ks Qs …"); refused with the engine's words (FL r84, A9)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        super().__init__(max_length=200, **kwargs)
        self.widget.attrs.update({"class": "form-control form-control-sm", "autocomplete": "off"})

    def to_python(self, value):
        texts = str(value or "").replace(",", " ").split()
        if not texts:
            return None
        if refusal := deck_refusal(texts):
            raise forms.ValidationError(refusal)
        return " ".join(str(parse_card(text)) for text in texts)


class BoardForm(SwipeGuard, forms.Form):
    """One row per slot (its amount and kind, or the later draw and count of a place or
    entries), the game's settings, and the total the slots must add up to."""

    def __init__(self, *args, board: PrizeBoard, **kwargs):
        super().__init__(*args, **kwargs)
        self.board = board
        self.slots = list(board.slots.select_related("target_series"))
        later = DrawSeries.objects.filter(promotion_id=board.series.promotion_id).exclude(pk=board.series_id)
        self.slot_rows = []
        for slot in self.slots:
            names = []
            if slot.kind in (LineKind.PLACE, LineKind.ENTRIES):
                self.fields[f"slot_{slot.pk}_target"] = forms.ModelChoiceField(
                    later, required=False, initial=slot.target_series_id, label=f"{slot.label}: later draw"
                )
                names.append(f"slot_{slot.pk}_target")
                if slot.kind == LineKind.ENTRIES:
                    self.fields[f"slot_{slot.pk}_count"] = forms.IntegerField(
                        required=False, min_value=1, max_value=1000, initial=slot.count, label=f"{slot.label}: entries"
                    )
                    names.append(f"slot_{slot.pk}_count")
            else:
                self.fields[f"slot_{slot.pk}_amount"] = RandField(
                    initial=slot.amount_cents, label=f"{slot.label}: amount"
                )
                self.fields[f"slot_{slot.pk}_kind"] = forms.ChoiceField(
                    choices=MONEY_KINDS, initial=slot.kind, label=f"{slot.label}: kind"
                )
                names += [f"slot_{slot.pk}_amount", f"slot_{slot.pk}_kind"]
            for name in names:
                self.fields[name].widget.attrs.setdefault("class", "form-control form-control-sm")
                self.fields[name].widget.attrs["aria-label"] = self.fields[name].label
            self.slot_rows.append((slot, names))
        self.setting_names = []
        for spec in board.setting_specs():
            name = f"setting_{spec.key}"
            value = board.setting(spec.key)
            if spec.kind == "cents":
                field = RandField(initial=value, label=spec.label)
            elif spec.kind == "bool":
                field = forms.BooleanField(required=False, initial=value, label=spec.label)
            elif spec.kind == "cards":
                field = DeckField(initial=value, label=spec.label)
            else:
                field = forms.IntegerField(required=False, min_value=0, max_value=1000, initial=value, label=spec.label)
            field.help_text = spec.help
            if spec.help:
                field.widget.attrs["aria-describedby"] = f"id_{name}-help"
            self.fields[name] = field
            self.setting_names.append(name)
        self.fields["total"] = RandField(
            initial=board.total_cents, label="The prizes add up to (leave empty when they need not)"
        )

    def slot_changes(self) -> dict[int, dict]:
        data = self.cleaned_data
        changes = {}
        for slot, _names in self.slot_rows:
            if slot.kind in (LineKind.PLACE, LineKind.ENTRIES):
                change = {"target_series": data.get(f"slot_{slot.pk}_target")}
                if slot.kind == LineKind.ENTRIES:
                    change["count"] = data.get(f"slot_{slot.pk}_count")
            else:
                change = {"amount_cents": data.get(f"slot_{slot.pk}_amount"), "kind": data[f"slot_{slot.pk}_kind"]}
            changes[slot.pk] = change
        return changes

    def settings(self) -> dict:
        return {name.removeprefix("setting_"): self.cleaned_data.get(name) for name in self.setting_names}

    def setting_fields(self):
        return [self[name] for name in self.setting_names]

    def rows(self):
        return [(slot, [self[name] for name in names]) for slot, names in self.slot_rows]


class ReverseForm(SwipeGuard, forms.Form):
    reason = forms.CharField(
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "autofocus": True, "class": "form-control"}),
        label="Why this line is corrected (kept on the prize record)",
    )


class RecordFilterForm(SwipeGuard, forms.Form):
    """The prize record's filters: promotion, property and nights (local dates)."""

    promotion = forms.IntegerField(required=False, widget=forms.HiddenInput)
    property = forms.CharField(required=False, max_length=10)
    date_from = forms.DateField(required=False, label="From", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To", widget=forms.DateInput(attrs={"type": "date"}))


def _required_rand(label: str, initial=None) -> RandField:
    field = RandField(required=True, initial=initial, label=label)
    field.error_messages["required"] = f"Type the {label.lower()} in rand, e.g. 5000."
    return field


class VaultPrizesForm(SwipeGuard, forms.Form):
    """GH r9, A4: per tier of the draw, the jackpot (pink ball) and consolation (white ball)."""

    def __init__(self, *args, rows: list[tuple], **kwargs):
        """`rows`: (tier, progressive, jackpot now, consolation on the board) per tier."""
        super().__init__(*args, **kwargs)
        self.tier_rows = []
        for tier, progressive, jackpot, consolation in rows:
            self.fields[f"jackpot_{tier.pk}"] = _required_rand(f"{tier.name} jackpot", jackpot)
            self.fields[f"consolation_{tier.pk}"] = _required_rand(f"{tier.name} consolation", consolation)
            self.tier_rows.append((tier, progressive))

    def amounts(self) -> list[tuple]:
        """(tier, jackpot cents, consolation cents) per tier."""
        data = self.cleaned_data
        return [(tier, data[f"jackpot_{tier.pk}"], data[f"consolation_{tier.pk}"]) for tier, _p in self.tier_rows]

    def rows(self):
        return [
            (tier, progressive, self[f"jackpot_{tier.pk}"], self[f"consolation_{tier.pk}"])
            for tier, progressive in self.tier_rows
        ]


class ProgressiveResetForm(SwipeGuard, forms.Form):
    """A jackpot back to its base by hand: the draw the entry names, and why."""

    draw = forms.ModelChoiceField(queryset=None, label="The draw it concerns", empty_label=None)
    reason = forms.CharField(
        max_length=300,
        widget=forms.Textarea(attrs={"rows": 2, "class": "form-control"}),
        label="Why it goes back to its base (kept on the jackpot's history)",
    )

    def __init__(self, *args, draws, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["draw"].queryset = draws
        self.fields["draw"].widget.attrs["class"] = "form-select"


class SlotAddForm(SwipeGuard, forms.Form):
    """A prize added at the end of a board: its name, kind and amount (or its later draw)."""

    label = forms.CharField(max_length=80, label="Prize", widget=forms.TextInput(attrs={"class": "form-control"}))
    kind = forms.ChoiceField(choices=KIND_CHOICES, initial=LineKind.CASH, label="Kind")
    amount = RandField(label="Amount (R); empty: to be set before the draw")
    target_series = forms.ModelChoiceField(queryset=None, required=False, label="Later draw (a place or entries)")
    count = forms.IntegerField(required=False, min_value=1, max_value=1000, label="Entries (how many)")

    def __init__(self, *args, board: PrizeBoard, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["target_series"].queryset = DrawSeries.objects.filter(
            promotion_id=board.series.promotion_id
        ).exclude(pk=board.series_id)
        for name in ("kind", "target_series"):
            self.fields[name].widget.attrs["class"] = "form-select"
        self.fields["count"].widget.attrs["class"] = "form-control"

    def clean(self):
        data = super().clean()
        if data.get("kind") in (LineKind.PLACE, LineKind.ENTRIES) and data.get("amount") is not None:
            self.add_error("amount", "A place or entries have no amount: name the later draw instead.")
        return data


# --- Prize letters (issue 15) -------------------------------------------------------------------


class LetterIssueForm(SwipeGuard, forms.Form):
    """The winner in person at the Rewards desk: their card swiped (a swipe becomes its card
    number, never kept), the ID they show, its number typed from the document."""

    card_fields = ("card",)
    card = forms.CharField(
        label="The winner's card (swipe it)",
        max_length=200,
        widget=forms.TextInput(attrs={"autofocus": True, "autocomplete": "off", "data-swipe": True}),
        error_messages={"required": "Swipe the winner's card first: the letter is issued to the winner in person."},
    )
    id_type_seen = forms.ChoiceField(label="ID shown", choices=IdType.choices, initial=IdType.SA_ID)
    id_number = forms.CharField(
        label="ID number, as on the document",
        max_length=30,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
        error_messages={"required": "Type the number of the ID the winner shows."},
    )

    def clean_card(self) -> str:
        return self.cleaned_data["card"].strip()


class LetterVoidForm(SwipeGuard, forms.Form):
    ACTIONS = [("reissue", "Void and reissue: the winner gets a new letter"), ("void", "Void only")]
    action = forms.ChoiceField(choices=ACTIONS, initial="reissue", widget=forms.RadioSelect)
    reason = forms.CharField(
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3, "autofocus": True, "class": "form-control"}),
        label="Why (kept on the letter and in the audit log)",
        error_messages={"required": "Say why the letter is voided: the reason is kept."},
    )


class CashDeskPayForm(SwipeGuard, forms.Form):
    """One group of a letter paid at the cash desk: the ID the winner shows, its last four
    characters typed from the document (not a tick box), and their signature. Left optional here:
    the service (prizes.cash_desk) refuses each missing piece in the cashier's words."""

    id_type_seen = forms.ChoiceField(
        label="ID shown",
        choices=IdType.choices,
        initial=IdType.SA_ID,
        widget=forms.Select(attrs={"class": "form-select"}),
    )
    id_last_digits = forms.CharField(
        label="Last 4 digits of the ID shown",
        max_length=8,
        required=False,
        widget=forms.TextInput(
            attrs={"autocomplete": "off", "inputmode": "numeric", "spellcheck": "false", "size": 6, "maxlength": 8}
        ),
    )
    signed = forms.BooleanField(label="The winner signed for receipt", required=False)
