"""The RAPS session's upload form: the active-player list and the session's settings."""

import codecs

from django import forms

from core.forms import GuardedForm
from draws.raps import HEADER, MAX_BYTES, excluded_devices_parse, spend_to_cents


class RapsUploadForm(GuardedForm):
    file = forms.FileField(
        label="Active-player list (CSV)",
        help_text=f"UTF-8 CSV with the header {','.join(HEADER)}; at most {MAX_BYTES // (1024 * 1024)} MB.",
    )
    min_spend = forms.CharField(
        label="Minimum spend (rand)",
        max_length=20,
        help_text="A player qualifies with a spend of at least this much, e.g. 500 or 500.00.",
    )
    excluded = forms.CharField(
        label="Excluded machines",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "slot:A17, table:BJ3"}),
        help_text="Type and machine number, e.g. slot:A17 or table:BJ3, separated by commas or one per line. "
        "Capitals do not matter.",
    )
    slot_quota = forms.IntegerField(label="Winners from slots", min_value=0, max_value=1000)
    table_quota = forms.IntegerField(label="Winners from tables", min_value=0, max_value=1000)
    reason = forms.CharField(
        label="Why is the list being replaced?",
        required=False,  # the service asks for it only when the list changes: a double submission needs none
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Needed to replace the uploaded list (each new list commits a new seed); kept in the audit log.",
    )

    def __init__(self, *args, replacing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not replacing:
            del self.fields["reason"]  # a first upload replaces nothing

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_BYTES:
            megabytes = MAX_BYTES // (1024 * 1024)
            raise forms.ValidationError(
                f"The file is larger than {megabytes} MB: this is not one session's active-player list."
            )
        raw = upload.read()
        if raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]  # Excel's "CSV UTF-8"
        try:
            self.cleaned_data["text"] = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            line = raw[: error.start].count(b"\n") + 1
            raise forms.ValidationError(
                f"Line {line} is not UTF-8 text: save the list as “CSV UTF-8” and upload it again."
            ) from None
        return upload

    def clean_min_spend(self) -> int:
        try:
            return spend_to_cents(self.cleaned_data["min_spend"])
        except ValueError as error:
            raise forms.ValidationError(f"The minimum {error}.") from None

    def clean_excluded(self) -> list[str]:
        try:
            return excluded_devices_parse(self.cleaned_data["excluded"])
        except ValueError as error:
            raise forms.ValidationError(str(error)) from None
